package dev.rendezvous.agent.step;

import dev.rendezvous.agent.AgentVersion;
import dev.rendezvous.agent.wire.Step;

/** Answers step types this agent does not implement: exit -1 and a reason, as upstream does. */
public final class UnsupportedStepExecutor implements StepExecutor {
  @Override
  public StepOutcome execute(Step step) {
    return StepOutcome.failure(StepOutcome.AGENT_ERROR,
        "step type '" + step.stepType() + "' is not supported by rendezvous-agent " + AgentVersion.VERSION);
  }

  @Override
  public boolean nonBlocking() {
    return true;
  }
}
