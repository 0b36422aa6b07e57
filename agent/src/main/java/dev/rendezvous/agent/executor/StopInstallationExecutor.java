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
 * assisted-installer}). This agent does the same when podman is there; without podman no installer
 * container can be running, so there is nothing to stop and the step succeeds saying so.
 */
public final class StopInstallationExecutor implements StepExecutor {
  private final CommandRunner commands;

  public StopInstallationExecutor(CommandRunner commands) {
    this.commands = commands;
  }

  @Override
  public StepOutcome execute(Step step) throws Exception {
    if (!commands.available("podman")) {
      return new StepOutcome(0, "", "no installer container: podman is not installed");
    }
    CommandResult r = commands.run(List.of("podman", "stop", "-i", "-t", "5", "assisted-installer"), Duration.ofSeconds(30));
    return new StepOutcome(r.timedOut() ? StepOutcome.TIMED_OUT : r.exitCode(), r.stdout(), r.stderr());
  }
}
