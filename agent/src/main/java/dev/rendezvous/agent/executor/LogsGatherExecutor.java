package dev.rendezvous.agent.executor;

import dev.rendezvous.agent.step.CommandResult;
import dev.rendezvous.agent.step.CommandRunner;
import dev.rendezvous.agent.step.HostRoot;
import dev.rendezvous.agent.step.StepExecutor;
import dev.rendezvous.agent.step.StepOutcome;
import dev.rendezvous.agent.wire.Step;
import dev.rendezvous.agent.wire.StepModels;
import dev.rendezvous.agent.wire.WireJson;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.zip.GZIPOutputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;

/**
 * {@code logs-gather}: args[0] = {cluster_id, infra_env_id, host_id, bootstrap, installer_gather, master_ips}.
 * Builds {@code logs_host_<host_id>.tar.gz} with: {@code agent.logs} (the agent's --log-file), {@code
 * journal.logs} ({@code journalctl} of this boot when a journal exists), {@code mount.logs} (lsblk,
 * /proc/mounts), {@code report.logs} (what could not be collected); reports logs progress
 * collecting → completed and uploads the bundle as multipart {@code upfile}, as upstream's logs_sender.
 */
public final class LogsGatherExecutor implements StepExecutor {
  private final HostRoot root;
  private final CommandRunner commands;
  private final Optional<Path> agentLog;
  private final LogsUploader uploader;

  public LogsGatherExecutor(HostRoot root, CommandRunner commands, Optional<Path> agentLog, LogsUploader uploader) {
    this.root = root;
    this.commands = commands;
    this.agentLog = agentLog;
    this.uploader = uploader;
  }

  @Override
  public Duration timeout(Step step, Duration dflt) {
    return Duration.ofHours(1); // upstream: timeout 1h
  }

  @Override
  public StepOutcome execute(Step step) throws Exception {
    if (step.arg(0) == null) {
      throw new IllegalArgumentException("logs-gather: args[0] (logs request JSON) is missing");
    }
    StepModels.LogsGatherRequest req = WireJson.read(step.arg(0), StepModels.LogsGatherRequest.class);
    if (req.clusterId() == null || req.hostId() == null || req.infraEnvId() == null) {
      throw new IllegalArgumentException("logs-gather: cluster_id, infra_env_id and host_id are required");
    }
    bestEffortProgress(req, "collecting");
    Path bundle = Files.createTempFile("logs_host_" + req.hostId() + "_", ".tar.gz");
    try {
      writeBundle(bundle);
      uploader.upload(req.clusterId(), req.infraEnvId(), req.hostId(), bundle);
      bestEffortProgress(req, "completed");
      return StepOutcome.ok("");
    } finally {
      Files.deleteIfExists(bundle);
    }
  }

  private void bestEffortProgress(StepModels.LogsGatherRequest req, String state) {
    try {
      uploader.progress(req.infraEnvId(), req.hostId(), state);
    } catch (Exception e) {
      // progress is informative; the upload is what counts
    }
  }

  void writeBundle(Path bundle) throws IOException, InterruptedException {
    List<String> report = new ArrayList<>();
    try (OutputStream file = Files.newOutputStream(bundle);
        TarArchiveOutputStream tar = new TarArchiveOutputStream(new GZIPOutputStream(file))) {
      tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
      if (agentLog.isPresent() && Files.isReadable(agentLog.get())) {
        add(tar, "agent.logs", Files.readAllBytes(agentLog.get()));
      } else {
        report.add("agent.logs: no agent log file (start the agent with --log-file)");
      }
      if (commands.available("journalctl")) {
        CommandResult j = commands.run(List.of("journalctl", "-b", "--no-pager", "-o", "short-iso", "-n", "50000"),
            Duration.ofMinutes(2));
        if (j.ok() && !j.stdout().isBlank()) {
          add(tar, "journal.logs", j.stdout().getBytes(StandardCharsets.UTF_8));
        } else {
          report.add("journal.logs: journalctl: " + j.failureText());
        }
      } else {
        report.add("journal.logs: journalctl is not installed");
      }
      StringBuilder mounts = new StringBuilder();
      if (commands.available("lsblk")) {
        mounts.append(commands.run(List.of("lsblk", "-o", "NAME,SIZE,TYPE,FSTYPE,MOUNTPOINTS"), Duration.ofSeconds(30))
            .stdout());
      }
      mounts.append("\n/proc/mounts:\n").append(root.readRaw("/proc/mounts").orElse("(unreadable)\n"));
      add(tar, "mount.logs", mounts.toString().getBytes(StandardCharsets.UTF_8));
      add(tar, "report.logs", (String.join("\n", report) + "\n").getBytes(StandardCharsets.UTF_8));
      tar.finish();
    }
  }

  private static void add(TarArchiveOutputStream tar, String name, byte[] data) throws IOException {
    TarArchiveEntry e = new TarArchiveEntry(name);
    e.setSize(data.length);
    e.setModTime(System.currentTimeMillis());
    tar.putArchiveEntry(e);
    tar.write(data);
    tar.closeArchiveEntry();
  }
}
