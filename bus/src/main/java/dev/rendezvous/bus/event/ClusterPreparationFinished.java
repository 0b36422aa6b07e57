package dev.rendezvous.bus.event;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Objects;

/**
 * The service finished preparing a cluster's installation (install-config, manifests, Ignition configs and
 * credentials generated and stored), or failed to. {@code install_started_at} names the preparation it belongs to
 * (the cluster's install start time when it was asked for), so a late result of an earlier, cancelled preparation
 * changes nothing. {@code generator} names what made the files ({@code built-in} or {@code openshift-install}).
 */
public record ClusterPreparationFinished(
        @JsonProperty("install_started_at") String installStartedAt,
        @JsonProperty("succeeded") boolean succeeded,
        @JsonProperty("reason") String reason,
        @JsonProperty("generator") String generator) implements BusPayload {

    public static final String TYPE = "cluster_preparation_finished";

    public ClusterPreparationFinished {
        Objects.requireNonNull(installStartedAt, "install_started_at");
    }

    @Override
    @JsonIgnore
    public String typeName() {
        return TYPE;
    }
}
