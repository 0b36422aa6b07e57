package dev.rendezvous.bus.event;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Objects;

/**
 * An agent's step reply ({@code v2PostStepReply} body {@code step-reply}), as received. {@code output} is the
 * step's JSON response as a string, exactly as upstream sends it; {@code error} is the agent's stderr text.
 */
public record StepReplyReceived(
        @JsonProperty("step_type") String stepType,
        @JsonProperty("step_id") String stepId,
        @JsonProperty("exit_code") int exitCode,
        @JsonProperty("output") String output,
        @JsonProperty("error") String error) implements BusPayload {

    public static final String TYPE = "step_reply_received";

    public StepReplyReceived {
        Objects.requireNonNull(stepType, "step_type");
        Objects.requireNonNull(stepId, "step_id");
    }

    @Override
    @JsonIgnore
    public String typeName() {
        return TYPE;
    }

}
