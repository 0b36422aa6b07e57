package dev.rendezvous.agent.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.agent.FixtureCommands;
import dev.rendezvous.agent.Fixtures;
import dev.rendezvous.agent.step.HostRoot;
import dev.rendezvous.agent.step.StepOutcome;
import dev.rendezvous.agent.wire.Step;
import dev.rendezvous.agent.wire.StepModels;
import dev.rendezvous.agent.wire.WireJson;
import java.io.BufferedInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.zip.GZIPInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** disk speed (real fdatasync on a file), domain resolution (real resolver), logs bundle. */
class HostResourceExecutorsTest {
  @TempDir
  Path tmp;

  @Test
  void diskSpeedOnAFileBackedDisk() throws Exception {
    Path disk = Files.write(tmp.resolve("disk.img"), new byte[1 << 20]);
    StepOutcome out = new DiskSpeedCheckExecutor(HostRoot.SYSTEM, 256 * 1024)
        .execute(new Step("installation-disk-speed-check", "d-1", List.of("{\"path\":\"" + disk + "\"}", "30.00")));
    assertEquals(0, out.exitCode(), out.error());
    StepModels.DiskSpeedResponse r = WireJson.read(out.output(), StepModels.DiskSpeedResponse.class);
    assertEquals(disk.toString(), r.path());
    assertTrue(r.ioSyncDuration() >= 0 && r.ioSyncDuration() < 10_000, "p99 ms: " + r.ioSyncDuration());
    byte[] written = Files.readAllBytes(disk);
    assertEquals(0x5a, written[0], "written from offset 0 as fio does");
    assertEquals(0, written[256 * 1024 + 2300], "no further than the requested size (rounded to a block)");
  }

  @Test
  void diskSpeedMeasuresEveryBlock() throws Exception {
    Path disk = Files.write(tmp.resolve("d.img"), new byte[0]);
    long[] lat = DiskSpeedCheckExecutor.measure(disk, 10 * 2300 + 1, System.nanoTime() + 10_000_000_000L);
    assertEquals(11, lat.length);
    assertTrue(java.util.Arrays.stream(lat).allMatch(l -> l > 0));
    assertEquals(11 * 2300, Files.size(disk));
  }

  @Test
  void diskSpeedRefusesMissingAndMountedDevices() throws Exception {
    StepOutcome missing = new DiskSpeedCheckExecutor(HostRoot.SYSTEM, 4096)
        .execute(new Step("installation-disk-speed-check", "d-2", List.of("{\"path\":\"/dev/nonexistent-disk\"}")));
    assertEquals(-1, missing.exitCode());
    String mounts = Fixtures.root(Fixtures.VM).readRaw("/proc/mounts").orElseThrow();
    assertEquals("/dev/vda is mounted on /", MountGuard.mountedUse(mounts, "vda", List.of(), List.of()));
    assertEquals("/dev/sdb1 is mounted on /var/lib/containers",
        MountGuard.mountedUse("/dev/sdb1 /var/lib/containers xfs rw 0 0\n", "sdb", List.of("sdb1", "queue"), List.of()));
    assertEquals("/dev/sdb is held by dm-0", MountGuard.mountedUse("", "sdb", List.of(), List.of("dm-0")));
    assertNull(MountGuard.mountedUse(mounts, "vdb", List.of(), List.of()));
  }

  @Test
  void percentileIsNearestRank() {
    long[] v = new long[100];
    for (int i = 0; i < 100; i++) {
      v[i] = 100 - i;
    }
    assertEquals(99, DiskSpeedCheckExecutor.percentile(v, 99.0));
    assertEquals(100, DiskSpeedCheckExecutor.percentile(v, 100.0));
  }

  @Test
  void domainResolutionUsesTheSystemResolver() throws Exception {
    StepOutcome out = new DomainResolutionExecutor().execute(new Step("domain-resolution", "r-1",
        List.of("{\"domains\":[{\"domain_name\":\"localhost\"},{\"domain_name\":\"api.nonexistent.invalid\"}]}")));
    assertEquals(0, out.exitCode());
    var res = WireJson.read(out.output(), StepModels.DomainResolutionResponse.class).resolutions();
    assertEquals("localhost", res.get(0).domainName());
    assertTrue(res.get(0).ipv4Addresses().contains("127.0.0.1"), res.get(0).toString());
    assertEquals(new StepModels.DomainResolution("api.nonexistent.invalid", List.of(), List.of(), List.of()), res.get(1),
        "NXDOMAIN is not an error");
  }

  @Test
  void logsBundleIsBuiltAndUploaded() throws Exception {
    Path agentLog = Files.writeString(tmp.resolve("agent.log"), "2026-11-22 INFO registered\n");
    List<String> progress = new ArrayList<>();
    Map<String, String> entries = new HashMap<>();
    String[] target = new String[3];
    LogsUploader uploader = new LogsUploader() {
      @Override
      public void progress(String infraEnvId, String hostId, String state) {
        progress.add(state);
      }

      @Override
      public void upload(String clusterId, String infraEnvId, String hostId, Path bundle) throws Exception {
        target[0] = clusterId;
        target[1] = infraEnvId;
        target[2] = hostId;
        try (TarArchiveInputStream tar = new TarArchiveInputStream(new GZIPInputStream(
            new BufferedInputStream(Files.newInputStream(bundle))))) {
          TarArchiveEntry e;
          while ((e = tar.getNextEntry()) != null) {
            entries.put(e.getName(), new String(tar.readAllBytes(), StandardCharsets.UTF_8));
          }
        }
      }
    };
    FixtureCommands commands = new FixtureCommands().onFixture(List.of("lsblk"), Fixtures.VM, "lsblk.json");
    StepOutcome out = new LogsGatherExecutor(Fixtures.root(Fixtures.VM), commands, Optional.of(agentLog), uploader)
        .execute(new Step("logs-gather", "l-1", List.of("{\"cluster_id\":\"c1\",\"infra_env_id\":\"ie1\",\"host_id\":\"h1\","
            + "\"bootstrap\":false,\"installer_gather\":true}")));
    assertEquals(0, out.exitCode(), out.error());
    assertEquals(List.of("collecting", "completed"), progress);
    assertEquals(List.of("c1", "ie1", "h1"), List.of(target));
    assertEquals("2026-11-22 INFO registered\n", entries.get("agent.logs"));
    assertTrue(entries.get("mount.logs").contains("/dev/vda / ext4"));
    assertTrue(entries.get("report.logs").contains("journalctl is not installed"));
  }
}
