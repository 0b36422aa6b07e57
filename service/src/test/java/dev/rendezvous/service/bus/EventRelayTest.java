package dev.rendezvous.service.bus;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rendezvous.bus.BusConsumer;
import dev.rendezvous.bus.BusProducer;
import dev.rendezvous.bus.EmbeddedKafka;
import dev.rendezvous.bus.TopicSetup;
import dev.rendezvous.bus.Topics;
import dev.rendezvous.service.db.Database;
import dev.rendezvous.service.db.EmbeddedPostgresServer;
import dev.rendezvous.service.db.Migrations;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Two instances' relays on one events table: every row reaches the topic once, none twice; deleted ones are dropped. */
class EventRelayTest {
  @TempDir Path dir;

  @Test
  void twoRelaysPublishEveryRowOnce() throws Exception {
    Vertx vertx = Vertx.vertx();
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dir.resolve("pg"), false);
        EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"), false);
        BusProducer producer = new BusProducer(kafka.bootstrapServers(), "relay-test")) {
      TopicSetup.ensure(kafka.bootstrapServers(), 4, (short) 1, Duration.ofSeconds(60));
      Pool one = Database.pool(vertx, pg.connectionUri(), 2);
      Pool two = Database.pool(vertx, pg.connectionUri(), 2);
      await(Migrations.apply(one));
      await(one.query("INSERT INTO events (tenant, name, cluster_id, severity, message, event_time)"
          + " SELECT 't', 'relay-' || i, gen_random_uuid(), 'info', 'm', now() FROM generate_series(1, 3000) i").execute());
      // events gone before they were relayed (none of ours deletes a queued one; the queue must not wedge on them)
      await(one.query("DELETE FROM events WHERE name IN ('relay-1', 'relay-1500', 'relay-3000')").execute());

      Map<String, AtomicInteger> seen = new ConcurrentHashMap<>();
      BusConsumer reader = BusConsumer.fanOut(kafka.bootstrapServers(), List.of(Topics.EVENTS),
          BusConsumer.StartFrom.EARLIEST, e -> {
            seen.computeIfAbsent(e.eventId(), k -> new AtomicInteger()).incrementAndGet();
            return CompletableFuture.completedFuture(null);
          });
      try {
        EventRelay a = new EventRelay(vertx, one, producer);
        EventRelay b = new EventRelay(vertx, two, producer);
        // both relay at the same time, batch after batch, until the table is done
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (count(one, "SELECT count(*) FROM event_outbox") > 0 && System.nanoTime() < deadline) {
          Future<Integer> fa = a.relayOnce();
          Future<Integer> fb = b.relayOnce();
          await(Future.join(fa, fb));
        }
        assertEquals(0, count(one, "SELECT count(*) FROM event_outbox"));
        long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (seen.size() < 2997 && System.nanoTime() < until) {
          Thread.sleep(100);
        }
        Thread.sleep(500); // a duplicate would arrive with the rest
        assertEquals(2997, seen.size(), "every row on the topic");
        assertEquals(0, seen.values().stream().filter(n -> n.get() > 1).count(), "no row published twice");
      } finally {
        reader.close();
        await(one.close());
        await(two.close());
      }
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
