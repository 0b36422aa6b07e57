package dev.rendezvous.agent.reclaim;

import dev.rendezvous.agent.step.HostRoot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The installed host being reclaimed, as the agent sees it: its file system, at {@code host_fs_mount_dir} when the
 * agent runs in a container with the host's / mounted there (upstream's reclaim pod), else the agent's own root (ours
 * runs on the host). Its boot entries are changed only on an installed CoreOS (an ostree deployment with BLS entries):
 * never on a developer's machine or a test's, whatever the service asks.
 */
public record ReclaimedHost(Path root, boolean thisMachine) {

  public static ReclaimedHost of(HostRoot agentRoot, String hostFsMountDir) {
    Path mounted = hostFsMountDir == null || hostFsMountDir.isBlank() ? null : agentRoot.path(hostFsMountDir);
    Path root = mounted != null && Files.isDirectory(mounted) ? mounted : agentRoot.root();
    return new ReclaimedHost(root, root.toAbsolutePath().normalize().equals(Path.of("/")));
  }

  /** Why this agent will not touch the host's boot entries; empty when it may. */
  public Optional<String> refusal() {
    boolean ostree = Files.exists(root.resolve("run/ostree-booted")) || Files.isDirectory(root.resolve("ostree"));
    if (!ostree) {
      return Optional.of(root + " is not an installed CoreOS (no run/ostree-booted, no ostree/): its boot entries are"
          + " left alone");
    }
    if (!Files.isDirectory(entries())) {
      return Optional.of(root + " has no boot/loader/entries (no BLS boot entries to add the discovery image to)");
    }
    return Optional.empty();
  }

  /** Where the discovery kernel and initrd go (upstream's /boot/discovery). */
  public Path artifacts() {
    return root.resolve("boot/discovery");
  }

  public Path entries() {
    return root.resolve("boot/loader/entries");
  }
}
