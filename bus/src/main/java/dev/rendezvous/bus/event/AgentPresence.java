package dev.rendezvous.bus.event;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Objects;

/**
 * A gateway saw an agent connect, disconnect or check in. {@code state} is one of {@link #CONNECTED},
 * {@link #DISCONNECTED}, {@link #CHECKED_IN}; {@code transport} one of {@link #WEBSOCKET}, {@link #LONG_POLL},
 * {@link #HTTP}. {@code gateway_id} names the gateway instance holding the connection; {@code reads_shared_targets}
 * says that gateway fills in steps marked {@code shared_targets} ({@link StepsToDeliver}; absent from the previous
 * release's gateways, which do not).
 */
public record AgentPresence(
        @JsonProperty("state") String state,
        @JsonProperty("transport") String transport,
        @JsonProperty("gateway_id") String gatewayId,
        @JsonProperty("agent_version") String agentVersion,
        @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
        @JsonProperty("reads_shared_targets") Boolean readsSharedTargets) implements BusPayload {

    public static final String TYPE = "agent_presence";

    public static final String CONNECTED = "connected";
    public static final String DISCONNECTED = "disconnected";
    public static final String CHECKED_IN = "checked-in";

    public static final String WEBSOCKET = "websocket";
    public static final String LONG_POLL = "long-poll";
    public static final String HTTP = "http";

    public AgentPresence {
        Objects.requireNonNull(state, "state");
    }

    public AgentPresence(String state, String transport, String gatewayId, String agentVersion) {
        this(state, transport, gatewayId, agentVersion, null);
    }

    /** Whether the gateway holding the agent fills in shared connectivity targets. */
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
