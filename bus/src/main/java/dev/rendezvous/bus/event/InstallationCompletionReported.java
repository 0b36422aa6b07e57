package dev.rendezvous.bus.event;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The controller called {@code complete-installation}. As upstream, the service decides completion itself (hosts,
 * kubeconfig, operators); this report only records what the controller saw ({@code error_info}, its operators
 * report) for the user.
 */
public record InstallationCompletionReported(
        @JsonProperty("is_success") boolean isSuccess,
        @JsonProperty("error_info") String errorInfo,
        @JsonProperty("operators_report") String operatorsReport) implements BusPayload {

    public static final String TYPE = "installation_completion_reported";

    @Override
    @JsonIgnore
    public String typeName() {
        return TYPE;
    }
}
