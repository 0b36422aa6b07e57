package dev.rendezvous.agent.dryrun;

import dev.rendezvous.agent.executor.UpgradeAgentExecutor;
import dev.rendezvous.agent.reclaim.DownloadBootArtifactsExecutor;
import dev.rendezvous.agent.step.CommandResult;
import dev.rendezvous.agent.step.CommandRunner;
import dev.rendezvous.agent.step.HostRoot;
import dev.rendezvous.agent.step.StepExecutor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * download-boot-artifacts on a simulated host: the real executor on a throwaway file tree shaped as an installed
 * CoreOS, so the discovery kernel and initrd the service signed for the host are fetched for real (a wrong URL or
 * credential fails the reclaim as it would on a machine). The tree goes with the simulated reboot that follows.
 */
public final class DryRunReclaim {
  private DryRunReclaim() {}

  public static StepExecutor downloadBootArtifacts(UpgradeAgentExecutor.Fetch fetch) {
    return step -> {
      Path root = Files.createTempDirectory("rdv-dry-run-host-");
      try {
        Files.createDirectories(root.resolve("run"));
        Files.writeString(root.resolve("run/ostree-booted"), "");
        Files.createDirectories(root.resolve("boot/loader/entries"));
        return new DownloadBootArtifactsExecutor(new HostRoot(root), NO_COMMANDS, fetch).execute(step);
      } finally {
        dev.rendezvous.agent.installer.ImageWriter.deleteTree(root);
      }
    };
  }

  /** Never asked: the simulated host's tree is not this machine's, so nothing is remounted. */
  private static final CommandRunner NO_COMMANDS = new CommandRunner() {
    @Override
    public CommandResult run(List<String> command, Duration timeout) throws IOException {
      throw new IOException("a simulated host runs no command: " + command);
    }

    @Override
    public boolean available(String program) {
      return false;
    }
  };
}
