package dev.rendezvous.bus.event;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Objects;

/**
 * An agent registered its host ({@code v2RegisterHost}). {@code cluster_id} is null for a host of an unbound
 * infra-env. {@code transport} is how the agent talks to us: see {@link AgentPresence} constants.
 */
public record HostRegistered(
        @JsonProperty("host_id") String hostId,
        @JsonProperty("infra_env_id") String infraEnvId,
        @JsonProperty("cluster_id") String clusterId,
        @JsonProperty("discovery_agent_version") String discoveryAgentVersion,
        @JsonProperty("transport") String transport) implements BusPayload {

    public static final String TYPE = "host_registered";

    public HostRegistered {
        Objects.requireNonNull(hostId, "host_id");
        Objects.requireNonNull(infraEnvId, "infra_env_id");
    }

    @Override
    @JsonIgnore
    public String typeName() {
        return TYPE;
    }

}
