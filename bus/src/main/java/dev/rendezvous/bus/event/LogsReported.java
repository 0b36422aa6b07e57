package dev.rendezvous.bus.event;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Objects;

/**
 * Log collection moved: {@code logs_type} {@code host} (the envelope names the host) or {@code controller};
 * {@code logs_state} {@code requested}, {@code collecting}, {@code completed} or {@code timeout} (logs-progress),
 * or {@link #UPLOADED} when a bundle was stored.
 */
public record LogsReported(
        @JsonProperty("logs_type") String logsType,
        @JsonProperty("logs_state") String logsState) implements BusPayload {

    public static final String TYPE = "logs_reported";
    public static final String UPLOADED = "uploaded";

    public LogsReported {
        Objects.requireNonNull(logsType, "logs_type");
        Objects.requireNonNull(logsState, "logs_state");
    }

    @Override
    @JsonIgnore
    public String typeName() {
        return TYPE;
    }
}
