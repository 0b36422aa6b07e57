package dev.rendezvous.service.repo;

import io.vertx.core.json.JsonObject;
import java.time.OffsetDateTime;
import java.util.UUID;

/** One row of the user-visible event feed (upstream's event model). */
public record EventRecord(
    String tenant,
    String name,
    UUID clusterId,
    UUID hostId,
    UUID infraEnvId,
    String severity,
    String category,
    String message,
    OffsetDateTime eventTime,
    String requestId,
    JsonObject props) {

  public static EventRecord info(String tenant, String name, String message, UUID clusterId, UUID infraEnvId, UUID hostId) {
    return new EventRecord(tenant, name, clusterId, hostId, infraEnvId, "info", "user", message, Times.now(), null, null);
  }
}
