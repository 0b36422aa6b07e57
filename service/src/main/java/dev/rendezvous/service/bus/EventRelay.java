package dev.rendezvous.service.bus;

import dev.rendezvous.bus.BusEvent;
import dev.rendezvous.bus.BusProducer;
import dev.rendezvous.bus.Topics;
import dev.rendezvous.bus.event.DomainEventRecorded;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes recorded events to the events topic (the outbox relay): the events queued in {@code event_outbox}
 * (every insert into events queues its rows, V10) in order, then takes them off the queue. Runs on a timer; one batch at a time; instances share the work through row locks. At-least-once:
 * a crash after publishing and before marking republishes the batch, which carries the same event ids (derived
 * from the row).
 */
public final class EventRelay {
  private static final Logger LOG = LoggerFactory.getLogger(EventRelay.class);
  private static final int BATCH = 500;

  private final Vertx vertx;
  private final Pool pool;
  private final BusProducer producer;
  private long timer = -1;
  private boolean running;

  public EventRelay(Vertx vertx, Pool pool, BusProducer producer) {
    this.vertx = vertx;
    this.pool = pool;
    this.producer = producer;
  }

  public void start(long periodMillis) {
    timer = vertx.setPeriodic(periodMillis, id -> relayOnce());
  }

  public void stop() {
    if (timer >= 0) {
      vertx.cancelTimer(timer);
    }
  }

  /** One batch; returns how many events were published. */
  public Future<Integer> relayOnce() {
    if (running) {
      return Future.succeededFuture(0);
    }
    running = true;
    // In one transaction, the batch's rows locked (SKIP LOCKED: another instance's relay takes other rows), so
    // several instances relay the same table without publishing a row twice (short of a crash before the commit).
    // (an event deleted meanwhile leaves its queue entry with no row: taken off with the batch)
    return pool.withTransaction(conn -> conn.query("SELECT o.seq, e.seq IS NOT NULL AS present, e.name, e.cluster_id,"
            + " e.host_id, e.infra_env_id, e.severity, e.category, e.message, e.event_time, e.props FROM event_outbox o"
            + " LEFT JOIN events e ON e.seq = o.seq ORDER BY o.seq LIMIT " + BATCH + " FOR UPDATE OF o SKIP LOCKED")
        .execute()
        .compose(rows -> {
          List<CompletableFuture<?>> sends = new ArrayList<>();
          List<Long> seqs = new ArrayList<>();
          for (Row r : rows) {
            if (!r.getBoolean("present")) {
              seqs.add(r.getLong("seq"));
              continue;
            }
            UUID cluster = r.getUUID("cluster_id");
            UUID infraEnv = r.getUUID("infra_env_id");
            if (cluster == null && infraEnv == null) {
              seqs.add(r.getLong("seq")); // tenant-level events have no partition key; nothing to relay
              continue;
            }
            Object props = r.getValue("props");
            DomainEventRecorded payload = new DomainEventRecorded(r.getString("name"), r.getString("severity"),
                r.getString("category"), r.getString("message"), r.getOffsetDateTime("event_time").toInstant(),
                props == null ? null : props.toString());
            BusEvent e = new BusEvent("event-row-" + r.getLong("seq"), Instant.now(), str(cluster), str(infraEnv),
                str(r.getUUID("host_id")), payload.schemaVersion(), payload);
            sends.add(producer.publish(Topics.EVENTS, e));
            seqs.add(r.getLong("seq"));
          }
          if (seqs.isEmpty()) {
            return Future.succeededFuture(0);
          }
          return Future.fromCompletionStage(CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)), vertx.getOrCreateContext())
              .compose(v -> conn.preparedQuery("DELETE FROM event_outbox WHERE seq = ANY($1)")
                  .execute(Tuple.of(seqs.toArray(new Long[0]))))
              .map(v -> seqs.size());
        }))
        .onFailure(e -> LOG.atWarn().setCause(e).log("event relay batch failed; will retry"))
        .onComplete(ar -> running = false);
  }

  private static String str(UUID u) {
    return u == null ? null : u.toString();
  }
}
