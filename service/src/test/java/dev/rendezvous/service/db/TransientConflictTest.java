package dev.rendezvous.service.db;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlConnection;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Two transactions that lock the same rows in opposite orders both complete: the one PostgreSQL aborts runs again. */
class TransientConflictTest {
  @TempDir Path dir;

  @Test
  void aTransactionAbortedAsADeadlockRunsAgainAndBothComplete() throws Exception {
    Vertx vertx = Vertx.vertx();
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dir.resolve("pg"), false)) {
      Pool pool = Database.pool(vertx, pg.connectionUri(), 4);
      await(pool.query("CREATE TABLE t (id int PRIMARY KEY, v int NOT NULL)").execute());
      await(pool.query("INSERT INTO t VALUES (1, 0), (2, 0)").execute());
      Promise<Void> aHolds = Promise.promise();
      Promise<Void> bHolds = Promise.promise();
      AtomicInteger attempts = new AtomicInteger();
      // A locks row 1 then row 2, B row 2 then row 1, each waiting until the other holds its first row
      Future<Void> a = TransientConflict.retrying(pool, c -> crossing(c, 1, 2, aHolds, bHolds.future(), attempts));
      Future<Void> b = TransientConflict.retrying(pool, c -> crossing(c, 2, 1, bHolds, aHolds.future(), attempts));
      await(Future.all(a, b));
      assertTrue(attempts.get() > 2, "one of the two was aborted and ran again: " + attempts.get() + " attempts");
      List<Integer> values = new ArrayList<>();
      for (Row r : await(pool.query("SELECT v FROM t ORDER BY id").execute())) {
        values.add(r.getInteger(0));
      }
      assertEquals(List.of(2, 2), values, "each transaction's two updates landed once");
      await(pool.close());
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }

  private static Future<Void> crossing(SqlConnection c, int first, int second, Promise<Void> holding,
      Future<Void> otherHolds, AtomicInteger attempts) {
    attempts.incrementAndGet();
    return c.query("UPDATE t SET v = v + 1 WHERE id = " + first).execute()
        .compose(r -> {
          holding.tryComplete();
          return otherHolds;
        })
        .compose(v -> c.query("UPDATE t SET v = v + 1 WHERE id = " + second).execute())
        .mapEmpty();
  }

  @Test
  void onlyDeadlocksAndSerializationFailuresAreTransient() {
    assertTrue(TransientConflict.is(new RuntimeException(new PgException("deadlock detected", "ERROR", "40P01", null))));
    assertTrue(TransientConflict.is(new PgException("could not serialize access", "ERROR", "40001", null)));
    assertFalse(TransientConflict.is(new PgException("duplicate key", "ERROR", "23505", null)));
    assertFalse(TransientConflict.is(new IllegalStateException("boom")));
  }

  private static <T> T await(Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
  }
}
