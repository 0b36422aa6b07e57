package dev.rendezvous.agent.reclaim;

import dev.rendezvous.agent.step.CommandResult;
import dev.rendezvous.agent.step.CommandRunner;
import dev.rendezvous.agent.step.HostRoot;
import dev.rendezvous.agent.step.StepExecutor;
import dev.rendezvous.agent.step.StepOutcome;
import dev.rendezvous.agent.wire.Step;
import dev.rendezvous.agent.wire.StepModels;
import dev.rendezvous.agent.wire.WireJson;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * {@code reboot-for-reclaim} (reclaim, last step; the service then tells the agent to exit): the host reboots into the
 * discovery entry the previous step added, in a minute so that this answer goes out first, from the host's own
 * namespaces. Only this machine is rebooted, and only when it is an installed CoreOS; a host file system that is
 * not this machine's (a test's copy) is left as it is, and the answer says so.
 */
public final class RebootForReclaimExecutor implements StepExecutor {
  private final HostRoot agentRoot;
  private final CommandRunner commands;

  public RebootForReclaimExecutor(HostRoot agentRoot, CommandRunner commands) {
    this.agentRoot = agentRoot;
    this.commands = commands;
  }

  @Override
  public StepOutcome execute(Step step) throws Exception {
    String mountDir = step.arg(0) == null || step.arg(0).isBlank() ? null
        : WireJson.read(step.arg(0), StepModels.RebootForReclaimRequest.class).hostFsMountDir();
    ReclaimedHost host = ReclaimedHost.of(agentRoot, mountDir);
    Optional<String> refused = host.refusal();
    if (refused.isPresent()) {
      return StepOutcome.failure(1, "reboot-for-reclaim: " + refused.get());
    }
    if (!host.thisMachine()) {
      return StepOutcome.ok("the host file system at " + host.root() + " is not this machine's: not rebooting");
    }
    CommandResult r = commands.run(List.of("nsenter", "-t", "1", "-m", "--", "shutdown", "-r", "+1",
        "Rebooting into the discovery image: this host is being reclaimed"), Duration.ofSeconds(30));
    if (!r.ok()) {
      return StepOutcome.failure(1, "reboot-for-reclaim: shutdown -r: " + r.stderr().strip());
    }
    return StepOutcome.ok("rebooting into the discovery image in a minute");
  }
}
