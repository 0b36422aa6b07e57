package dev.rendezvous.service.db;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.SqlConnection;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pool bounds how many requests wait for a connection, not how long: a waiter is served however long the
 * connections stay busy, and one past the queue is refused at once as "retry later". (A time limit raced with the
 * hand-over of a connection in Vert.x 5.0 and lost connections for good; see {@link Database}.)
 */
class DatabasePoolTest {
  @TempDir Path dir;

  @Test
  void waitersAreServedHoweverLongTheyWaitAndOnePastTheQueueIsRefusedAtOnce() throws Exception {
    Vertx vertx = Vertx.vertx();
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dir.resolve("pg"), false)) {
      Pool pool = Database.pool(vertx, pg.connectionUri(), 1);
      SqlConnection held = pool.getConnection().await(30, TimeUnit.SECONDS);
      int queue = Database.waitQueue(1);
      List<Future<Integer>> waiting = new ArrayList<>();
      for (int i = 0; i < queue; i++) {
        int n = i;
        waiting.add(pool.query("SELECT " + n).execute().map(rows -> rows.iterator().next().getInteger(0)));
      }
      Future<?> over = pool.query("SELECT -1").execute();
      settle(over);
      assertTrue(over.failed(), "one past the queue is refused at once, not kept waiting");
      assertTrue(DatabaseUnavailable.is(over.cause()), "and is 'retry later': " + over.cause());
      // longer than the five seconds the pool used to wait before failing a waiter
      Thread.sleep(6_000);
      assertTrue(waiting.stream().noneMatch(Future::isComplete), "nobody was served or failed while the one"
          + " connection was held");
      held.close().await(10, TimeUnit.SECONDS);
      for (int i = 0; i < queue; i++) {
        assertEquals(i, waiting.get(i).await(30, TimeUnit.SECONDS), "waiter " + i + " got its own answer");
      }
      pool.close().await(10, TimeUnit.SECONDS);
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }

  private static void settle(Future<?> f) {
    try {
      f.await(2, TimeUnit.SECONDS);
    } catch (Exception e) {
      // failed or still pending: the caller looks at the future itself
    }
  }
}
