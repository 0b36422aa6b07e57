package dev.rendezvous.service.repo;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rendezvous.service.db.Database;
import dev.rendezvous.service.db.EmbeddedPostgresServer;
import dev.rendezvous.service.db.Migrations;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RetentionSweeperTest {
  @TempDir Path dir;

  @Test
  void oldLedgerIdsAndOldPublishedEventsGoTheRestStays() throws Exception {
    Vertx vertx = Vertx.vertx();
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dir.resolve("pg"), false)) {
      Pool pool = Database.pool(vertx, pg.connectionUri(), 2);
      await(Migrations.apply(pool));
      await(pool.query("INSERT INTO processed_bus_events (event_id, processed_at) SELECT 'old-' || i,"
          + " now() - interval '9 days' FROM generate_series(1, 12000) i").execute());
      await(pool.query("INSERT INTO processed_bus_events (event_id, processed_at) VALUES ('recent', now() - interval '7 days'),"
          + " ('new', now())").execute());
      String event = "INSERT INTO events (tenant, name, severity, message, event_time) VALUES ";
      await(pool.query(event + "('t', 'old-published', 'info', 'm', now() - interval '31 days'),"
          + " ('t', 'old-unpublished', 'info', 'm', now() - interval '31 days'),"
          + " ('t', 'recent', 'info', 'm', now() - interval '29 days')").execute());
      assertEquals(3, count(pool, "SELECT count(*) FROM event_outbox"), "every event inserted is owed to the bus");
      // as the relay does once they are on the bus
      await(pool.query("DELETE FROM event_outbox WHERE seq IN (SELECT seq FROM events WHERE name IN ('old-published',"
          + " 'recent'))").execute());

      long[] swept = await(new RetentionSweeper(pool, Duration.ofDays(7), Duration.ofDays(30)).sweep());
      assertEquals(12000, swept[0], "ledger ids older than the bus retention plus a day, in several chunks");
      assertEquals(1, swept[1]);
      assertEquals(2, count(pool, "SELECT count(*) FROM processed_bus_events"));
      assertEquals(2, count(pool, "SELECT count(*) FROM events WHERE name IN ('old-unpublished', 'recent')"));
      assertEquals(0, count(pool, "SELECT count(*) FROM events WHERE name = 'old-published'"));

      long[] keepForever = await(new RetentionSweeper(pool, Duration.ofDays(7), Duration.ZERO).sweep());
      assertEquals(0, keepForever[1]);
      await(pool.close());
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }

  private static long count(Pool pool, String sql) throws Exception {
    return await(pool.query(sql).execute()).iterator().next().getLong(0);
  }

  private static <T> T await(Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
  }
}
