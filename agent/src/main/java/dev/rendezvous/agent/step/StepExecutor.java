package dev.rendezvous.agent.step;

import dev.rendezvous.agent.wire.Step;
import java.time.Duration;

/** Runs one step type. Real executors block (commands, files) and run on the step worker pool. */
public interface StepExecutor {
  StepOutcome execute(Step step) throws Exception;

  /** True for executors that never block (dry-run canned answers): they run inline on the event loop. */
  default boolean nonBlocking() {
    return false;
  }

  /** The time limit for this step; {@code dflt} is the agent's --step-timeout-seconds. */
  default Duration timeout(Step step, Duration dflt) {
    return dflt;
  }
}
