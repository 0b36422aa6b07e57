package dev.rendezvous.service.repo;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the tables that grow with time bounded. The processed-event ledger only has to remember an event while the
 * bus can deliver it again, so it keeps ids one day longer than the topics keep records; published events are kept
 * for the configured retention (0 = forever). Deletes go in chunks so a sweep never holds long locks.
 */
public final class RetentionSweeper {
  private static final Logger LOG = LoggerFactory.getLogger(RetentionSweeper.class);
  private static final int CHUNK = 5000;
  private static final String SWEEP_LEDGER = "DELETE FROM processed_bus_events WHERE event_id IN (SELECT event_id"
      + " FROM processed_bus_events WHERE processed_at < now() - make_interval(secs => $1) LIMIT " + CHUNK + ")";
  // only events the relay has published: one still in the outbox is owed to the bus
  private static final String SWEEP_EVENTS = "DELETE FROM events WHERE seq IN (SELECT seq FROM events e"
      + " WHERE event_time < now() - make_interval(secs => $1)"
      + " AND NOT EXISTS (SELECT 1 FROM event_outbox o WHERE o.seq = e.seq) LIMIT " + CHUNK + ")";

  private final Pool pool;
  private final Duration ledgerRetention;
  private final Duration eventsRetention;

  /** {@code eventsRetention} zero keeps events forever. */
  public RetentionSweeper(Pool pool, Duration busRetention, Duration eventsRetention) {
    this.pool = pool;
    this.ledgerRetention = busRetention.plusDays(1);
    this.eventsRetention = eventsRetention;
  }

  /** Sweeps now and then every {@code interval}; returns the timer id. */
  public long start(Vertx vertx, Duration interval) {
    sweep();
    return vertx.setPeriodic(interval.toMillis(), id -> sweep());
  }

  /** One sweep; the future holds how many rows went (ledger, events). */
  public Future<long[]> sweep() {
    Future<Long> ledger = drain(SWEEP_LEDGER, ledgerRetention, 0);
    return ledger.compose(l -> (eventsRetention.isZero() ? Future.succeededFuture(0L)
            : drain(SWEEP_EVENTS, eventsRetention, 0)).map(e -> new long[] {l, e}))
        .onSuccess(n -> {
          if (n[0] + n[1] > 0) {
            LOG.atInfo().addKeyValue("ledger_rows", n[0]).addKeyValue("event_rows", n[1]).log("retention sweep");
          }
        })
        .onFailure(t -> LOG.atWarn().log("retention sweep failed (next one retries): " + t));
  }

  private Future<Long> drain(String sql, Duration age, long sofar) {
    return pool.preparedQuery(sql).execute(Tuple.of((double) age.toSeconds())).compose(rows -> {
      long total = sofar + rows.rowCount();
      return rows.rowCount() < CHUNK ? Future.succeededFuture(total) : drain(sql, age, total);
    });
  }
}
