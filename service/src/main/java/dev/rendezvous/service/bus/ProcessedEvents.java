package dev.rendezvous.service.bus;

import io.vertx.core.Future;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.Tuple;

/** Idempotency for bus handlers: an event id is claimed once, inside the handler's transaction. */
public final class ProcessedEvents {
  private ProcessedEvents() {}

  /** True the first time this event id is seen; false for a replay (the caller then changes nothing). */
  public static Future<Boolean> claim(SqlClient tx, String eventId) {
    return tx.preparedQuery("INSERT INTO processed_bus_events (event_id) VALUES ($1) ON CONFLICT DO NOTHING")
        .execute(Tuple.of(eventId))
        .map(rs -> rs.rowCount() == 1);
  }
}
