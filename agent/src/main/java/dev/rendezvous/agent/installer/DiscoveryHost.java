package dev.rendezvous.agent.installer;

import dev.rendezvous.agent.step.CommandRunner;
import dev.rendezvous.agent.step.HostRoot;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/**
 * Whether this agent runs on a machine booted from the discovery image: its kernel command line carries the live
 * image's arguments ({@code coreos.liveiso=} from the ISO, {@code coreos.live.rootfs_url=} from PXE), so its root
 * file system is in memory and no disk holds the running system. Only then does the installer write a physical disk
 * and reboot the machine, as upstream's installer does; anywhere else (a developer's machine, a test, a swarm) it
 * writes file-backed and loop disks only and leaves the machine as it is.
 */
public record DiscoveryHost(boolean live, CommandRunner commands) {
  static final List<String> LIVE_ARGUMENTS = List.of("coreos.liveiso=", "coreos.live.rootfs_url=");

  /** Never a discovery host: what tests and dry runs use. */
  public static final DiscoveryHost NONE = new DiscoveryHost(false, null);

  public static DiscoveryHost detect(HostRoot root, CommandRunner commands) {
    String cmdline = root.read("/proc/cmdline").orElse("");
    boolean live = Arrays.stream(cmdline.split("\\s+"))
        .anyMatch(a -> LIVE_ARGUMENTS.stream().anyMatch(a::startsWith));
    return new DiscoveryHost(live, commands);
  }

  /**
   * Upstream's reboot: in one minute (the last logs go out meanwhile), from the host's own namespaces (the agent may
   * run in the discovery image's container).
   */
  void reboot() throws Exception {
    commands.run(List.of("nsenter", "-t", "1", "-m", "--", "shutdown", "-r", "+1",
        "Installation completed, server is going to reboot."), Duration.ofSeconds(30));
  }
}
