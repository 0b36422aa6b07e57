package dev.rendezvous.bus.event;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Objects;

/**
 * A user asked for a cluster action; {@code action} is {@link #INSTALL}, {@link #CANCEL} or {@link #RESET};
 * {@code requested_by} names the user or token subject.
 */
public record ClusterActionRequested(
        @JsonProperty("action") String action,
        @JsonProperty("requested_by") String requestedBy) implements BusPayload {

    public static final String TYPE = "cluster_action_requested";

    public static final String INSTALL = "install";
    public static final String CANCEL = "cancel";
    public static final String RESET = "reset";

    public ClusterActionRequested {
        Objects.requireNonNull(action, "action");
    }

    @Override
    @JsonIgnore
    public String typeName() {
        return TYPE;
    }

}
