package dev.rendezvous.agent.executor;

import dev.rendezvous.agent.step.CommandResult;
import dev.rendezvous.agent.step.CommandRunner;
import dev.rendezvous.agent.step.StepExecutor;
import dev.rendezvous.agent.step.StepOutcome;
import dev.rendezvous.agent.wire.Step;
import java.time.Duration;
import java.util.List;

/**
 * {@code stop-installation}: upstream stops the installer container ({@code podman stop -i -t 5
 * assisted-installer}). This agent runs its installer in its own process, so it stops that one first; then, when
 * podman is there, an installer container as upstream's; without either there is nothing to stop and the step
 * succeeds saying so.
 */
public final class StopInstallationExecutor implements StepExecutor {
  private final CommandRunner commands;
  private final java.util.function.BooleanSupplier stopInProcess;

  public StopInstallationExecutor(CommandRunner commands) {
    this(commands, () -> false);
  }

  /** {@code stopInProcess} stops this agent's own installer, answering whether one was running. */
  public StopInstallationExecutor(CommandRunner commands, java.util.function.BooleanSupplier stopInProcess) {
    this.commands = commands;
    this.stopInProcess = stopInProcess;
  }

  @Override
  public StepOutcome execute(Step step) throws Exception {
    boolean stopped = stopInProcess.getAsBoolean();
    if (!commands.available("podman")) {
      if (stopped) {
        return new StepOutcome(0, "stopped the installer", "");
      }
      return new StepOutcome(0, "", "no installer container: podman is not installed");
    }
    CommandResult r = commands.run(List.of("podman", "stop", "-i", "-t", "5", "assisted-installer"), Duration.ofSeconds(30));
    return new StepOutcome(r.timedOut() ? StepOutcome.TIMED_OUT : r.exitCode(), r.stdout(), r.stderr());
  }
}
