package dev.rendezvous.agent.reclaim;

import dev.rendezvous.agent.executor.UpgradeAgentExecutor;
import dev.rendezvous.agent.step.CommandResult;
import dev.rendezvous.agent.step.CommandRunner;
import dev.rendezvous.agent.step.HostRoot;
import dev.rendezvous.agent.step.StepExecutor;
import dev.rendezvous.agent.step.StepOutcome;
import dev.rendezvous.agent.wire.Step;
import dev.rendezvous.agent.wire.StepModels;
import dev.rendezvous.agent.wire.WireJson;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * {@code download-boot-artifacts} (reclaim, first step), as upstream's agent: the discovery kernel and initrd into
 * the host's {@code /boot/discovery/}, and a boot entry that sorts first ({@code version 999}) booting them with the
 * rootfs URL, so that the next boot is into discovery. Each file is written beside its place and renamed into it: a
 * failed download leaves the host's boot as it was. Refused (exit 1, the service then waits for the user) where the
 * host is not an installed CoreOS ({@link ReclaimedHost#refusal()}).
 */
public final class DownloadBootArtifactsExecutor implements StepExecutor {
  /** Upstream's entry name and text: its title, a version above any ostree deployment's, its kernel arguments. */
  static final String ENTRY = "00-assisted-discovery.conf";
  static final String SUCCESS = "Successfully downloaded boot artifacts";

  private final HostRoot agentRoot;
  private final CommandRunner commands;
  private final UpgradeAgentExecutor.Fetch fetch;

  public DownloadBootArtifactsExecutor(HostRoot agentRoot, CommandRunner commands, UpgradeAgentExecutor.Fetch fetch) {
    this.agentRoot = agentRoot;
    this.commands = commands;
    this.fetch = fetch;
  }

  @Override
  public Duration timeout(Step step, Duration dflt) {
    return dflt.compareTo(Duration.ofMinutes(10)) > 0 ? dflt : Duration.ofMinutes(10); // an initrd is ~100 MB
  }

  @Override
  public StepOutcome execute(Step step) throws Exception {
    StepModels.DownloadBootArtifactsRequest req = request(step);
    ReclaimedHost host = ReclaimedHost.of(agentRoot, req.hostFsMountDir());
    Optional<String> refused = host.refusal();
    if (refused.isPresent()) {
      return StepOutcome.failure(1, "download-boot-artifacts: " + refused.get());
    }
    if (host.thisMachine()) {
      // CoreOS mounts /boot read-only; upstream's agent remounts it writable the same way
      CommandResult r = commands.run(List.of("mount", "-o", "remount,rw", "/boot"), Duration.ofSeconds(30));
      if (!r.ok()) {
        return StepOutcome.failure(1, "download-boot-artifacts: remounting /boot writable: " + r.stderr().strip());
      }
    }
    Files.createDirectories(host.artifacts());
    try {
      place(req.kernelUrl(), host.artifacts().resolve("vmlinuz"));
      place(req.initrdUrl(), host.artifacts().resolve("initrd"));
    } catch (Exception e) {
      return StepOutcome.failure(1, "download-boot-artifacts: " + e.getMessage());
    }
    Path entry = host.entries().resolve(ENTRY);
    Path part = entry.resolveSibling(ENTRY + ".part");
    Files.writeString(part, entry(req.rootfsUrl()), StandardCharsets.UTF_8);
    Files.move(part, entry, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    return StepOutcome.ok(SUCCESS);
  }

  /** The boot entry: upstream's text (x86_64/aarch64 form); paths through CoreOS's boot partition's boot -> . link. */
  static String entry(String rootfsUrl) {
    return "title Assisted Installer Discovery\n"
        + "version 999\n"
        + "options random.trust_cpu=on ignition.firstboot ignition.platform.id=metal 'coreos.live.rootfs_url="
        + rootfsUrl + "'\n"
        + "linux /boot/discovery/vmlinuz\n"
        + "initrd /boot/discovery/initrd";
  }

  private void place(String url, Path to) throws Exception {
    Path part = to.resolveSibling(to.getFileName() + ".part");
    try {
      fetch.download(url, part);
      if (Files.size(part) == 0) {
        throw new java.io.IOException(url + " answered an empty file");
      }
      Files.move(part, to, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (Exception e) {
      throw new Exception("fetching " + url.replaceAll("api_key=[^&]*", "api_key=***") + ": " + e.getMessage(), e);
    } finally {
      Files.deleteIfExists(part);
    }
  }

  public static StepModels.DownloadBootArtifactsRequest request(Step step) {
    if (step.arg(0) == null || step.arg(0).isBlank()) {
      throw new IllegalArgumentException("download-boot-artifacts: args[0] (the request) is missing");
    }
    StepModels.DownloadBootArtifactsRequest r = WireJson.read(step.arg(0), StepModels.DownloadBootArtifactsRequest.class);
    for (String[] f : new String[][] {{"kernel_url", r.kernelUrl()}, {"initrd_url", r.initrdUrl()},
        {"rootfs_url", r.rootfsUrl()}}) {
      if (f[1] == null || f[1].isBlank()) {
        throw new IllegalArgumentException("download-boot-artifacts: " + f[0] + " is missing");
      }
    }
    return r;
  }
}
