package dev.rendezvous.service.domain.cluster;

import dev.rendezvous.service.domain.host.HostRole;
import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.validation.ValidationsInfo;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * A cluster as the domain sees it: its settings, its state, and all its hosts (in database order). Built
 * by the repository; the domain returns changes, it never mutates this.
 */
public record ClusterContext(
    UUID id,
    String name,
    String baseDnsDomain,
    String openshiftVersion,
    String cpuArchitecture,
    ClusterStatus status,
    String statusInfo,
    Instant statusUpdatedAt,
    Instant installStartedAt,
    boolean day2,
    int controlPlaneCount,
    boolean userManagedNetworking,
    boolean vipDhcpAllocation,
    String platformType,
    List<String> machineNetworks,
    boolean machineNetworksDerived,
    List<ClusterNetwork> clusterNetworks,
    List<String> serviceNetworks,
    List<String> apiVips,
    List<String> ingressVips,
    DhcpVips dhcpVips,
    boolean pullSecretSet,
    String networkType,
    String externalPlatformName,
    boolean customManifests,
    DiskEncryption diskEncryption,
    String additionalNtpSource,
    Proxy proxy,
    boolean softTimeoutsEnabled,
    MajorityGroups connectivityMajorityGroups,
    Map<String, List<String>> ipCollisions,
    Set<String> ignoredHostValidations,
    Set<String> ignoredClusterValidations,
    List<String> olmOperators,
    String releaseImage,
    String lastPreparationStatus,
    String lastPreparationReason,
    boolean kubeconfigExists,
    List<MonitoredOperator> monitoredOperators,
    String finalizingStage,
    Instant finalizingStageStartedAt,
    boolean finalizingStageTimedOut,
    String logsInfo,
    Instant controllerLogsStartedAt,
    Instant controllerLogsCollectedAt,
    List<HostSnapshot> hosts,
    ValidationsInfo validationsInfo) {

  public record ClusterNetwork(String cidr, int hostPrefix) {}

  /** enable_on ∈ none/all/masters/workers/arbiters (comma list allowed), mode ∈ tpmv2/tang. */
  public record DiskEncryption(String enableOn, String mode, String tangServers) {
    public static final DiskEncryption NONE = new DiskEncryption("none", null, null);

    public boolean enabledFor(HostRole role) {
      if (enableOn == null || enableOn.equals("none")) {
        return false;
      }
      if (enableOn.contains("all")) {
        return true;
      }
      return switch (role) {
        case MASTER, BOOTSTRAP -> enableOn.contains("masters");
        case WORKER -> enableOn.contains("workers");
        case ARBITER -> enableOn.contains("arbiters");
        default -> false;
      };
    }
  }

  public record Proxy(String httpProxy, String httpsProxy, String noProxy) {}

  /**
   * An operator the installation waits for (upstream monitored-operator): {@code operatorType} builtin or olm,
   * {@code status} empty until the controller reports, then failed/progressing/available.
   */
  public record MonitoredOperator(String name, String operatorType, String namespace, String subscriptionName,
      long timeoutSeconds, String status, String statusInfo, String version, Instant statusUpdatedAt) {

    public MonitoredOperator(String name, String operatorType, String status) {
      this(name, operatorType, null, null, 0, status, null, null, null);
    }

    public MonitoredOperator reported(String newStatus, String info, String newVersion, Instant at) {
      return new MonitoredOperator(name, operatorType, namespace, subscriptionName, timeoutSeconds, newStatus, info,
          newVersion == null || newVersion.isEmpty() ? version : newVersion, at);
    }
  }

  public ClusterContext {
    id = dev.rendezvous.service.domain.SharedText.id(id);
    machineNetworks = copy(machineNetworks).stream().map(dev.rendezvous.service.domain.SharedText::of).toList();
    clusterNetworks = copy(clusterNetworks);
    serviceNetworks = copy(serviceNetworks);
    apiVips = copy(apiVips);
    ingressVips = copy(ingressVips);
    olmOperators = copy(olmOperators);
    monitoredOperators = copy(monitoredOperators);
    hosts = ClusterHosts.of(hosts);
    ipCollisions = ipCollisions == null ? Map.of() : Map.copyOf(ipCollisions);
    ignoredHostValidations = ignoredHostValidations == null ? Set.of() : Set.copyOf(ignoredHostValidations);
    ignoredClusterValidations = ignoredClusterValidations == null ? Set.of() : Set.copyOf(ignoredClusterValidations);
    diskEncryption = diskEncryption == null ? DiskEncryption.NONE : diskEncryption;
    platformType = platformType == null ? "baremetal" : platformType;
    statusInfo = statusInfo == null ? "" : statusInfo;
    logsInfo = logsInfo == null ? "" : logsInfo;
    lastPreparationStatus = lastPreparationStatus == null ? "not_started" : lastPreparationStatus;
  }

  private static <T> List<T> copy(List<T> l) {
    return l == null ? List.of() : List.copyOf(l);
  }

  public boolean singleNode() {
    return controlPlaneCount == 1;
  }

  /** Whether any of the cluster's hosts has an inventory (kept as hosts change, not a pass per question). */
  public boolean anyHostWithInventory() {
    return ClusterHosts.anyWithInventory(hosts);
  }

  /** How many of the cluster's hosts with an inventory go by this hostname (one lookup, not a pass per host). */
  public int hostsNamed(String hostname) {
    return ClusterHosts.countNamed(hosts, hostname);
  }

  /** The API VIPs, then the ingress VIPs. */
  public List<String> allVips() {
    List<String> all = new ArrayList<>(apiVips);
    all.addAll(ingressVips);
    return all;
  }

  /**
   * What the hosts found at a VIP, as upstream's VerifyVipFree: a host's verify-vips verdict wins (failed if any host
   * found something answering there, succeeded if one found nothing); else the free lists (failed if a host's sweep of
   * the VIP's network did not find it free, succeeded if they all did); else unverified.
   */
  public String vipVerification(String vip) {
    return ClusterHosts.vipVerification(hosts, vip);
  }

  /** Whether an address (without prefix) is on an interface of one of the cluster's hosts (kept, not a pass per ask). */
  public boolean addressInUse(String address) {
    return ClusterHosts.addressInUse(hosts, address);
  }

  /** Counts over the hosts (by status, by role, clocks), kept up to date as hosts are replaced, not counted per ask. */
  public HostTally hostTally() {
    return ClusterHosts.tally(hosts);
  }

  public Optional<HostSnapshot> host(UUID hostId) {
    return Optional.ofNullable(ClusterHosts.find(hosts, hostId));
  }

  /** The same cluster with one host replaced (or added), e.g. to re-evaluate after a host transition. */
  public ClusterContext withHost(HostSnapshot host) {
    ClusterHosts replaced = hosts instanceof ClusterHosts h ? h.replaced(host) : null;
    if (replaced == hosts) {
      return this;
    }
    if (replaced != null) {
      return toBuilder().hosts(replaced).build();
    }
    if (hosts instanceof ClusterHosts h) {
      return toBuilder().hosts(h.appended(host)).build(); // a new host
    }
    List<HostSnapshot> l = new ArrayList<>(hosts.size() + 1);
    boolean found = false;
    for (HostSnapshot h : hosts) {
      if (h.id().equals(host.id())) {
        l.add(host);
        found = true;
      } else {
        l.add(h);
      }
    }
    if (!found) {
      l.add(host);
    }
    return toBuilder().hosts(l).build();
  }

  /**
   * The same cluster with several of its hosts replaced at once (hosts of other ids are ignored): one copy of the host
   * list, not one per host.
   */
  public ClusterContext withHostsReplaced(java.util.Collection<HostSnapshot> replacements) {
    if (hosts instanceof ClusterHosts h) {
      ClusterHosts replaced = h.replacedAll(replacements);
      return replaced == null ? this : toBuilder().hosts(replaced).build();
    }
    ClusterContext c = this;
    for (HostSnapshot s : replacements) {
      if (c.host(s.id()).isPresent()) {
        c = c.withHost(s);
      }
    }
    return c;
  }

  public static Builder builder(UUID id) {
    return new Builder().id(id);
  }

  public Builder toBuilder() {
    Builder b = new Builder();
    b.id = id; b.name = name; b.baseDnsDomain = baseDnsDomain; b.openshiftVersion = openshiftVersion;
    b.cpuArchitecture = cpuArchitecture; b.status = status; b.statusInfo = statusInfo;
    b.statusUpdatedAt = statusUpdatedAt; b.installStartedAt = installStartedAt; b.day2 = day2;
    b.controlPlaneCount = controlPlaneCount; b.userManagedNetworking = userManagedNetworking;
    b.vipDhcpAllocation = vipDhcpAllocation; b.platformType = platformType; b.machineNetworks = machineNetworks;
    b.machineNetworksDerived = machineNetworksDerived;
    b.clusterNetworks = clusterNetworks; b.serviceNetworks = serviceNetworks; b.apiVips = apiVips;
    b.ingressVips = ingressVips; b.dhcpVips = dhcpVips; b.pullSecretSet = pullSecretSet; b.networkType = networkType;
    b.externalPlatformName = externalPlatformName; b.customManifests = customManifests;
    b.diskEncryption = diskEncryption; b.additionalNtpSource = additionalNtpSource; b.proxy = proxy;
    b.softTimeoutsEnabled = softTimeoutsEnabled; b.connectivityMajorityGroups = connectivityMajorityGroups;
    b.ipCollisions = ipCollisions; b.ignoredHostValidations = ignoredHostValidations;
    b.ignoredClusterValidations = ignoredClusterValidations; b.olmOperators = olmOperators; b.releaseImage = releaseImage;
    b.lastPreparationStatus = lastPreparationStatus; b.lastPreparationReason = lastPreparationReason;
    b.kubeconfigExists = kubeconfigExists; b.monitoredOperators = monitoredOperators;
    b.finalizingStage = finalizingStage; b.finalizingStageStartedAt = finalizingStageStartedAt;
    b.finalizingStageTimedOut = finalizingStageTimedOut; b.logsInfo = logsInfo;
    b.controllerLogsStartedAt = controllerLogsStartedAt; b.controllerLogsCollectedAt = controllerLogsCollectedAt;
    b.hosts = hosts; b.validationsInfo = validationsInfo;
    return b;
  }

  /** Mutable builder with upstream's creation defaults (3 control-plane nodes, baremetal, insufficient). */
  public static final class Builder {
    private UUID id;
    private String name = "";
    private String baseDnsDomain = "";
    private String openshiftVersion = "";
    private String cpuArchitecture = "x86_64";
    private ClusterStatus status = ClusterStatus.INSUFFICIENT;
    private String statusInfo;
    private Instant statusUpdatedAt;
    private Instant installStartedAt;
    private boolean day2;
    private int controlPlaneCount = 3;
    private boolean userManagedNetworking;
    private boolean vipDhcpAllocation;
    private String platformType = "baremetal";
    private List<String> machineNetworks;
    private boolean machineNetworksDerived;
    private List<ClusterNetwork> clusterNetworks = List.of(new ClusterNetwork("10.128.0.0/14", 23));
    private List<String> serviceNetworks = List.of("172.30.0.0/16");
    private List<String> apiVips;
    private List<String> ingressVips;
    private DhcpVips dhcpVips;
    private boolean pullSecretSet;
    private String networkType;
    private String externalPlatformName;
    private boolean customManifests;
    private DiskEncryption diskEncryption;
    private String additionalNtpSource;
    private Proxy proxy;
    private boolean softTimeoutsEnabled;
    private MajorityGroups connectivityMajorityGroups;
    private Map<String, List<String>> ipCollisions;
    private Set<String> ignoredHostValidations;
    private Set<String> ignoredClusterValidations;
    private List<String> olmOperators;
    private String releaseImage;
    private String lastPreparationStatus;
    private String lastPreparationReason;
    private boolean kubeconfigExists;
    private List<MonitoredOperator> monitoredOperators;
    private String finalizingStage;
    private Instant finalizingStageStartedAt;
    private boolean finalizingStageTimedOut;
    private String logsInfo;
    private Instant controllerLogsStartedAt;
    private Instant controllerLogsCollectedAt;
    private List<HostSnapshot> hosts;
    private ValidationsInfo validationsInfo;

    public Builder id(UUID v) { id = v; return this; }
    public Builder name(String v) { name = v; return this; }
    public Builder baseDnsDomain(String v) { baseDnsDomain = v; return this; }
    public Builder openshiftVersion(String v) { openshiftVersion = v; return this; }
    public Builder cpuArchitecture(String v) { cpuArchitecture = v; return this; }
    public Builder status(ClusterStatus v) { status = v; return this; }
    public Builder statusInfo(String v) { statusInfo = v; return this; }
    public Builder statusUpdatedAt(Instant v) { statusUpdatedAt = v; return this; }
    public Builder installStartedAt(Instant v) { installStartedAt = v; return this; }
    public Builder day2(boolean v) { day2 = v; return this; }
    public Builder controlPlaneCount(int v) { controlPlaneCount = v; return this; }
    public Builder userManagedNetworking(boolean v) { userManagedNetworking = v; return this; }
    public Builder vipDhcpAllocation(boolean v) { vipDhcpAllocation = v; return this; }
    public Builder platformType(String v) { platformType = v; return this; }
    public Builder machineNetworks(List<String> v) { machineNetworks = v; return this; }
    /** The machine networks were derived from the hosts (the user set none); see MachineNetworks. */
    public Builder machineNetworksDerived(boolean v) { machineNetworksDerived = v; return this; }
    public Builder clusterNetworks(List<ClusterNetwork> v) { clusterNetworks = v; return this; }
    public Builder serviceNetworks(List<String> v) { serviceNetworks = v; return this; }
    public Builder apiVips(List<String> v) { apiVips = v; return this; }
    public Builder ingressVips(List<String> v) { ingressVips = v; return this; }
    public Builder dhcpVips(DhcpVips v) { dhcpVips = v; return this; }
    public Builder pullSecretSet(boolean v) { pullSecretSet = v; return this; }
    public Builder networkType(String v) { networkType = v; return this; }
    /** platform.external.platform_name (upstream's external platform integration, e.g. oci). */
    public Builder externalPlatformName(String v) { externalPlatformName = v; return this; }
    /** Whether the user uploaded any custom manifest (upstream's "Custom manifest" feature usage). */
    public Builder customManifests(boolean v) { customManifests = v; return this; }
    public Builder diskEncryption(DiskEncryption v) { diskEncryption = v; return this; }
    public Builder additionalNtpSource(String v) { additionalNtpSource = v; return this; }
    public Builder proxy(Proxy v) { proxy = v; return this; }
    public Builder softTimeoutsEnabled(boolean v) { softTimeoutsEnabled = v; return this; }
    public Builder connectivityMajorityGroups(MajorityGroups v) { connectivityMajorityGroups = v; return this; }
    public Builder ipCollisions(Map<String, List<String>> v) { ipCollisions = v; return this; }
    public Builder ignoredHostValidations(Set<String> v) { ignoredHostValidations = v; return this; }
    public Builder ignoredClusterValidations(Set<String> v) { ignoredClusterValidations = v; return this; }
    public Builder olmOperators(List<String> v) { olmOperators = v; return this; }
    public Builder releaseImage(String v) { releaseImage = v; return this; }
    public Builder lastPreparationStatus(String v) { lastPreparationStatus = v; return this; }
    public Builder lastPreparationReason(String v) { lastPreparationReason = v; return this; }
    public Builder kubeconfigExists(boolean v) { kubeconfigExists = v; return this; }
    public Builder monitoredOperators(List<MonitoredOperator> v) { monitoredOperators = v; return this; }
    public Builder finalizingStage(String v) { finalizingStage = v; return this; }
    public Builder finalizingStageStartedAt(Instant v) { finalizingStageStartedAt = v; return this; }
    public Builder finalizingStageTimedOut(boolean v) { finalizingStageTimedOut = v; return this; }
    public Builder logsInfo(String v) { logsInfo = v; return this; }
    public Builder controllerLogsStartedAt(Instant v) { controllerLogsStartedAt = v; return this; }
    public Builder controllerLogsCollectedAt(Instant v) { controllerLogsCollectedAt = v; return this; }
    public Builder hosts(List<HostSnapshot> v) { hosts = v; return this; }
    public Builder validationsInfo(ValidationsInfo v) { validationsInfo = v; return this; }

    public ClusterContext build() {
      return new ClusterContext(id, name, baseDnsDomain, openshiftVersion, cpuArchitecture, status, statusInfo,
          statusUpdatedAt, installStartedAt, day2, controlPlaneCount, userManagedNetworking, vipDhcpAllocation,
          platformType, machineNetworks, machineNetworksDerived, clusterNetworks, serviceNetworks, apiVips, ingressVips, dhcpVips,
          pullSecretSet,
          networkType, externalPlatformName, customManifests, diskEncryption, additionalNtpSource, proxy, softTimeoutsEnabled, connectivityMajorityGroups,
          ipCollisions, ignoredHostValidations, ignoredClusterValidations, olmOperators, releaseImage, lastPreparationStatus,
          lastPreparationReason, kubeconfigExists, monitoredOperators, finalizingStage, finalizingStageStartedAt,
          finalizingStageTimedOut, logsInfo, controllerLogsStartedAt, controllerLogsCollectedAt, hosts,
          validationsInfo);
    }
  }
}
