package dev.rendezvous.gateway;

import java.util.function.DoubleSupplier;

/**
 * Back-pressure toward the agents: while the service is behind (its backlog of unhandled events past a bound), the
 * {@code next_instruction_seconds} the gateway hands out is stretched by a factor, so agents poll and re-run their
 * steps less often until it has caught up. Nothing is refused or dropped: only the cadence changes.
 */
final class Pacing {
    private volatile DoubleSupplier factor = () -> 1.0;

    void factor(DoubleSupplier f) {
        this.factor = f;
    }

    double factor() {
        double f = factor.getAsDouble();
        return Double.isFinite(f) && f > 1 ? f : 1.0;
    }

    /** The interval to hand out: stretched under pressure; "poll again at once" (0) becomes a pause of its own. */
    int stretch(int seconds) {
        double f = factor();
        if (f <= 1) {
            return seconds;
        }
        return seconds == 0 ? (int) Math.ceil(f) : (int) Math.min(Integer.MAX_VALUE, Math.ceil(seconds * f));
    }

    AgentWire.Steps paced(AgentWire.Steps s) {
        int stretched = stretch(s.nextInstructionSeconds());
        return stretched == s.nextInstructionSeconds() ? s : new AgentWire.Steps(stretched, s.postStepAction(), s.instructions());
    }
}
