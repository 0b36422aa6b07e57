package dev.rendezvous.agent.installer;

import dev.rendezvous.agent.step.StepExecutor;
import dev.rendezvous.agent.step.StepOutcome;
import dev.rendezvous.agent.wire.Step;
import java.util.function.Function;

/**
 * The {@code install} step: as upstream's agent, it starts the installer detached and answers at once; the installer
 * reports its progress to the service itself. A request it cannot read is answered with a failed step.
 */
public final class InstallExecutor implements StepExecutor {
  private final Function<InstallRequest, java.util.concurrent.CompletableFuture<Void>> installer;

  public InstallExecutor(Function<InstallRequest, java.util.concurrent.CompletableFuture<Void>> installer) {
    this.installer = installer;
  }

  @Override
  public StepOutcome execute(Step step) {
    InstallRequest r;
    try {
      r = InstallRequest.parse(step.arg(0));
    } catch (IllegalArgumentException e) {
      return StepOutcome.failure(-1, e.getMessage());
    }
    installer.apply(r);
    return StepOutcome.ok("");
  }

  @Override
  public boolean nonBlocking() {
    return true;
  }
}
