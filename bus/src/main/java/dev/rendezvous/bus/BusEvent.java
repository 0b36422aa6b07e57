package dev.rendezvous.bus;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import dev.rendezvous.bus.event.BusPayload;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * The envelope of every record on the bus.
 *
 * <ul>
 *   <li>{@code event_id}: a random UUID set once by the producer; handlers deduplicate on it (at-least-once bus).</li>
 *   <li>{@code occurred_at}: when the fact happened, ISO-8601 UTC.</li>
 *   <li>{@code cluster_id}, {@code infra_env_id}: at least one is set; they decide the partition
 *       ({@link #partitionKey(String, String)}). {@code host_id} is null for cluster-level events.</li>
 *   <li>{@code payload_version}: the payload's schema version as written by the producer.</li>
 *   <li>{@code payload}: the typed body, {@code {"type": "...", ...}}.</li>
 * </ul>
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record BusEvent(
        @JsonProperty("event_id") String eventId,
        @JsonProperty("occurred_at") Instant occurredAt,
        @JsonProperty("cluster_id") String clusterId,
        @JsonProperty("infra_env_id") String infraEnvId,
        @JsonProperty("host_id") String hostId,
        @JsonProperty("payload_version") int payloadVersion,
        @JsonProperty("payload") BusPayload payload) {

    public BusEvent {
        requireText(eventId, "event_id");
        Objects.requireNonNull(occurredAt, "occurred_at is required");
        Objects.requireNonNull(payload, "payload is required");
        if (isBlank(clusterId) && isBlank(infraEnvId)) {
            throw new IllegalArgumentException("cluster_id or infra_env_id is required (it is the partition key)");
        }
    }

    /** A new event about a host or infra-env: fresh event id, now, the payload's current schema version. */
    public static BusEvent of(String clusterId, String infraEnvId, String hostId, BusPayload payload) {
        Objects.requireNonNull(payload, "payload is required");
        return new BusEvent(UUID.randomUUID().toString(), Instant.now(), clusterId, infraEnvId, hostId,
                payload.schemaVersion(), payload);
    }

    /** A new cluster-level event (no host). */
    public static BusEvent ofCluster(String clusterId, BusPayload payload) {
        return of(clusterId, null, null, payload);
    }

    /** Partition key: the cluster id, or the infra-env id for a host not bound to a cluster. */
    public static String partitionKey(String clusterId, String infraEnvId) {
        return isBlank(clusterId) ? infraEnvId : clusterId;
    }

    /** This event's partition key, see {@link #partitionKey(String, String)}. */
    @JsonIgnore
    public String partitionKey() {
        return partitionKey(clusterId, infraEnvId);
    }

    /** The payload's wire type name, for logs and routing. */
    @JsonIgnore
    public String type() {
        return payload.typeName();
    }

    private static void requireText(String value, String field) {
        if (isBlank(value)) {
            throw new IllegalArgumentException(field + " is required");
        }
    }

    private static boolean isBlank(String value) {
        return value == null || value.isBlank();
    }
}
