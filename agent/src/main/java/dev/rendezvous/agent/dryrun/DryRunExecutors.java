package dev.rendezvous.agent.dryrun;

import dev.rendezvous.agent.executor.LogsUploader;
import dev.rendezvous.agent.netcheck.Ipv4Network;
import dev.rendezvous.agent.step.StepExecutor;
import dev.rendezvous.agent.step.StepOutcome;
import dev.rendezvous.agent.wire.ConnectivityCheck;
import dev.rendezvous.agent.wire.Step;
import dev.rendezvous.agent.wire.StepModels;
import dev.rendezvous.agent.wire.StepTypes;
import dev.rendezvous.agent.wire.WireJson;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPOutputStream;

/**
 * Canned answers for every step a discovery / install flow sends, for load tests (swarms of agents in
 * one JVM). Simulated, not measured: connectivity to every requested address succeeds (0 % loss,
 * 0.2-0.6 ms, a new figure per peer and per check as a real ping gives, L2 answered by the requested MAC), every requested NTP source is synced, every domain
 * resolves (except the wildcard probe, as on a correctly configured DNS), the disk is fast (2 ms), every image pulls. Non-blocking except logs-gather, which uploads a
 * small real gzip file through the gateway's logs API.
 */
public final class DryRunExecutors {
  private DryRunExecutors() {}

  public static Map<String, StepExecutor> create(DryRunHost host, LogsUploader uploader) {
    Map<String, StepExecutor> m = new HashMap<>();
    m.put(StepTypes.INVENTORY, canned(s -> StepOutcome.ok(host.inventoryJson())));
    m.put(StepTypes.CONNECTIVITY_CHECK, canned(s -> connectivity(host, s)));
    m.put(StepTypes.FREE_NETWORK_ADDRESSES, canned(s -> freeAddresses(host, s)));
    m.put(StepTypes.NTP_SYNCHRONIZER, canned(DryRunExecutors::ntp));
    m.put(StepTypes.DOMAIN_RESOLUTION, canned(s -> domains(host, s)));
    m.put(StepTypes.INSTALLATION_DISK_SPEED_CHECK, canned(s -> {
      String path = s.arg(0) == null ? "/dev/sda" : WireJson.read(s.arg(0), StepModels.DiskSpeedRequest.class).path();
      return StepOutcome.ok(WireJson.write(new StepModels.DiskSpeedResponse(2, path)));
    }));
    m.put(StepTypes.CONTAINER_IMAGE_AVAILABILITY, canned(DryRunExecutors::images));
    m.put(StepTypes.STOP_INSTALLATION, canned(s -> StepOutcome.ok("")));
    m.put(StepTypes.INSTALL, canned(s -> StepOutcome.ok("")));
    m.put(StepTypes.TANG_CONNECTIVITY_CHECK, canned(s -> StepOutcome.ok("{\"is_success\":true,\"tang_server_response\":[]}")));
    m.put(StepTypes.API_VIP_CONNECTIVITY_CHECK, canned(s -> StepOutcome.ok("{\"is_success\":true}")));
    // as upstream's dry-run agent: every VIP free (a simulated network has no other machine to hold one)
    m.put(StepTypes.VERIFY_VIPS, canned(DryRunExecutors::verifyVips));
    // a simulated host has no jar to replace: it says it did, and its agent starts again as that version
    m.put(StepTypes.UPGRADE_AGENT, canned(s -> StepOutcome.ok(dev.rendezvous.agent.wire.WireJson.write(
        new dev.rendezvous.agent.wire.StepModels.UpgradeAgentResponse(
            dev.rendezvous.agent.executor.UpgradeAgentExecutor.requested(s),
            dev.rendezvous.agent.wire.StepModels.UpgradeAgentResponse.SUCCESS)))));
    // reclaim's reboot: the service then tells the agent to exit; it starts again as a host booted into discovery
    // (download-boot-artifacts: DryRunReclaim, which fetches through the gateway)
    m.put(StepTypes.REBOOT_FOR_RECLAIM, canned(s -> StepOutcome.ok("rebooting into the discovery image")));
    m.put(StepTypes.LOGS_GATHER, new DryRunLogs(uploader));
    return m;
  }

  private interface Canned {
    StepOutcome answer(Step s);
  }

  private static StepExecutor canned(Canned c) {
    return new StepExecutor() {
      @Override
      public StepOutcome execute(Step step) {
        return c.answer(step);
      }

      @Override
      public boolean nonBlocking() {
        return true;
      }
    };
  }

  static StepOutcome verifyVips(Step step) {
    List<StepModels.VerifyVip> vips = WireJson.read(step.arg(0), WireJson.listOf(StepModels.VerifyVip.class));
    List<StepModels.VerifiedVip> out = new ArrayList<>();
    for (StepModels.VerifyVip v : vips) {
      out.add(new StepModels.VerifiedVip(v.vip(), v.vipType(), "succeeded"));
    }
    return StepOutcome.ok(WireJson.write(out));
  }

  static StepOutcome connectivity(DryRunHost host, Step step) {
    List<ConnectivityCheck.Host> hosts = WireJson.read(step.arg(0), WireJson.listOf(ConnectivityCheck.Host.class));
    List<ConnectivityCheck.RemoteHost> out = new ArrayList<>();
    for (ConnectivityCheck.Host h : hosts) {
      List<ConnectivityCheck.L3Connectivity> l3 = new ArrayList<>();
      List<ConnectivityCheck.L2Connectivity> l2 = new ArrayList<>();
      for (ConnectivityCheck.Nic nic : h.nics()) {
        for (String a : nic.ipAddresses()) {
          String ip = a.contains("/") ? a.substring(0, a.indexOf('/')) : a;
          double rttMs = (200 + java.util.concurrent.ThreadLocalRandom.current().nextInt(400)) / 1000.0;
          l3.add(new ConnectivityCheck.L3Connectivity(host.nic(), ip, true, rttMs, 0.0));
          if (Ipv4Network.isIpv4(ip) && host.network().contains(ip) && nic.mac() != null) {
            l2.add(new ConnectivityCheck.L2Connectivity(host.nic(), host.ip(), ip, nic.mac().toLowerCase(), true));
          }
        }
      }
      out.add(new ConnectivityCheck.RemoteHost(h.hostId(), l2, l3, List.of()));
    }
    return StepOutcome.ok(WireJson.write(new ConnectivityCheck.Report(out)));
  }

  /** Every address except .0-.9 (gateway, VIPs), this host's own and the broadcast one. */
  static StepOutcome freeAddresses(DryRunHost host, Step step) {
    List<String> cidrs = WireJson.read(step.arg(0), WireJson.listOf(String.class));
    List<StepModels.FreeNetworkAddresses> out = new ArrayList<>();
    for (String c : cidrs) {
      Ipv4Network n = Ipv4Network.parse(c);
      List<String> free = new ArrayList<>();
      long size = Math.min(n.size(), 8000);
      for (long i = 10; i < size - 1; i++) {
        String ip = Ipv4Network.toDotted((int) (n.network() + i));
        if (!ip.equals(host.ip())) {
          free.add(ip);
        }
      }
      out.add(new StepModels.FreeNetworkAddresses(n.toString(), free));
    }
    return StepOutcome.ok(WireJson.write(out));
  }

  static StepOutcome ntp(Step step) {
    String sources = step.arg(0) == null ? "" : WireJson.read(step.arg(0), StepModels.NtpRequest.class).ntpSource();
    List<StepModels.NtpSource> out = new ArrayList<>();
    for (String s : (sources == null ? "" : sources).split(",")) {
      if (!s.isBlank()) {
        out.add(new StepModels.NtpSource(s.trim(), out.isEmpty() ? "synced" : "combined"));
      }
    }
    if (out.isEmpty()) {
      out.add(new StepModels.NtpSource("ntp.dry-run.invalid", "synced"));
    }
    return StepOutcome.ok(WireJson.write(new StepModels.NtpResponse(out)));
  }

  /** Each name resolves to an address of the host's network chosen by the name's hash (.2-.9). */
  static StepOutcome domains(DryRunHost host, Step step) {
    StepModels.DomainResolutionRequest req = WireJson.read(step.arg(0), StepModels.DomainResolutionRequest.class);
    List<StepModels.DomainResolution> out = new ArrayList<>();
    for (StepModels.DomainName d : req.domains() == null ? List.<StepModels.DomainName>of() : req.domains()) {
      if (d.domainName().startsWith("validateNoWildcardDNS.")) {
        // the wildcard probe: a correct DNS has no wildcard record, so it does not resolve
        out.add(new StepModels.DomainResolution(d.domainName(), List.of(), List.of(), List.of()));
        continue;
      }
      String ip = Ipv4Network.toDotted(host.network().network() + 2 + Math.floorMod(d.domainName().hashCode(), 8));
      out.add(new StepModels.DomainResolution(d.domainName(), List.of(ip), List.of(), List.of()));
    }
    return StepOutcome.ok(WireJson.write(new StepModels.DomainResolutionResponse(out)));
  }

  static StepOutcome images(Step step) {
    StepModels.ImageAvailabilityRequest req = WireJson.read(step.arg(0), StepModels.ImageAvailabilityRequest.class);
    List<StepModels.ImageAvailability> out = new ArrayList<>();
    for (String image : req.images() == null ? List.<String>of() : req.images()) {
      out.add(new StepModels.ImageAvailability(image, "success", 500_000_000L, 5.0, 100.0));
    }
    return StepOutcome.ok(WireJson.write(new StepModels.ImageAvailabilityResponse(out)));
  }

  /** Uploads a small real gzip file (so the upload path is exercised); runs on the step pool. */
  private record DryRunLogs(LogsUploader uploader) implements StepExecutor {
    @Override
    public StepOutcome execute(Step step) throws Exception {
      StepModels.LogsGatherRequest req = WireJson.read(step.arg(0), StepModels.LogsGatherRequest.class);
      Path bundle = Files.createTempFile("rdv-dry-logs", ".tar.gz");
      try {
        try (GZIPOutputStream gz = new GZIPOutputStream(Files.newOutputStream(bundle))) {
          gz.write(("dry-run agent " + req.hostId() + ": no real logs\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        uploader.upload(req.clusterId(), req.infraEnvId(), req.hostId(), bundle);
        return StepOutcome.ok("");
      } finally {
        Files.deleteIfExists(bundle);
      }
    }
  }
}
