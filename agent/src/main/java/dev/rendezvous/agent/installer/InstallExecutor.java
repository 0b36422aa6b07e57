package dev.rendezvous.agent.installer;

import dev.rendezvous.agent.step.StepExecutor;
import dev.rendezvous.agent.step.StepOutcome;
import dev.rendezvous.agent.wire.Step;
import java.util.function.Function;

/**
 * The {@code install} step: as upstream's agent, it starts the installer detached and answers at once; the installer
 * reports its progress to the service itself. A request it cannot read is answered with a failed step. While an
 * installer runs, another install step (the service pushes a changed plan again) starts nothing: it is answered as
 * upstream's podman answers a second container of the same name (exit 125, "container name assisted-installer is
 * already in use"), which the service takes for "already installing". Two installers writing one disk at once would
 * interleave two file systems.
 */
public final class InstallExecutor implements StepExecutor {
  static final int ALREADY_RUNNING = 125;
  private final Function<InstallRequest, java.util.concurrent.CompletableFuture<Void>> installer;
  private final java.util.concurrent.atomic.AtomicReference<java.util.concurrent.CompletableFuture<Void>> running =
      new java.util.concurrent.atomic.AtomicReference<>();

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
    synchronized (running) {
      java.util.concurrent.CompletableFuture<Void> current = running.get();
      if (current != null && !current.isDone()) {
        return new StepOutcome(ALREADY_RUNNING, "", "Error: creating container storage: the container name"
            + " \"assisted-installer\" is already in use: container name assisted-installer is already in use");
      }
      running.set(installer.apply(r));
    }
    return StepOutcome.ok("");
  }

  @Override
  public boolean nonBlocking() {
    return true;
  }
}
