package dev.rendezvous.bus.event;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;
import java.util.Objects;

/**
 * A user-visible event (upstream {@code event}) was recorded: the feed observability serves.
 * {@code severity} ∈ info/warning/error/critical, {@code category} ∈ user/metrics, {@code props} a JSON string
 * (as upstream). Cluster, infra-env and host ids are on the envelope.
 */
public record DomainEventRecorded(
        @JsonProperty("name") String name,
        @JsonProperty("severity") String severity,
        @JsonProperty("category") String category,
        @JsonProperty("message") String message,
        @JsonProperty("event_time") Instant eventTime,
        @JsonProperty("props") String props) implements BusPayload {

    public static final String TYPE = "domain_event_recorded";

    public DomainEventRecorded {
        Objects.requireNonNull(severity, "severity");
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(eventTime, "event_time");
        category = category == null ? "user" : category;
    }

    @Override
    @JsonIgnore
    public String typeName() {
        return TYPE;
    }

}
