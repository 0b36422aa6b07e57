package dev.rendezvous.service.brain;

import dev.rendezvous.service.domain.Cidr;
import dev.rendezvous.service.domain.DomainConfig;
import dev.rendezvous.service.domain.EventSeverity;
import dev.rendezvous.service.domain.cluster.ClusterContext;
import dev.rendezvous.service.domain.cluster.DhcpVips;
import dev.rendezvous.service.domain.host.ConnectivityReport;
import dev.rendezvous.service.domain.host.DiskEligibility;
import dev.rendezvous.service.domain.host.HostEvent;
import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.host.HostStateMachine;
import dev.rendezvous.service.domain.host.Inventory;
import dev.rendezvous.service.domain.planning.InvalidStepOutputException;
import dev.rendezvous.service.domain.planning.StepOutputs;
import dev.rendezvous.service.domain.planning.StepType;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What each step type's output changes on its host (upstream's reply routing): the inventory (and the installation disk
 * it picks), the connectivity report, NTP sources, domain resolutions, VIP and Tang reachability, image availability,
 * disk speed, free addresses (and whether the cluster's VIPs are among them), the VIPs' verification; an install
 * command that failed moves the host. Outputs the domain reads are parsed strictly ({@link InvalidStepOutputException}
 * names the field). No I/O.
 */
final class StepOutputStore {
  private final DomainConfig config;
  private final HostStateMachine hostMachine;

  StepOutputStore(DomainConfig config, HostStateMachine hostMachine) {
    this.config = config;
    this.hostMachine = hostMachine;
  }

  /**
   * Stores one reply's output; true when other hosts' validations depend on it (inventory, connectivity).
   * {@code parsed}: the output parsed already (an inventory or connectivity report), or null.
   */
  boolean store(Work w, HostSnapshot h, StepType type, int exitCode, String output, String error, Object parsed) {
    if (type == null) {
      return false;
    }
    if (exitCode != 0 && type == StepType.INSTALL) {
      if (exitCode == 125 && error != null && error.contains("container name assisted-installer is already in use")) {
        return false; // the installer is already running: not a failure
      }
      String reason = "installation command failed" + (error == null || error.isBlank() ? "" : ": " + error.strip());
      w.apply(h.id(), hostMachine.apply(h, w.cluster(), new HostEvent.InstallationFailed(reason), w.now, w.seen));
      return false;
    }
    if (type == StepType.UPGRADE_AGENT) {
      agentUpgraded(w, h, exitCode, output, error);
      return false;
    }
    if (type == StepType.DOWNLOAD_BOOT_ARTIFACTS) {
      // the discovery image is in the host's boot entries: it reboots into it (or waits for the user if not)
      HostEvent e = exitCode == 0 ? new HostEvent.RebootingForReclaim() : new HostEvent.ReclaimFailed();
      var t = hostMachine.apply(h, w.cluster(), e, w.now, w.seen);
      w.apply(h.id(), t);
      if (exitCode != 0 && !t.rejected()) {
        w.event(BrainRules.DomainEventFactory.host(h, "reclaim_failed", EventSeverity.ERROR, "Host "
            + h.nameForMessages() + ": the discovery image could not be set up for its reboot"
            + (error == null || error.isBlank() ? "" : ": " + error.strip())));
      }
      return false;
    }
    boolean processedOnFailure = type == StepType.CONTAINER_IMAGE_AVAILABILITY || type == StepType.INSTALLATION_DISK_SPEED_CHECK
        || type == StepType.TANG_CONNECTIVITY_CHECK;
    if (exitCode != 0 && !processedOnFailure) {
      return false;
    }
    HostSnapshot.Builder b = h.toBuilder();
    switch (type) {
      case INVENTORY -> {
        Inventory read = parsed instanceof Inventory i ? i : StepOutputs.inventory(output);
        // the same inventory again (an idle host's periodic one) keeps the one held: nothing it feeds moves
        boolean same = read.equals(h.inventory());
        Inventory inv = same ? h.inventory() : read;
        b.inventory(inv);
        if (!same) {
          w.sent.inventory(h.id(), read, output);
        }
        chooseInstallationDisk(w, h, inv).ifPresent(d -> b.installationDiskId(d.identifier()).installationDiskPath(d.path()));
        w.put(b.build());
        if (!Inventory.sameAddresses(inv, h.inventory())) {
          w.connectivityInputsChanged = true; // the groups read an inventory's addresses only
        }
        return !same;
      }
      case CONNECTIVITY_CHECK -> {
        ConnectivityReport report = parsed instanceof ConnectivityReport c ? c : StepOutputs.connectivity(output);
        w.put(b.connectivity(report).build());
        w.sent.connectivity(h.id(), report, output);
        if (!ConnectivityReport.sameReach(report, h.connectivity())) {
          w.connectivityInputsChanged = true; // the majority groups may move; new times alone do not move them
        }
        return true;
      }
      case NTP_SYNCHRONIZER -> b.ntpSources(StepOutputs.ntp(output).ntpSources());
      case DOMAIN_RESOLUTION -> b.domainResolutions(StepOutputs.domainResolution(output));
      case API_VIP_CONNECTIVITY_CHECK -> b.apiVipConnectivity(StepOutputs.apiVipConnectivity(output));
      case TANG_CONNECTIVITY_CHECK -> b.tangConnectivity(StepOutputs.tangConnectivity(output));
      case CONTAINER_IMAGE_AVAILABILITY -> {
        if (output == null || output.isBlank()) {
          return false; // a concurrent run's empty answer
        }
        Map<String, StepOutputs.ImageAvailability> byName = new LinkedHashMap<>();
        h.imagesStatus().forEach(i -> byName.put(i.name(), i));
        StepOutputs.imageAvailability(output).images().forEach(i -> byName.put(i.name(), i));
        b.imagesStatus(List.copyOf(byName.values()));
      }
      case INSTALLATION_DISK_SPEED_CHECK -> {
        if (output == null || output.isBlank()) {
          return false;
        }
        StepOutputs.DiskSpeedResponse r = StepOutputs.diskSpeed(output);
        String path = r.path() == null || r.path().isEmpty() ? h.installationDiskPath() : r.path();
        Map<String, HostSnapshot.DiskSpeed> speeds = new LinkedHashMap<>(h.diskSpeeds());
        speeds.put(path, new HostSnapshot.DiskSpeed(true, exitCode, r.ioSyncDuration()));
        b.diskSpeeds(speeds);
        long threshold = speedThresholdMs(w, h);
        if (exitCode == 0 && r.ioSyncDuration() > threshold) {
          w.event(BrainRules.DomainEventFactory.host(h, "disk_speed_slower_than_supported", EventSeverity.WARNING, "Host "
              + h.nameForMessages() + ": the installation disk " + path + " is slower than supported (fdatasync "
              + r.ioSyncDuration() + " ms, threshold " + threshold + " ms)"));
        }
      }
      case VERIFY_VIPS -> {
        Map<String, String> verdicts = new LinkedHashMap<>();
        for (StepOutputs.VerifiedVip v : StepOutputs.verifiedVips(output)) {
          if (v.verification().equals("succeeded") || v.verification().equals("failed")) {
            verdicts.put(v.vip(), v.verification()); // "unverified" says nothing: the free lists may
          }
        }
        b.vipVerifications(verdicts);
      }
      case DHCP_LEASE_ALLOCATE -> {
        dhcpVipsLeased(w, StepOutputs.dhcpAllocation(output));
        return false;
      }
      case FREE_NETWORK_ADDRESSES -> {
        List<StepOutputs.FreeNetworkAddresses> sweep = StepOutputs.freeAddresses(output); // refuses what is no sweep
        w.putRecord(w.record(h.id()).withOtherResult("free_addresses", output));
        Map<String, Boolean> free = vipsFree(w.cluster(), sweep);
        if (!free.equals(h.vipsFree())) {
          w.put(w.record(h.id()).snapshot().toBuilder().vipsFree(free).build());
        }
        return false;
      }
      default -> {
        return false;
      }
    }
    w.put(b.build());
    return false;
  }

  /**
   * upgrade-agent's answer: success, the agent starts again as the new version and registers (its version is then
   * the service's); failure, the host is not asked again until its agent registers again (upstream asks on and
   * rate-limits the events to one an hour).
   */
  private void agentUpgraded(Work w, HostSnapshot h, int exitCode, String output, String error) {
    StepOutputs.UpgradeAgentResponse r = output == null || output.isBlank() ? null : StepOutputs.upgradeAgent(output);
    String to = r != null && r.agentImage() != null ? r.agentImage() : config.agentImage();
    if (exitCode == 0 && r != null && "success".equals(r.result())) {
      w.event(BrainRules.DomainEventFactory.host(h, "upgrade_agent_finished", EventSeverity.INFO,
          "Host " + h.nameForMessages() + ": the agent was upgraded to " + to + " and starts again as it"));
      return;
    }
    String why = error == null || error.isBlank() ? "" : ": " + error.strip();
    w.event(BrainRules.DomainEventFactory.host(h, "upgrade_agent_failed", EventSeverity.ERROR,
        "Host " + h.nameForMessages() + ": the agent could not be upgraded to " + to + why));
    w.put(h.toBuilder().agentUpgradeFailed(to).build());
  }

  /**
   * dhcp-lease-allocate's answer: the cluster's VIPs (and their leases) as the DHCP server leased them, taken while the
   * cluster is set up; a refused answer is the host's refused reply (an event names why).
   */
  private static void dhcpVipsLeased(Work w, StepOutputs.DhcpAllocation a) {
    ClusterContext c = w.cluster();
    if (c == null) {
      return;
    }
    DhcpVips.Decision d = DhcpVips.accept(c, a.apiVipAddress(), a.ingressVipAddress(), a.apiVipLease(),
        a.ingressVipLease());
    if (d.refusal() != null) {
      throw new InvalidStepOutputException("dhcp_allocation_response", d.refusal(), null);
    }
    if (d.vips() == null) {
      return;
    }
    w.putCluster(c.toBuilder().dhcpVips(d.vips()).apiVips(List.of(d.vips().apiVip()))
        .ingressVips(List.of(d.vips().ingressVip())).build());
    if (d.vips().movedFrom(c.dhcpVips())) {
      w.event(BrainRules.DomainEventFactory.cluster(c, "api_ingress_vip_updated", EventSeverity.INFO,
          "Cluster was updated with api-vip " + d.vips().apiVip() + ", ingress-vip " + d.vips().ingressVip()));
    }
  }

  /** For each of the cluster's VIPs in a network this sweep covered: whether nothing answered at it. */
  static Map<String, Boolean> vipsFree(ClusterContext c, List<StepOutputs.FreeNetworkAddresses> sweep) {
    if (c == null) {
      return Map.of();
    }
    Map<String, Boolean> free = new LinkedHashMap<>();
    for (String vip : c.allVips()) {
      for (StepOutputs.FreeNetworkAddresses n : sweep) {
        if (n.network() != null && Cidr.parse(n.network()).map(x -> x.containsAddress(vip)).orElse(false)) {
          free.put(vip, n.freeAddresses() != null && n.freeAddresses().contains(vip));
        }
      }
    }
    return free;
  }

  private long speedThresholdMs(Work w, HostSnapshot h) {
    ClusterContext c = w.cluster();
    return config.hardware().forRole(h.effectiveRole(), c != null && c.singleNode(),
        c == null ? null : c.openshiftVersion(), null).installationDiskSpeedThresholdMs();
  }

  /** Upstream re-picks the install disk on a new inventory when the current one is unset or gone. */
  private Optional<Inventory.Disk> chooseInstallationDisk(Work w, HostSnapshot h, Inventory inv) {
    if (h.installationDiskId() != null && inv.diskById(h.installationDiskId()).isPresent()) {
      return Optional.empty();
    }
    ClusterContext c = w.cluster();
    long min = c == null ? config.hardware().smallestDiskRole().diskSizeGb()
        : config.hardware().forRole(h.effectiveRole(), c.singleNode(), c.openshiftVersion(), null).diskSizeGb();
    String arch = c != null ? c.cpuArchitecture() : inv.cpu() == null ? null : inv.cpu().architecture();
    return DiskEligibility.chooseInstallationDisk(inv, min, c == null ? null : c.openshiftVersion(), arch);
  }
}
