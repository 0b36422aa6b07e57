package dev.rendezvous.bus.event;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The next steps for one host (upstream {@code steps}); the envelope's {@code host_id} says which agent.
 * Every gateway reads these and forwards the ones of agents connected to it.
 * {@code post_step_action} is {@link #CONTINUE} or {@link #EXIT}.
 *
 * <p>A record with no {@code host_id} carries a cluster's shared connectivity targets instead
 * ({@code connectivity_targets}, no instructions): each host's connectivity check lists every peer of its cluster, so
 * a 1,000-host cluster's plans each held the same ~170 KB of peers (all but the host itself), and its plans were 2.5
 * times the bytes of all its agents' replies on the bus. A step marked {@code shared_targets} has its argument filled
 * in by the gateway from the latest targets of its cluster ({@link #withTargets}). Gateways of the previous release
 * ignore host-less records and deliver a step's args as they are; the service marks steps only for hosts whose gateway
 * said it fills them in ({@link AgentPresence#readsSharedTargets}).
 */
public record StepsToDeliver(
        @JsonProperty("next_instruction_seconds") int nextInstructionSeconds,
        @JsonProperty("post_step_action") String postStepAction,
        @JsonProperty("instructions") List<Step> instructions,
        @JsonInclude(JsonInclude.Include.NON_NULL)
        @JsonProperty("connectivity_targets") List<Target> connectivityTargets) implements BusPayload {

    public static final String TYPE = "steps_to_deliver";

    public static final String CONTINUE = "continue";
    public static final String EXIT = "exit";

    public StepsToDeliver {
        postStepAction = postStepAction == null ? CONTINUE : postStepAction;
        instructions = instructions == null ? List.of() : List.copyOf(instructions);
        connectivityTargets = connectivityTargets == null ? null : List.copyOf(connectivityTargets);
    }

    public StepsToDeliver(int nextInstructionSeconds, String postStepAction, List<Step> instructions) {
        this(nextInstructionSeconds, postStepAction, instructions, null);
    }

    /** A cluster's shared connectivity targets, in the order its plans list them (a record with no host). */
    public static StepsToDeliver targets(List<Target> targets) {
        return new StepsToDeliver(0, CONTINUE, List.of(), targets);
    }

    /** One instruction (upstream {@code step}): args are strings, {@code args[0]} usually a JSON request. */
    public record Step(
            @JsonProperty("step_type") String stepType,
            @JsonProperty("step_id") String stepId,
            @JsonProperty("args") List<String> args,
            @JsonInclude(JsonInclude.Include.NON_NULL)
            @JsonProperty("shared_targets") Boolean sharedTargets) {
        public Step {
            Objects.requireNonNull(stepType, "step_type");
            Objects.requireNonNull(stepId, "step_id");
            args = args == null ? List.of() : List.copyOf(args);
            sharedTargets = Boolean.TRUE.equals(sharedTargets) ? Boolean.TRUE : null;
        }

        public Step(String stepType, String stepId, List<String> args) {
            this(stepType, stepId, args, null);
        }

        /** Whether the gateway fills in this step's argument from its cluster's shared targets. */
        @JsonIgnore
        public boolean usesSharedTargets() {
            return sharedTargets != null;
        }
    }

    /** One peer of a connectivity check: the host, and its entry of the target list (JSON). */
    public record Target(@JsonProperty("host_id") String hostId, @JsonProperty("entry") String entry) {
        public Target {
            Objects.requireNonNull(hostId, "host_id");
            Objects.requireNonNull(entry, "entry");
        }
    }

    /** Whether a step's argument is to be filled in from shared targets. */
    @JsonIgnore
    public boolean usesSharedTargets() {
        for (Step s : instructions) {
            if (s.usesSharedTargets()) {
                return true;
            }
        }
        return false;
    }

    /**
     * These steps as the agent {@code hostId} gets them: each step marked {@code shared_targets} with its one argument,
     * the JSON list of every target but the host's own, in order; left out when {@code targets} is null (none known
     * here yet) or names no other host (nothing to check). Steps not marked are kept as they are.
     */
    public StepsToDeliver withTargets(String hostId, List<Target> targets) {
        if (!usesSharedTargets()) {
            return this;
        }
        String list = targets == null ? null : targetList(hostId, targets);
        List<Step> out = new ArrayList<>(instructions.size());
        for (Step s : instructions) {
            if (!s.usesSharedTargets()) {
                out.add(s);
            } else if (list != null) {
                out.add(new Step(s.stepType(), s.stepId(), List.of(list)));
            }
        }
        return new StepsToDeliver(nextInstructionSeconds, postStepAction, out);
    }

    /** {@code [entry,entry,...]} of every target but {@code hostId}'s; null when there is none. */
    static String targetList(String hostId, List<Target> targets) {
        int length = 2;
        for (Target t : targets) {
            length += t.entry().length() + 1;
        }
        StringBuilder b = new StringBuilder(length).append('[');
        int n = 0;
        for (Target t : targets) {
            if (t.hostId().equals(hostId)) {
                continue;
            }
            if (n++ > 0) {
                b.append(',');
            }
            b.append(t.entry());
        }
        return n == 0 ? null : b.append(']').toString();
    }

    @Override
    @JsonIgnore
    public String typeName() {
        return TYPE;
    }

}
