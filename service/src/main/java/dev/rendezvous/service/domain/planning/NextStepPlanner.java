package dev.rendezvous.service.domain.planning;

import static dev.rendezvous.service.domain.host.HostStatus.*;

import dev.rendezvous.service.domain.Cidr;
import dev.rendezvous.service.domain.DomainConfig;
import dev.rendezvous.service.domain.DomainEvent;
import dev.rendezvous.service.domain.EventSeverity;
import dev.rendezvous.service.domain.cluster.ClusterContext;
import dev.rendezvous.service.domain.cluster.DhcpVips;
import dev.rendezvous.service.domain.host.ConnectivityReport;
import dev.rendezvous.service.domain.host.HostRole;
import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.host.HostStatus;
import dev.rendezvous.service.domain.host.Inventory;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * Upstream instruction_manager.go: for a host in a status, which steps with which args, the poll interval
 * and the post-step action. Commands that have nothing to do are left out (as upstream's returning nil).
 */
public final class NextStepPlanner {

  static final int DEFAULT_SECONDS = 60;
  static final int BACKED_OFF_SECONDS = 120;
  static final String HOST_FS_MOUNT_DIR = "/host";
  private static final Set<HostStatus> BACKED_OFF = EnumSet.of(DISCONNECTED, DISABLED, RESETTING, ERROR, CANCELLED,
      DISCONNECTED_UNBOUND);
  private static final Set<HostStatus> EXIT = EnumSet.of(BINDING, UNBINDING, UNBINDING_PENDING_USER_ACTION,
      RECLAIMING_REBOOTING);

  private final DomainConfig config;
  private final StepIdGenerator ids;

  public NextStepPlanner(DomainConfig config, StepIdGenerator ids) {
    this.config = config;
    this.ids = ids;
  }

  /**
   * What plans of a cluster share: each host's connectivity-check entry (its NICs and addresses), serialised once per
   * inventory however many hosts check it and however many plans are made. Kept by the caller across its plans of one
   * cluster: a 1,000-host cluster's plan lists 999 peers, and serialising them again for every plan was most of the
   * planner's cost. Not thread-safe: one cluster's plans are made one at a time.
   */
  public static final class Memo {
    /** Each host's entry of connectivity-check's target list, as JSON, by its inventory (same object, same entry). */
    private final java.util.IdentityHashMap<Inventory, CheckEntry> checkHosts = new java.util.IdentityHashMap<>();

    private record CheckEntry(UUID hostId, String json) {}

    String checkEntry(HostSnapshot o) {
      CheckEntry e = checkHosts.get(o.inventory());
      if (e == null || !e.hostId().equals(o.id())) {
        e = new CheckEntry(o.id(), json(checkHost(o, o.inventory())));
        checkHosts.put(o.inventory(), e);
      }
      return e.json();
    }

    /** Whether entries of replaced inventories may have piled up: more than twice as many as hosts. */
    public boolean wantsPruning(int hosts) {
      return checkHosts.size() > 2 * hosts + 8;
    }

    /** Keeps only the entries of inventories {@code hosts} still hold. */
    public void prune(Collection<HostSnapshot> hosts) {
      java.util.Set<Inventory> live = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
      for (HostSnapshot h : hosts) {
        if (h.inventory() != null) {
          live.add(h.inventory());
        }
      }
      checkHosts.keySet().retainAll(live);
    }

    /** How many entries are held. */
    public int size() {
      return checkHosts.size();
    }
  }

  /** The agent version hosts are upgraded to (the service's own agent). */
  public String agentVersion() {
    return config.agentImage();
  }

  /** {@code cluster} is null for unbound hosts. */
  public StepPlan plan(HostSnapshot host, ClusterContext cluster) {
    return plan(host, cluster, new Memo());
  }

  public StepPlan plan(HostSnapshot host, ClusterContext cluster, Memo memo) {
    return plan(host, cluster, memo, true);
  }

  /**
   * The plan as {@link #plan} makes it, but a connectivity check (when there is a peer to check) lists no targets:
   * enough to tell whether a plan changed when the targets are counted apart, without writing a big cluster's
   * ~150 KB of them for every host re-planned and not pushed.
   */
  public StepPlan planWithoutTargets(HostSnapshot host, ClusterContext cluster, Memo memo) {
    return plan(host, cluster, memo, false);
  }

  private StepPlan plan(HostSnapshot host, ClusterContext cluster, Memo memo, boolean targets) {
    if (dev.rendezvous.service.domain.host.AgentUpgrade.due(config, host)) {
      // upstream: every other step is replaced by the one that makes the agent the service's
      String args = json(java.util.Map.of("agent_image", config.agentImage()));
      return new StepPlan(new Steps(DEFAULT_SECONDS, Steps.CONTINUE,
          List.of(new Step(StepType.UPGRADE_AGENT, ids.next(StepType.UPGRADE_AGENT), List.of(args)))), List.of());
    }
    List<Step> steps = new ArrayList<>();
    List<DomainEvent> events = new ArrayList<>();
    for (StepType t : stepTypes(host, cluster)) {
      Optional<List<String>> args = t == StepType.CONNECTIVITY_CHECK && !targets
          ? (anyPeerToCheck(host, cluster) ? Optional.of(List.of()) : Optional.empty())
          : build(t, host, cluster, events, memo);
      args.ifPresent(a -> steps.add(new Step(t, ids.next(t), a)));
    }
    int seconds = BACKED_OFF.contains(host.status()) ? BACKED_OFF_SECONDS : DEFAULT_SECONDS;
    String action = Steps.CONTINUE;
    if (EXIT.contains(host.status())) {
      seconds = 0;
      action = Steps.EXIT;
    }
    return new StepPlan(new Steps(seconds, action, steps), events);
  }

  /** The step list per status (§6 tables), before commands with nothing to do are dropped. */
  static List<StepType> stepTypes(HostSnapshot host, ClusterContext cluster) {
    HostStatus s = host.status();
    if (s == null) {
      return List.of();
    }
    if (host.unbound()) {
      return switch (s) {
        case DISCOVERING_UNBOUND, INSUFFICIENT_UNBOUND, KNOWN_UNBOUND -> List.of(StepType.INVENTORY, StepType.NTP_SYNCHRONIZER);
        case DISCONNECTED_UNBOUND -> List.of(StepType.INVENTORY);
        case RECLAIMING -> List.of(StepType.DOWNLOAD_BOOT_ARTIFACTS);
        case RECLAIMING_REBOOTING -> List.of(StepType.REBOOT_FOR_RECLAIM);
        default -> List.of();
      };
    }
    if (cluster != null && cluster.day2()) {
      switch (s) {
        case DISCOVERING -> {
          return List.of(StepType.INVENTORY, StepType.NTP_SYNCHRONIZER, StepType.DOMAIN_RESOLUTION);
        }
        case KNOWN, INSUFFICIENT, PENDING_FOR_INPUT -> {
          return List.of(StepType.INVENTORY, StepType.API_VIP_CONNECTIVITY_CHECK, StepType.NTP_SYNCHRONIZER,
              StepType.DOMAIN_RESOLUTION);
        }
        case INSTALLING -> {
          return List.of(StepType.INSTALL);
        }
        default -> { }
      }
    }
    return switch (s) {
      case DISCOVERING, DISCONNECTED -> List.of(StepType.INVENTORY);
      case KNOWN -> List.of(StepType.CONNECTIVITY_CHECK, StepType.TANG_CONNECTIVITY_CHECK, StepType.FREE_NETWORK_ADDRESSES,
          StepType.DHCP_LEASE_ALLOCATE, StepType.INVENTORY, StepType.NTP_SYNCHRONIZER, StepType.DOMAIN_RESOLUTION,
          StepType.VERIFY_VIPS);
      case INSUFFICIENT, PENDING_FOR_INPUT -> List.of(StepType.INVENTORY, StepType.CONNECTIVITY_CHECK,
          StepType.TANG_CONNECTIVITY_CHECK, StepType.FREE_NETWORK_ADDRESSES, StepType.DHCP_LEASE_ALLOCATE,
          StepType.NTP_SYNCHRONIZER, StepType.DOMAIN_RESOLUTION, StepType.VERIFY_VIPS);
      case PREPARING_FOR_INSTALLATION -> List.of(StepType.DHCP_LEASE_ALLOCATE, StepType.INSTALLATION_DISK_SPEED_CHECK,
          StepType.CONTAINER_IMAGE_AVAILABILITY);
      case INSTALLING -> List.of(StepType.INSTALL, StepType.DHCP_LEASE_ALLOCATE);
      case INSTALLING_IN_PROGRESS -> List.of(StepType.DHCP_LEASE_ALLOCATE);
      case ERROR, CANCELLED -> List.of(StepType.LOGS_GATHER, StepType.STOP_INSTALLATION);
      default -> List.of();
    };
  }

  private Optional<List<String>> build(StepType t, HostSnapshot h, ClusterContext c, List<DomainEvent> events, Memo memo) {
    return switch (t) {
      case INVENTORY -> Optional.of(List.of(h.id().toString()));
      case CONNECTIVITY_CHECK -> connectivity(h, c, memo);
      case TANG_CONNECTIVITY_CHECK -> tang(h, c);
      case FREE_NETWORK_ADDRESSES -> freeAddresses(h);
      case DHCP_LEASE_ALLOCATE -> dhcp(h, c);
      case NTP_SYNCHRONIZER -> Optional.of(List.of(json(Map.of("ntp_source",
          c == null || c.additionalNtpSource() == null ? "" : c.additionalNtpSource()))));
      case DOMAIN_RESOLUTION -> domains(c);
      case VERIFY_VIPS -> verifyVips(c);
      case INSTALLATION_DISK_SPEED_CHECK -> diskSpeed(h);
      case CONTAINER_IMAGE_AVAILABILITY -> images(h, c);
      case INSTALL -> Optional.of(List.of(json(installRequest(h, c, events))));
      case LOGS_GATHER -> logsGather(h, c);
      case STOP_INSTALLATION -> Optional.of(List.of());
      case API_VIP_CONNECTIVITY_CHECK -> apiVip(c);
      case DOWNLOAD_BOOT_ARTIFACTS -> h.reclaimBootArtifacts() == null ? Optional.empty()
          : Optional.of(List.of(h.reclaimBootArtifacts()));
      case REBOOT_FOR_RECLAIM -> Optional.of(List.of(json(Map.of("host_fs_mount_dir", HOST_FS_MOUNT_DIR))));
      default -> Optional.empty();
    };
  }

  private static String json(Object o) {
    return StepOutputs.toJson(o);
  }

  private static String address(String cidr) {
    return Cidr.parse(cidr).map(Cidr::addressString).orElse(cidr);
  }

  /** All other hosts of the cluster that are neither discovering nor disconnected, with their NICs. */
  static Optional<List<String>> connectivity(HostSnapshot h, ClusterContext c) {
    return connectivity(h, c, new Memo());
  }

  static Optional<List<String>> connectivity(HostSnapshot h, ClusterContext c, Memo memo) {
    if (c == null) {
      return Optional.empty();
    }
    // the same entries for every host of the cluster but its own: each serialised once, joined per host
    StringBuilder b = new StringBuilder(256).append('[');
    int n = 0;
    for (HostSnapshot o : c.hosts()) {
      if (o.id().equals(h.id()) || !connectivityTarget(o)) {
        continue;
      }
      if (n++ > 0) {
        b.append(',');
      }
      b.append(memo.checkEntry(o));
    }
    return n == 0 ? Optional.empty() : Optional.of(List.of(b.append(']').toString()));
  }

  /** One peer of the cluster's connectivity checks: the host and its entry of their target lists (JSON). */
  public record CheckTarget(UUID hostId, String entry) {}

  /**
   * Every host the cluster's connectivity checks list, in the order {@link #plan} lists them: a host's own target list
   * is these entries but its own, joined as a JSON list (so a gateway can fill in the plans {@link #planWithoutTargets}
   * made, from one copy of the cluster's targets).
   */
  public static List<CheckTarget> checkTargets(ClusterContext c, Memo memo) {
    if (c == null) {
      return List.of();
    }
    List<CheckTarget> out = new ArrayList<>();
    for (HostSnapshot o : c.hosts()) {
      if (connectivityTarget(o)) {
        out.add(new CheckTarget(o.id(), memo.checkEntry(o)));
      }
    }
    return out;
  }

  private static boolean anyPeerToCheck(HostSnapshot h, ClusterContext c) {
    if (c == null) {
      return false;
    }
    for (HostSnapshot o : c.hosts()) {
      if (!o.id().equals(h.id()) && connectivityTarget(o)) {
        return true;
      }
    }
    return false;
  }

  /** Whether the host is one its peers' connectivity checks list: it has an inventory and is neither discovering nor disconnected. */
  public static boolean connectivityTarget(HostSnapshot o) {
    return o != null && o.inventory() != null && o.status() != DISCOVERING && o.status() != DISCONNECTED;
  }

  /** Whether the host's plan in its status carries a connectivity check (when it has a peer to check). */
  public static boolean checksConnectivity(HostSnapshot h, ClusterContext c) {
    return c != null && stepTypes(h, c).contains(StepType.CONNECTIVITY_CHECK);
  }

  private static ConnectivityReport.CheckHost checkHost(HostSnapshot o, Inventory inv) {
    List<ConnectivityReport.CheckNic> nics = new ArrayList<>();
    for (Inventory.NetInterface i : inv.interfaces()) {
      List<String> ips = new ArrayList<>();
      i.ipv4Addresses().forEach(a -> ips.add(address(a)));
      i.ipv6Addresses().forEach(a -> ips.add(address(a)));
      nics.add(new ConnectivityReport.CheckNic(i.name(), i.macAddress(), ips));
    }
    return new ConnectivityReport.CheckHost(o.id(), nics);
  }

  private static Optional<List<String>> tang(HostSnapshot h, ClusterContext c) {
    if (c == null || !"tang".equals(c.diskEncryption().mode()) || !c.diskEncryption().enabledFor(h.effectiveRole())) {
      return Optional.empty();
    }
    return Optional.of(List.of(json(Map.of("tang_servers", c.diskEncryption().tangServers() == null ? "" : c.diskEncryption().tangServers()))));
  }

  /** IPv4 networks of the host with prefix /22 or longer (upstream skips bigger ones). */
  private static Optional<List<String>> freeAddresses(HostSnapshot h) {
    if (h.inventory() == null) {
      return Optional.empty();
    }
    List<String> nets = new ArrayList<>();
    for (Inventory.NetInterface i : h.inventory().interfaces()) {
      for (String a : i.ipv4Addresses()) {
        Cidr.parse(a).filter(x -> x.prefix() >= 22 && x.prefix() < 32).map(x -> x.network().toString())
            .filter(n -> !nets.contains(n)).ifPresent(nets::add);
      }
    }
    return nets.isEmpty() ? Optional.empty() : Optional.of(List.of(json(nets)));
  }

  private static Optional<List<String>> dhcp(HostSnapshot h, ClusterContext c) {
    if (c == null || !c.vipDhcpAllocation() || c.machineNetworks().isEmpty() || h.inventory() == null) {
      return Optional.empty();
    }
    Optional<Cidr> net = Cidr.parse(c.machineNetworks().get(0));
    Optional<Inventory.NetInterface> nic = h.inventory().interfaces().stream()
        .filter(i -> i.ipv4Addresses().stream().anyMatch(a -> net.map(n -> n.containsAddress(address(a))).orElse(false)))
        .findFirst();
    if (nic.isEmpty()) {
      return Optional.empty();
    }
    Map<String, Object> req = new LinkedHashMap<>();
    req.put("interface", nic.get().name());
    req.put("api_vip_mac", DhcpVips.mac(c.id(), 0));
    req.put("ingress_vip_mac", DhcpVips.mac(c.id(), 1));
    if (c.dhcpVips() != null) { // the leases held: the agent asks for the same addresses again (renewal)
      req.put("api_vip_lease", c.dhcpVips().apiVipLease());
      req.put("ingress_vip_lease", c.dhcpVips().ingressVipLease());
    }
    return Optional.of(List.of(json(req)));
  }

  private Optional<List<String>> domains(ClusterContext c) {
    if (c == null || c.name() == null || c.name().isEmpty() || c.baseDnsDomain() == null || c.baseDnsDomain().isEmpty()) {
      return Optional.empty();
    }
    String suffix = c.name() + "." + c.baseDnsDomain();
    List<Map<String, String>> domains = new ArrayList<>();
    for (String d : List.of("api." + suffix, "api-int." + suffix, "console-openshift-console.apps." + suffix,
        "validateNoWildcardDNS." + suffix, "validateNoWildcardDNS." + suffix + ".")) {
      domains.add(Map.of("domain_name", d));
    }
    if (config.releaseDomain() != null && !config.releaseDomain().isEmpty()) {
      domains.add(Map.of("domain_name", config.releaseDomain()));
    }
    return Optional.of(List.of(json(Map.of("domains", domains))));
  }

  private static Optional<List<String>> verifyVips(ClusterContext c) {
    if (c == null || c.userManagedNetworking() || (c.apiVips().isEmpty() && c.ingressVips().isEmpty())) {
      return Optional.empty();
    }
    List<Map<String, String>> vips = new ArrayList<>();
    c.apiVips().forEach(v -> vips.add(vip(v, "api")));
    c.ingressVips().forEach(v -> vips.add(vip(v, "ingress")));
    return Optional.of(List.of(json(vips)));
  }

  private static Map<String, String> vip(String vip, String type) {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("vip", vip);
    m.put("vip_type", type);
    return m;
  }

  private Optional<List<String>> diskSpeed(HostSnapshot h) {
    String path = h.installationDiskPath();
    if (path == null || path.isEmpty()) {
      return Optional.empty();
    }
    HostSnapshot.DiskSpeed s = h.diskSpeeds().get(path);
    boolean persistentBoot = h.inventory() != null && h.inventory().boot() != null
        && "persistent".equals(h.inventory().boot().deviceType());
    boolean savesPartitions = h.installerArgs().stream().anyMatch(a -> a.startsWith("--save-partindex") || a.startsWith("--save-partlabel"));
    if ((s != null && s.tested()) || persistentBoot || savesPartitions) {
      return Optional.empty();
    }
    return Optional.of(List.of(json(Map.of("path", path)),
        String.format(Locale.ROOT, "%.2f", (double) config.diskSpeedCheckTimeoutSeconds())));
  }

  /**
   * Upstream's pre-flight pull check: the cluster's release image (stored at creation from the release catalog) and
   * the configured extra images (MCO, must-gather), each until the host pulled it once.
   */
  private Optional<List<String>> images(HostSnapshot h, ClusterContext c) {
    List<String> wanted = new ArrayList<>();
    if (c != null && c.releaseImage() != null && !c.releaseImage().isBlank()) {
      wanted.add(c.releaseImage());
    }
    config.requiredImages().stream().filter(i -> !wanted.contains(i)).forEach(wanted::add);
    List<String> unchecked = wanted.stream()
        .filter(img -> h.imagesStatus().stream().noneMatch(s -> s.name().equals(img) && "success".equals(s.result())))
        .toList();
    if (unchecked.isEmpty()) {
      return Optional.empty();
    }
    Map<String, Object> req = new LinkedHashMap<>();
    req.put("images", unchecked);
    req.put("timeout", config.imageAvailabilityTimeoutSeconds());
    return Optional.of(List.of(json(req)));
  }

  private Optional<List<String>> logsGather(HostSnapshot h, ClusterContext c) {
    if (Set.of("completed", "timeout", "collecting").contains(h.logsInfo()) || h.logsCollectedAt() != null) {
      return Optional.empty();
    }
    Map<String, Object> req = new LinkedHashMap<>();
    req.put("cluster_id", h.clusterId());
    req.put("infra_env_id", h.infraEnvId());
    req.put("host_id", h.id());
    req.put("bootstrap", h.bootstrap());
    req.put("installer_gather", true);
    if (h.bootstrap() && c != null) {
      List<String> masterIps = new ArrayList<>();
      for (HostSnapshot m : c.hosts()) {
        if (m.effectiveRole() == HostRole.MASTER && !m.id().equals(h.id()) && m.inventory() != null) {
          m.inventory().interfaces().forEach(i -> i.ipv4Addresses().forEach(a -> masterIps.add(address(a))));
        }
      }
      req.put("master_ips", masterIps);
    }
    return Optional.of(List.of(json(req)));
  }

  private static Optional<List<String>> apiVip(ClusterContext c) {
    if (c == null) {
      return Optional.empty();
    }
    String host = !c.apiVips().isEmpty() ? c.apiVips().get(0) : "api." + c.name() + "." + c.baseDnsDomain();
    Map<String, Object> req = new LinkedHashMap<>();
    req.put("url", "http://" + host + ":22624/config/worker");
    req.put("request_headers", List.of());
    return Optional.of(List.of(json(req)));
  }

  /**
   * download-boot-artifacts' request (upstream's DownloadBootArtifactsRequest) for a reclaimed host: the discovery
   * kernel, rootfs and initrd (the infra-env's own, signed) and where the host's file system is mounted for the agent.
   */
  public static String bootArtifactsRequest(String kernelUrl, String rootfsUrl, String initrdUrl) {
    Map<String, Object> req = new LinkedHashMap<>();
    req.put("kernel_url", kernelUrl);
    req.put("rootfs_url", rootfsUrl);
    req.put("initrd_url", initrdUrl);
    req.put("host_fs_mount_dir", HOST_FS_MOUNT_DIR);
    return json(req);
  }

  /** The install step's request (§7); records quick-format events for the other bootable disks. */
  InstallCmdRequest installRequest(HostSnapshot h, ClusterContext c, List<DomainEvent> events) {
    String role = h.bootstrap() ? HostRole.BOOTSTRAP.wire() : h.effectiveRole().wire();
    List<String> args = new ArrayList<>(h.installerArgs());
    if (h.staticNetworking() && !args.contains("--copy-network")) {
      args.add("--copy-network");
    }
    List<String> toFormat = new ArrayList<>();
    if (h.inventory() != null) {
      String name = h.nameForMessages();
      for (Inventory.Disk d : h.inventory().disks()) {
        if (!d.bootable() || d.removable() || d.isInstallationMedia() || d.identifier().equals(h.installationDiskId())) {
          continue;
        }
        boolean skip = h.skipFormattingDiskIds().contains(d.identifier());
        String disk = d.name() + "(" + d.identifier() + ")";
        if (skip) {
          events.add(DomainEvent.host("quick_disk_format_skipped", EventSeverity.INFO, name + ": Skipping quick format of disk "
              + disk + " due to user request. This could lead to boot order issues during installation", h,
              Map.of("host_name", name, "disk_name", d.name(), "disk_id", d.identifier())));
        } else {
          toFormat.add(d.identifier());
          events.add(DomainEvent.host("quick_disk_format_performed", EventSeverity.INFO,
              name + ": Performing quick format of disk " + disk, h,
              Map.of("host_name", name, "disk_name", d.name(), "disk_id", d.identifier())));
        }
      }
    }
    boolean day2 = c != null && c.day2();
    InstallCmdRequest.Proxy proxy = null;
    if (c != null && c.proxy() != null && (notEmpty(c.proxy().httpProxy()) || notEmpty(c.proxy().httpsProxy()))) {
      String noProxy = String.join(",", List.of(c.proxy().noProxy() == null ? "" : c.proxy().noProxy(), "127.0.0.1",
          "localhost", ".svc", ".cluster.local", "api-int." + c.name() + "." + c.baseDnsDomain())).replaceFirst("^,", "");
      proxy = new InstallCmdRequest.Proxy(c.proxy().httpProxy(), c.proxy().httpsProxy(), noProxy);
    }
    boolean savesPartitions = args.stream().anyMatch(a -> a.startsWith("--save-partindex") || a.startsWith("--save-partlabel"));
    // upstream's GetHostInstallationPath: the disk's id (a /dev/disk/by-id link when it has one), else its path
    String bootDevice = h.installationDiskId() != null && !h.installationDiskId().isEmpty() ? h.installationDiskId()
        : h.installationDiskPath();
    DomainConfig.MetalImage metal = c == null ? null
        : config.metalImage(c.openshiftVersion(), c.cpuArchitecture()).orElse(null);
    String ignitionUrl = config.serviceUrl().isEmpty() ? null : config.serviceUrl()
        + "/api/assisted-install/v2/infra-env/" + h.infraEnvId() + "/hosts/" + h.id() + "/downloads/ignition";
    return new InstallCmdRequest(
        c == null ? h.clusterId() : c.id(), h.infraEnvId(), h.id(), role, bootDevice,
        config.controllerImage(), config.installerImage(), c == null ? null : c.controlPlaneCount(),
        config.checkClusterVersion(), day2 || config.mcoImage().isEmpty() ? null : config.mcoImage(),
        config.mustGatherImage().isEmpty() ? null : config.mustGatherImage(),
        day2 || c == null ? null : c.openshiftVersion(), args, savesPartitions ? Boolean.TRUE : null, toFormat, proxy,
        false, Boolean.TRUE, null, metal == null ? null : metal.url(), metal == null ? null : metal.sha256(), ignitionUrl,
        config.bootstrapHostMac() != null && h.bootstrap() ? Boolean.TRUE : null);
  }

  private static boolean notEmpty(String s) {
    return s != null && !s.isEmpty();
  }
}
