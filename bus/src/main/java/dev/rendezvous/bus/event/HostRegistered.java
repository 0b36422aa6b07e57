package dev.rendezvous.bus.event;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Objects;

/**
 * An agent registered its host ({@code v2RegisterHost}). {@code cluster_id} is null for a host of an unbound
 * infra-env. {@code transport} is how the agent talks to us: see {@link AgentPresence} constants;
 * {@code reads_shared_targets} as in {@link AgentPresence}.
 */
public record HostRegistered(
        @JsonProperty("host_id") String hostId,
        @JsonProperty("infra_env_id") String infraEnvId,
        @JsonProperty("cluster_id") String clusterId,
        @JsonProperty("discovery_agent_version") String discoveryAgentVersion,
        @JsonProperty("transport") String transport,
        @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
        @JsonProperty("reads_shared_targets") Boolean readsSharedTargets) implements BusPayload {

    public static final String TYPE = "host_registered";

    public HostRegistered {
        Objects.requireNonNull(hostId, "host_id");
        Objects.requireNonNull(infraEnvId, "infra_env_id");
    }

    public HostRegistered(String hostId, String infraEnvId, String clusterId, String discoveryAgentVersion,
                          String transport) {
        this(hostId, infraEnvId, clusterId, discoveryAgentVersion, transport, null);
    }

    /** Whether the gateway the host registered at fills in shared connectivity targets. */
    @JsonIgnore
    public boolean fillsSharedTargets() {
        return Boolean.TRUE.equals(readsSharedTargets);
    }

    @Override
    @JsonIgnore
    public String typeName() {
        return TYPE;
    }

}
