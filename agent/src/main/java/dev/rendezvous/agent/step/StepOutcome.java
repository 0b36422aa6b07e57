package dev.rendezvous.agent.step;

import dev.rendezvous.agent.wire.Step;
import dev.rendezvous.agent.wire.StepReply;

/**
 * What an executor produced: exit code, output (the step's JSON, as upstream's stdout) and error text.
 * Upstream conventions: -1 for "the agent could not do the step", 124 for a time limit.
 */
public record StepOutcome(int exitCode, String output, String error) {
  public static final int AGENT_ERROR = -1;
  public static final int TIMED_OUT = 124;

  public StepOutcome {
    output = output == null ? "" : output;
    error = error == null ? "" : error;
  }

  public static StepOutcome ok(String output) {
    return new StepOutcome(0, output, "");
  }

  public static StepOutcome failure(int exitCode, String error) {
    return new StepOutcome(exitCode, "", error);
  }

  public StepReply toReply(Step step) {
    return new StepReply(step.stepType(), step.stepId(), exitCode, output, error);
  }
}
