package dev.rendezvous.bus.event;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Objects;

/**
 * The controller's report of a monitored operator ({@code v2ReportMonitoredOperatorStatus}); {@code status} is
 * {@code available}, {@code progressing} or {@code failed}.
 */
public record OperatorStatusReported(
        @JsonProperty("name") String name,
        @JsonProperty("status") String status,
        @JsonProperty("status_info") String statusInfo,
        @JsonProperty("version") String version) implements BusPayload {

    public static final String TYPE = "operator_status_reported";

    public OperatorStatusReported {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(status, "status");
    }

    @Override
    @JsonIgnore
    public String typeName() {
        return TYPE;
    }
}
