package dev.rendezvous.bus.event;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Objects;

/**
 * The next steps for one host (upstream {@code steps}); the envelope's {@code host_id} says which agent.
 * Every gateway reads these and forwards the ones of agents connected to it.
 * {@code post_step_action} is {@link #CONTINUE} or {@link #EXIT}.
 */
public record StepsToDeliver(
        @JsonProperty("next_instruction_seconds") int nextInstructionSeconds,
        @JsonProperty("post_step_action") String postStepAction,
        @JsonProperty("instructions") List<Step> instructions) implements BusPayload {

    public static final String TYPE = "steps_to_deliver";

    public static final String CONTINUE = "continue";
    public static final String EXIT = "exit";

    public StepsToDeliver {
        postStepAction = postStepAction == null ? CONTINUE : postStepAction;
        instructions = instructions == null ? List.of() : List.copyOf(instructions);
    }

    /** One instruction (upstream {@code step}): args are strings, {@code args[0]} usually a JSON request. */
    public record Step(
            @JsonProperty("step_type") String stepType,
            @JsonProperty("step_id") String stepId,
            @JsonProperty("args") List<String> args) {
        public Step {
            Objects.requireNonNull(stepType, "step_type");
            Objects.requireNonNull(stepId, "step_id");
            args = args == null ? List.of() : List.copyOf(args);
        }
    }

    @Override
    @JsonIgnore
    public String typeName() {
        return TYPE;
    }

}
