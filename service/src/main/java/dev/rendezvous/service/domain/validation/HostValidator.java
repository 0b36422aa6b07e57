package dev.rendezvous.service.domain.validation;

import static dev.rendezvous.service.domain.validation.ValidationStatus.ERROR;
import static dev.rendezvous.service.domain.validation.ValidationStatus.FAILURE;
import static dev.rendezvous.service.domain.validation.ValidationStatus.PENDING;
import static dev.rendezvous.service.domain.validation.ValidationStatus.SUCCESS;
import static dev.rendezvous.service.domain.validation.ValidationStatus.SUCCESS_SUPPRESS_OUTPUT;

import dev.rendezvous.service.domain.Cidr;
import dev.rendezvous.service.domain.DomainConfig;
import dev.rendezvous.service.domain.DomainTimeouts;
import dev.rendezvous.service.domain.Formats;
import dev.rendezvous.service.domain.cluster.ClusterContext;
import dev.rendezvous.service.domain.cluster.MajorityGroups;
import dev.rendezvous.service.domain.host.ConnectivityReport;
import dev.rendezvous.service.domain.host.DiskEligibility;
import dev.rendezvous.service.domain.host.HostRole;
import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.host.HostStage;
import dev.rendezvous.service.domain.host.Inventory;
import dev.rendezvous.service.domain.planning.StepOutputs;
import dev.rendezvous.service.domain.validation.HardwareRequirements.RoleRequirements;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Evaluates every host validation of upstream's validator.go (ids, statuses and messages as upstream) for
 * one host in its cluster (or unbound, {@code cluster == null}) at time {@code now}.
 */
public final class HostValidator {

  public static final String HOSTNAME_PATTERN = "^[a-z0-9][a-z0-9-]{0,62}(?:[.][a-z0-9-]{1,63})*$";
  private static final Pattern HOSTNAME = Pattern.compile(HOSTNAME_PATTERN);
  public static final Set<String> FORBIDDEN_HOSTNAMES =
      Set.of("localhost", "localhost.localdomain", "localhost4", "localhost4.localdomain4", "localhost6",
          "localhost6.localdomain6");
  /** Stages after which the host no longer talks to the service (upstream manualRebootStages). */
  static final Set<HostStage> MANUAL_REBOOT_STAGES =
      java.util.EnumSet.of(HostStage.REBOOTING, HostStage.WAITING_FOR_IGNITION, HostStage.CONFIGURING, HostStage.JOINED,
          HostStage.DONE);
  private static final Set<HostValidationId> HIDDEN_AFTER_REBOOT =
      java.util.EnumSet.of(HostValidationId.CONNECTED, HostValidationId.MEDIA_CONNECTED, HostValidationId.NTP_SYNCED,
          HostValidationId.TIME_SYNCED);
  public static final String MEDIA_DISCONNECTED =
      "Unable to read from the discovery media. It was either disconnected or poor network conditions prevented "
          + "it from being read. Try using the minimal ISO option and be sure to keep the media connected until "
          + "the installation is completed";
  static final String DISABLED_BY_CONFIGURATION = "Validation disabled by configuration";

  private final DomainConfig config;

  public HostValidator(DomainConfig config) {
    this.config = config;
  }

  private record Ctx(HostSnapshot host, ClusterContext cluster, Inventory inventory, Instant now, DomainConfig cfg) {
    boolean unbound() {
      return cluster == null;
    }

    boolean umn() {
      return cluster != null && cluster.userManagedNetworking();
    }

    boolean sno() {
      return cluster != null && cluster.singleNode();
    }

    RoleRequirements roleRequirements() {
      if (cluster == null) {
        return cfg.hardware().smallestDiskRole();
      }
      String product = inventory == null || inventory.systemVendor() == null ? null : inventory.systemVendor().productName();
      RoleRequirements base =
          cfg.hardware().forRole(host.effectiveRole(), cluster.singleNode(), cluster.openshiftVersion(), product);
      // as upstream's hardware check: the role's minimum plus what each of the cluster's operators needs on this host
      OperatorRequirements.Needs ops = OperatorRequirements.hostNeeds(cluster, host, inventory);
      if (ops.cpuCores() == 0 && ops.ramMib() == 0) {
        return base;
      }
      return new RoleRequirements(base.cpuCores() + ops.cpuCores(), base.ramMib() + ops.ramMib(), base.diskSizeGb(),
          base.installationDiskSpeedThresholdMs(), base.networkLatencyThresholdMs(), base.packetLossPercentage());
    }

    String domain(String prefix) {
      return prefix + "." + cluster.name() + "." + cluster.baseDnsDomain();
    }
  }

  private record Outcome(ValidationStatus status, String message) {}

  public HostValidation validate(HostSnapshot host, ClusterContext cluster, Instant now) {
    Inventory inv = host.inventory() != null && host.inventory().isUsable() ? host.inventory() : null;
    Ctx c = new Ctx(host, cluster, inv, now, config);
    Map<String, List<ValidationResult>> out = new LinkedHashMap<>();
    Map<String, ValidationStatus> statuses = new HashMap<>();
    Map<String, Boolean> conditions = new HashMap<>();
    Set<String> ignored = cluster == null ? Set.of() : cluster.ignoredHostValidations();
    if (FrozenValidations.apply(host)) {
      List<FrozenValidations.Fresh> fresh = new ArrayList<>();
      for (HostValidationId id : FrozenValidations.LIVE) {
        Outcome o = config.disabledHostValidations().contains(id.id())
            ? new Outcome(ValidationStatus.DISABLED, DISABLED_BY_CONFIGURATION) : evaluate(id, c);
        fresh.add(new FrozenValidations.Fresh(id, new ValidationResult(id.id(), o.status(), o.message()),
            shown(id, o, host)));
      }
      return FrozenValidations.merge(host, fresh, ignored, diskSpeedCheckSuccessful(host),
          imagesAvailabilitySuccessful(host));
    }

    for (HostValidationId id : HostValidationId.values()) {
      Outcome o;
      if (config.disabledHostValidations().contains(id.id())) {
        o = new Outcome(ValidationStatus.DISABLED, DISABLED_BY_CONFIGURATION);
      } else {
        o = evaluate(id, c);
      }
      statuses.put(id.id(), o.status());
      boolean isIgnored = !HostValidationId.NON_IGNORABLE.contains(id.id())
          && (ignored.contains(id.id()) || ignored.contains("all"));
      conditions.put(id.id(), o.status().passes() || isIgnored);
      if (!shown(id, o, host)) {
        continue;
      }
      out.computeIfAbsent(id.category(), k -> new ArrayList<>()).add(new ValidationResult(id.id(), o.status(), o.message()));
    }
    if (cluster != null) {
      List<ValidationResult> ops = new ArrayList<>();
      for (String op : HostValidationId.OPERATORS) {
        String id = HostValidationId.operatorValidationId(op);
        var known = dev.rendezvous.service.domain.operators.OlmOperator.parse(op);
        OperatorRequirements.Check check = known.isPresent() && cluster.olmOperators().contains(op)
            ? OperatorRequirements.validateHost(known.get(), cluster, host, inv)
            : new OperatorRequirements.Check(SUCCESS, op + " is disabled");
        ops.add(new ValidationResult(id, check.status(), check.message()));
        statuses.put(id, check.status());
        boolean ignoredOp = ignored.contains(id) || ignored.contains("all");
        conditions.put(id, check.status().passes() || ignoredOp);
      }
      ops.sort(java.util.Comparator.comparing(ValidationResult::id));
      out.put("operators", ops);
    }
    return new HostValidation(ValidationsInfo.of(out, host.validationsInfo()), statuses, conditions, diskSpeedCheckSuccessful(host),
        imagesAvailabilitySuccessful(host));
  }

  /** Whether a result is listed in validations_info (some pass silently, some are hidden in some stages). */
  private static boolean shown(HostValidationId id, Outcome o, HostSnapshot host) {
    return o.status() != SUCCESS_SUPPRESS_OUTPUT
        && !(HIDDEN_AFTER_REBOOT.contains(id) && MANUAL_REBOOT_STAGES.contains(host.stage()))
        && !(id == HostValidationId.COMPATIBLE_AGENT && host.stage() != null);
  }

  private Outcome evaluate(HostValidationId id, Ctx c) {
    return switch (id) {
      case CONNECTED -> connected(c);
      case MEDIA_CONNECTED -> c.host().mediaDisconnected()
          ? new Outcome(FAILURE, MEDIA_DISCONNECTED) : new Outcome(SUCCESS, "Media device is connected");
      case HAS_INVENTORY -> c.inventory() != null
          ? new Outcome(SUCCESS, "Valid inventory exists for the host")
          : new Outcome(FAILURE, "Inventory has not been received for the host");
      case HAS_MIN_CPU_CORES -> minCpu(c);
      case HAS_MIN_MEMORY -> minMemory(c);
      case HAS_MIN_VALID_DISKS -> minValidDisks(c);
      case MACHINE_CIDR_DEFINED -> machineCidrDefined(c);
      case HAS_CPU_CORES_FOR_ROLE -> cpuForRole(c);
      case HAS_MEMORY_FOR_ROLE -> memoryForRole(c);
      case HOSTNAME_UNIQUE -> hostnameUnique(c);
      case BELONGS_TO_MACHINE_CIDR -> belongsToMachineCidr(c);
      case HOSTNAME_VALID -> hostnameValid(c);
      case IGNITION_DOWNLOADABLE -> ignitionDownloadable(c);
      case BELONGS_TO_MAJORITY_GROUP -> majorityGroup(c);
      case VALID_PLATFORM_NETWORK_SETTINGS -> platformNetworkSettings(c);
      case NTP_SYNCED -> ntpSynced(c);
      case CONTAINER_IMAGES_AVAILABLE -> imagesAvailable(c);
      case SUFFICIENT_INSTALLATION_DISK_SPEED -> diskSpeed(c);
      case SUFFICIENT_NETWORK_LATENCY -> latency(c);
      case SUFFICIENT_PACKET_LOSS -> packetLoss(c);
      case HAS_DEFAULT_ROUTE -> defaultRoute(c);
      case API_DOMAIN_NAME_RESOLVED -> domainResolved(c, "api", "API load balancer");
      case API_INT_DOMAIN_NAME_RESOLVED -> domainResolved(c, "api-int", "internal API load balancer");
      case APPS_DOMAIN_NAME_RESOLVED -> domainResolved(c, "console-openshift-console.apps", "application ingress");
      case COMPATIBLE_WITH_CLUSTER_PLATFORM -> platformCompatible(c);
      case DNS_WILDCARD_NOT_CONFIGURED -> dnsWildcard(c);
      case DISK_ENCRYPTION_REQUIREMENTS -> diskEncryption(c);
      case NON_OVERLAPPING_SUBNETS -> nonOverlappingSubnets(c);
      case VSPHERE_DISK_UUID_ENABLED -> vsphereUuid(c);
      case COMPATIBLE_AGENT -> compatibleAgent(c);
      case NO_SKIP_INSTALLATION_DISK -> noSkipInstallationDisk(c);
      case NO_SKIP_MISSING_DISK -> noSkipMissingDisk(c);
      case NO_IP_COLLISIONS_IN_NETWORK -> noIpCollisions(c);
      case TIME_SYNCED -> timeSynced(c);
      case RELEASE_DOMAIN_NAME_RESOLVED -> releaseDomain(c);
      case NO_ISCSI_NIC_IN_MACHINE_CIDR -> iscsiNic(c);
      case MTU_VALID -> mtuValid(c);
      case INVENTORY_NOT_PARTIALLY_TRUNCATED -> truncation(c, "partial");
      case INVENTORY_NOT_FULLY_TRUNCATED -> truncation(c, "full");
    };
  }

  // --- connectivity -------------------------------------------------------------------------------

  /** Disconnection is only judged before the Rebooting stage; the bootstrap gets extra time. */
  static boolean isConnected(HostSnapshot h, Instant now, DomainTimeouts t) {
    if (h.checkedInAt() == null || MANUAL_REBOOT_STAGES.contains(h.stage())) {
      return true;
    }
    return Duration.between(h.checkedInAt(), now).compareTo(t.disconnection(h.bootstrap())) <= 0;
  }

  private Outcome connected(Ctx c) {
    return isConnected(c.host(), c.now(), c.cfg().timeouts())
        ? new Outcome(SUCCESS, "Host is connected") : new Outcome(FAILURE, "Host is disconnected");
  }

  // --- hardware -----------------------------------------------------------------------------------

  private Outcome minCpu(Ctx c) {
    if (c.inventory() == null) {
      return new Outcome(PENDING, "Missing inventory");
    }
    int min = c.cfg().hardware().minCpuCoresAnyRole();
    if (c.inventory().cpuCount() >= min) {
      return new Outcome(SUCCESS, "Sufficient CPU cores");
    }
    return new Outcome(FAILURE, String.format("The host is not eligible to participate in Openshift Cluster because "
        + "the minimum required CPU cores for any role is %d, found only %d", min, c.inventory().cpuCount()));
  }

  /** Upstream tolerates 100 MiB missing, and 2% more when the size came from /proc/meminfo. */
  public static long requiredMemoryBytes(long ramMib, Inventory inv) {
    long required = ramMib * 1024 * 1024 - 100L * 1024 * 1024;
    if (inv.memory() != null && "meminfo".equals(inv.memory().physicalBytesMethod())) {
      required = (long) (required * 0.98);
    }
    return required;
  }

  private Outcome minMemory(Ctx c) {
    if (c.inventory() == null) {
      return new Outcome(PENDING, "Missing inventory");
    }
    long min = c.cfg().hardware().minRamMibAnyRole();
    if (c.inventory().physicalMemoryBytes() >= requiredMemoryBytes(min, c.inventory())) {
      return new Outcome(SUCCESS, "Sufficient minimum RAM");
    }
    return new Outcome(FAILURE, String.format("The host is not eligible to participate in Openshift Cluster because "
        + "the minimum required RAM for any role is %s, found only %s", Formats.iecBytes(min * 1024 * 1024),
        Formats.iecBytes(c.inventory().physicalMemoryBytes())));
  }

  private Outcome minValidDisks(Ctx c) {
    if (c.inventory() == null) {
      return new Outcome(PENDING, "Missing inventory");
    }
    if (!eligibleDisks(c).isEmpty()) {
      return new Outcome(SUCCESS, "Sufficient disk capacity");
    }
    return new Outcome(FAILURE, "No eligible disks were found, please check specific disks to see why they are not eligible");
  }

  private List<Inventory.Disk> eligibleDisks(Ctx c) {
    String version = c.cluster() == null ? null : c.cluster().openshiftVersion();
    String arch = c.cluster() == null ? c.inventory().cpu().architecture() : c.cluster().cpuArchitecture();
    return DiskEligibility.eligibleDisks(c.inventory(), c.roleRequirements().diskSizeGb(), version, arch);
  }

  private Outcome cpuForRole(Ctx c) {
    if (c.inventory() == null) {
      return new Outcome(PENDING, "Missing inventory or role");
    }
    int need = c.roleRequirements().cpuCores();
    HostRole role = c.host().effectiveRole();
    if (c.inventory().cpuCount() >= need) {
      return new Outcome(SUCCESS, "Sufficient CPU cores for role " + role);
    }
    return new Outcome(FAILURE, String.format("Require at least %d CPU cores for %s role, found only %d", need, role,
        c.inventory().cpuCount()));
  }

  private Outcome memoryForRole(Ctx c) {
    if (c.inventory() == null) {
      return new Outcome(PENDING, "Missing inventory or role");
    }
    long mib = c.roleRequirements().ramMib();
    HostRole role = c.host().effectiveRole();
    if (c.inventory().physicalMemoryBytes() >= requiredMemoryBytes(mib, c.inventory())) {
      return new Outcome(SUCCESS, "Sufficient RAM for role " + role);
    }
    return new Outcome(FAILURE, String.format("Require at least %s RAM for role %s, found only %s",
        Formats.iecBytes(mib * 1024 * 1024), role, Formats.iecBytes(c.inventory().physicalMemoryBytes())));
  }

  private Outcome hostnameUnique(Ctx c) {
    if (c.unbound()) {
      return new Outcome(SUCCESS_SUPPRESS_OUTPUT, "");
    }
    if (c.inventory() == null) {
      return new Outcome(PENDING, "Missing inventory");
    }
    String name = c.host().hostname();
    // the others: the cluster's copy of this host (maybe an older one) does not count
    HostSnapshot self = c.cluster().host(c.host().id()).orElse(null);
    int others = c.cluster().hostsNamed(name)
        - (self != null && self.inventory() != null && name.equals(self.hostname()) ? 1 : 0);
    if (others > 0) {
      return new Outcome(FAILURE, "Hostname " + name + " is not unique in cluster");
    }
    return new Outcome(SUCCESS, "Hostname " + name + " is unique in cluster");
  }

  private Outcome hostnameValid(Ctx c) {
    if (c.inventory() == null) {
      return new Outcome(FAILURE, "Missing inventory");
    }
    String name = c.host().hostname();
    if (FORBIDDEN_HOSTNAMES.contains(name)) {
      return new Outcome(FAILURE, "The host name " + name + " is forbidden");
    }
    if (!HOSTNAME.matcher(name).matches()) {
      return new Outcome(FAILURE, "Hostname " + name + " is forbidden, hostname should match pattern " + HOSTNAME_PATTERN);
    }
    return new Outcome(SUCCESS, "Hostname " + name + " is allowed");
  }

  private Outcome platformCompatible(Ctx c) {
    if (c.unbound()) {
      return new Outcome(SUCCESS_SUPPRESS_OUTPUT, "");
    }
    String platform = c.cluster().platformType();
    if (c.cluster().day2()) {
      return new Outcome(SUCCESS, "Host is compatible with cluster platform " + platform);
    }
    if (c.inventory() == null || platform.isEmpty()) {
      return new Outcome(PENDING, "Missing inventory or platform isn't set");
    }
    List<String> supported = supportedPlatforms(c.inventory());
    if (supported.contains(platform)) {
      return new Outcome(SUCCESS, "Host is compatible with cluster platform " + platform);
    }
    return new Outcome(FAILURE, String.format("Host is not compatible with cluster platform %s; either disable this "
        + "host or choose a compatible cluster platform ([%s])", platform, String.join(" ", supported)));
  }

  static List<String> supportedPlatforms(Inventory inv) {
    List<String> out = new ArrayList<>(List.of("baremetal", "none"));
    String manufacturer = inv.systemVendor() == null ? "" : String.valueOf(inv.systemVendor().manufacturer());
    String product = inv.systemVendor() == null ? "" : String.valueOf(inv.systemVendor().productName());
    if (manufacturer.toLowerCase(Locale.ROOT).contains("vmware")) {
      out.add("vsphere");
    }
    if (manufacturer.toLowerCase(Locale.ROOT).contains("nutanix") || product.equals("AHV")) {
      out.add("nutanix");
    }
    out.add("external");
    return out;
  }

  private Outcome diskEncryption(Ctx c) {
    if (c.unbound() || "none".equals(c.cluster().diskEncryption().enableOn())) {
      return new Outcome(SUCCESS_SUPPRESS_OUTPUT, "");
    }
    if (c.inventory() == null) {
      return new Outcome(PENDING, "Missing host inventory");
    }
    HostRole role = c.host().effectiveRole();
    if (role == HostRole.AUTO_ASSIGN) {
      return new Outcome(PENDING, "Missing role assignment");
    }
    ClusterContext.DiskEncryption de = c.cluster().diskEncryption();
    if (!de.enabledFor(role)) {
      return new Outcome(SUCCESS_SUPPRESS_OUTPUT, "");
    }
    if ("tang".equals(de.mode())) {
      if (c.host().tangConnectivity() == null) {
        return new Outcome(PENDING, "");
      }
      if (!c.host().tangConnectivity().isSuccess()) {
        return new Outcome(FAILURE, "Could not validate that all Tang servers are reachable and working: "
            + StepOutputs.toJson(c.host().tangConnectivity()));
      }
      return new Outcome(SUCCESS, "Installation disk can be encrypted using tang");
    }
    String tpm = c.inventory().tpmVersion();
    if ("2.0".equals(tpm)) {
      return new Outcome(SUCCESS, "Installation disk can be encrypted using tpmv2");
    }
    if (tpm == null || "none".equals(tpm)) {
      return new Outcome(FAILURE, "TPM version could not be found, make sure TPM is enabled in host's BIOS");
    }
    return new Outcome(FAILURE, "The host's TPM version is not supported, expected-version: 2.0, actual-version: " + tpm);
  }

  private Outcome vsphereUuid(Ctx c) {
    if (c.inventory() == null) {
      return new Outcome(PENDING, "Validation pending - no inventory");
    }
    if (c.cluster() == null) {
      return new Outcome(PENDING, "Validation pending - no cluster");
    }
    if (!"vsphere".equals(c.cluster().platformType())) {
      return new Outcome(SUCCESS, "VSphere disk.EnableUUID is enabled for this virtual machine");
    }
    for (Inventory.Disk d : c.inventory().disks()) {
      if (DiskEligibility.validStorageDeviceType(d) && !d.hasUuid()) {
        return new Outcome(FAILURE,
            "VSphere disk.EnableUUID isn't enabled for this virtual machine, it's necessary for disks to be mounted properly");
      }
    }
    return new Outcome(SUCCESS, "VSphere disk.EnableUUID is enabled for this virtual machine");
  }

  private Outcome compatibleAgent(Ctx c) {
    if (!c.cfg().enableUpgradeAgent()) {
      return new Outcome(SUCCESS, "Host agent compatibility checking is disabled");
    }
    if (c.cfg().agentImage().equals(c.host().discoveryAgentVersion())) {
      return new Outcome(SUCCESS, "Host agent is compatible with the service");
    }
    return new Outcome(FAILURE,
        "This host's agent is in the process of being upgraded to a compatible version. This might take a few minutes");
  }

  private Outcome noSkipInstallationDisk(Ctx c) {
    String disk = c.host().installationDiskId();
    if (disk == null || disk.isEmpty() || !c.host().skipFormattingDiskIds().contains(disk)) {
      return new Outcome(SUCCESS, "No request to skip formatting of the installation disk");
    }
    return new Outcome(FAILURE, "Requesting to skip the formatting of the installation disk is not allowed. The "
        + "installation disk must be formatted. Please either change this host's installation disk or do not skip "
        + "the formatting of the installation disk");
  }

  private Outcome noSkipMissingDisk(Ctx c) {
    if (c.host().inventory() == null) {
      return new Outcome(PENDING, "Host inventory not available yet");
    }
    for (String id : c.host().skipFormattingDiskIds()) {
      boolean found = c.host().inventory().disks().stream().anyMatch(d -> d.identifier().equals(id));
      if (!found) {
        return new Outcome(FAILURE, "One or more of the disks that you have requested to skip the formatting of are "
            + "no longer present on this host. To ensure they haven't just changed their identity, please remove your "
            + "request to skip their formatting and then if needed add them back using the new ID");
      }
    }
    return new Outcome(SUCCESS, "All disks that have skipped formatting are present in the host inventory");
  }

  private Outcome truncation(Ctx c, String kind) {
    Inventory inv = c.host().inventory();
    Inventory.Truncation t = inv == null ? null : inv.truncation();
    if (t != null && kind.equals(t.type())) {
      String what = kind.equals("full") ? "fully" : "partially";
      return new Outcome(FAILURE, "The host inventory was " + what + " truncated by the agent: " + String.join(", ", t.reasons()));
    }
    return new Outcome(SUCCESS, kind.equals("full") ? "The host inventory is not fully truncated"
        : "The host inventory is not partially truncated");
  }

  private Outcome diskSpeed(Ctx c) {
    HostSnapshot.DiskSpeed s = c.host().installationDiskPath() == null ? null : c.host().diskSpeeds().get(c.host().installationDiskPath());
    if (s == null || !s.tested()) {
      return new Outcome(SUCCESS, "Speed of installation disk has not yet been measured");
    }
    if (s.exitCode() == 0) {
      return new Outcome(SUCCESS, "Speed of installation disk is sufficient");
    }
    return new Outcome(FAILURE,
        "While preparing the previous installation the installation disk speed measurement failed or was found to be insufficient");
  }

  static boolean diskSpeedCheckSuccessful(HostSnapshot h) {
    // as upstream: a host booted from a persistent disk, or keeping partitions, is never sent the check (see the
    // planner), so there is nothing to wait for
    boolean persistentBoot = h.inventory() != null && h.inventory().boot() != null
        && "persistent".equals(h.inventory().boot().deviceType());
    if (persistentBoot || h.installerArgs().stream()
        .anyMatch(a -> a.startsWith("--save-partindex") || a.startsWith("--save-partlabel"))) {
      return true;
    }
    HostSnapshot.DiskSpeed s = h.installationDiskPath() == null ? null : h.diskSpeeds().get(h.installationDiskPath());
    return s != null && s.tested() && s.exitCode() == 0;
  }

  private boolean imagesAvailabilitySuccessful(HostSnapshot h) {
    for (String image : config.requiredImages()) {
      boolean ok = h.imagesStatus().stream().anyMatch(s -> s.name().equals(image) && "success".equals(s.result()) && !s.invalid());
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  // --- network ------------------------------------------------------------------------------------

  private Outcome machineCidrDefined(Ctx c) {
    if (c.unbound()) {
      return new Outcome(SUCCESS_SUPPRESS_OUTPUT, "");
    }
    if (c.umn()) {
      return new Outcome(SUCCESS, "No Machine Network CIDR needed: User Managed Networking");
    }
    if (c.cluster().day2()) {
      return new Outcome(SUCCESS, "No Machine Network CIDR needed: Day2 cluster");
    }
    if (!c.cluster().machineNetworks().isEmpty()) {
      return new Outcome(SUCCESS, "Machine Network CIDR is defined");
    }
    if (c.cluster().vipDhcpAllocation()) {
      return new Outcome(FAILURE, "Machine Network CIDR is undefined");
    }
    return new Outcome(FAILURE, "Machine Network CIDR is undefined; the Machine Network CIDR can be defined by "
        + "setting either the API or Ingress virtual IPs");
  }

  private Outcome belongsToMachineCidr(Ctx c) {
    if (c.unbound()) {
      return new Outcome(SUCCESS_SUPPRESS_OUTPUT, "");
    }
    if (c.umn() && !c.sno()) {
      return new Outcome(SUCCESS, "No machine network CIDR validation needed: User Managed Networking");
    }
    if (c.cluster().day2()) {
      return new Outcome(SUCCESS, "No machine network CIDR validation needed: Day2 cluster");
    }
    if (c.inventory() == null || c.cluster().machineNetworks().isEmpty()) {
      return new Outcome(PENDING, "Missing inventory or machine network CIDR");
    }
    for (String net : c.cluster().machineNetworks()) {
      if (!hasAddressIn(c.inventory(), net)) {
        return new Outcome(FAILURE, "Host does not belong to machine network CIDRs. Verify that the host belongs to "
            + "every CIDR listed under machine networks");
      }
    }
    return new Outcome(SUCCESS, "Host belongs to all machine network CIDRs");
  }

  static boolean hasAddressIn(Inventory inv, String cidr) {
    Optional<Cidr> net = Cidr.parse(cidr);
    if (net.isEmpty()) {
      return false;
    }
    for (String a : inv.allCidrAddresses()) {
      Optional<Cidr> addr = Cidr.parse(a);
      if (addr.isPresent() && net.get().containsAddress(addr.get().addressString())) {
        return true;
      }
    }
    return false;
  }

  private Outcome ignitionDownloadable(Ctx c) {
    if (c.unbound() || !c.host().day2()) {
      return new Outcome(SUCCESS_SUPPRESS_OUTPUT, "");
    }
    var r = c.host().apiVipConnectivity();
    if (r == null) {
      return new Outcome(PENDING, "Ignition is not yet available, pending API connectivity");
    }
    if (r.isSuccess()) {
      return new Outcome(SUCCESS, "Ignition is downloadable");
    }
    if (r.url() == null || r.url().isEmpty()) {
      return new Outcome(FAILURE,
          "This host has failed to download the ignition file from the cluster, please ensure the host can reach the cluster");
    }
    return new Outcome(FAILURE, String.format("This host has failed to download the ignition file from %s with the "
        + "following error: %s. Please ensure the host can reach this URL", r.url(), r.downloadError()));
  }

  private Outcome majorityGroup(Ctx c) {
    if (c.unbound()) {
      return new Outcome(SUCCESS_SUPPRESS_OUTPUT, "");
    }
    if (c.host().day2()) {
      return new Outcome(SUCCESS, "Day2 host is not required to be connected to other hosts in the cluster");
    }
    if (c.sno()) {
      return new Outcome(SUCCESS, "Host has connectivity to the majority of hosts in the cluster");
    }
    MajorityGroups groups = c.cluster().connectivityMajorityGroups();
    if (groups == null) {
      return new Outcome(PENDING, "Machine Network CIDR or Connectivity Majority Groups missing");
    }
    ValidationStatus st;
    if (c.umn()) {
      boolean v4 = families(c.cluster(), true);
      boolean v6 = families(c.cluster(), false);
      if (!v4 && !v6) {
        st = FAILURE;
      } else {
        boolean ok = (!v4 || groups.groupFor(MajorityGroups.IPV4).contains(c.host().id()))
            && (!v6 || groups.groupFor(MajorityGroups.IPV6).contains(c.host().id()));
        st = ok ? SUCCESS : FAILURE;
      }
    } else if (c.cluster().machineNetworks().isEmpty()) {
      st = PENDING;
    } else {
      st = SUCCESS;
      for (String net : c.cluster().machineNetworks()) {
        Optional<Cidr> cidr = Cidr.parse(net);
        if (cidr.isEmpty()) {
          st = ERROR;
          break;
        }
        if (!groups.groupForNetwork(cidr.get()).contains(c.host().id())) {
          st = FAILURE;
          break;
        }
      }
    }
    if (st == FAILURE && c.cluster().hosts().size() < 3) {
      return new Outcome(PENDING, "Not enough hosts in cluster to calculate connectivity groups");
    }
    return switch (st) {
      case SUCCESS -> new Outcome(SUCCESS, "Host has connectivity to the majority of hosts in the cluster");
      case FAILURE -> new Outcome(FAILURE, "No connectivity to the majority of hosts in the cluster");
      case PENDING -> new Outcome(PENDING, "Not enough information to calculate host majority groups");
      default -> new Outcome(st, "Unexpected status " + st);
    };
  }

  /** Address families configured on the cluster (machine, cluster and service networks). */
  static boolean families(ClusterContext cl, boolean v4) {
    List<String> all = new ArrayList<>(cl.machineNetworks());
    cl.clusterNetworks().forEach(n -> all.add(n.cidr()));
    all.addAll(cl.serviceNetworks());
    return all.stream().map(Cidr::parse).flatMap(Optional::stream).anyMatch(x -> x.isIpv4() == v4);
  }

  private Outcome platformNetworkSettings(Ctx c) {
    if (c.inventory() == null) {
      return new Outcome(PENDING, "Missing inventory");
    }
    if (c.inventory().systemVendor() == null) {
      return new Outcome(ERROR, "Validation error");
    }
    String product = c.inventory().systemVendor().productName();
    if ("OpenStack Compute".equals(product)) {
      if (c.unbound()) {
        return new Outcome(SUCCESS_SUPPRESS_OUTPUT, "");
      }
      if (c.umn()) {
        return new Outcome(SUCCESS, "Platform " + product + " is allowed");
      }
      return new Outcome(FAILURE, "Platform " + product + " is allowed only for Single Node OpenShift or user-managed networking");
    }
    return new Outcome(SUCCESS, "Platform " + product + " is allowed");
  }

  private Outcome ntpSynced(Ctx c) {
    List<StepOutputs.NtpSource> sources = c.host().ntpSources();
    if (sources != null && sources.stream().anyMatch(s -> "synced".equals(s.sourceState()))) {
      return new Outcome(SUCCESS, "Host NTP is synced");
    }
    if (c.unbound() && (sources == null || sources.isEmpty())) {
      return new Outcome(SUCCESS_SUPPRESS_OUTPUT, "");
    }
    return new Outcome(FAILURE, "Host couldn't synchronize with any NTP server");
  }

  private Outcome timeSynced(Ctx c) {
    if (c.host().hostTimestamp() == 0) {
      return new Outcome(PENDING, "Missing host time, can't determine synchronization between host and service");
    }
    Duration diff = Duration.between(Instant.ofEpochSecond(c.host().hostTimestamp()), c.now());
    String serviceTime = DateTimeFormatter.ISO_INSTANT.format(c.now().atOffset(ZoneOffset.UTC));
    if (diff.compareTo(Duration.ofMinutes(20)) > 0) {
      return new Outcome(FAILURE, "Host clock is not synchronized, service time is ahead of host's at least for 20.0 "
          + "minutes, please configure an NTP server via DHCP or set clock manually. Service time: " + serviceTime);
    }
    if (diff.compareTo(Duration.ofMinutes(-60)) < 0) {
      return new Outcome(FAILURE, "Host clock is not synchronized, host time is ahead of service at least for 60.0 "
          + "minutes, please configure an NTP server via DHCP or set clock manually. Service time: " + serviceTime);
    }
    return new Outcome(SUCCESS, "Host clock is synchronized with service");
  }

  private Outcome imagesAvailable(Ctx c) {
    List<String> failed = c.host().imagesStatus().stream()
        .filter(StepOutputs.ImageAvailability::invalid).map(StepOutputs.ImageAvailability::name).toList();
    if (!failed.isEmpty()) {
      return new Outcome(FAILURE, "Failed to fetch container images needed for installation from "
          + String.join(",", failed) + ". This may be due to a network hiccup. Retry to install again. If this "
          + "problem persists, check your network settings to make sure you’re not blocked.");
    }
    return new Outcome(SUCCESS,
        "All required container images were either pulled successfully or no attempt was made to pull them");
  }

  private boolean latencyOrLossNotApplicable(Ctx c, Double threshold) {
    return c.cluster().hosts().size() == 1 || threshold == null
        || c.host().effectiveRole() == HostRole.AUTO_ASSIGN || c.host().day2();
  }

  private Outcome latency(Ctx c) {
    if (c.unbound()) {
      return new Outcome(SUCCESS_SUPPRESS_OUTPUT, "");
    }
    Double threshold = c.roleRequirements().networkLatencyThresholdMs();
    if (latencyOrLossNotApplicable(c, threshold)) {
      return new Outcome(SUCCESS, "Network latency requirement has been satisfied.");
    }
    if (c.host().connectivity() == null) {
      return new Outcome(PENDING, "Missing network latency information.");
    }
    List<String> failed = peersOverThreshold(c, ConnectivityReport::l3AverageRttMs, threshold, "%.2f ms");
    if (failed.isEmpty()) {
      return new Outcome(SUCCESS, "Network latency requirement has been satisfied.");
    }
    return new Outcome(FAILURE, String.format(Locale.ROOT,
        "Network latency requirements of %s %.2f ms not met for connectivity between %s and%s.",
        comparison(threshold), threshold, c.host().id(), String.join(",", failed)));
  }

  private Outcome packetLoss(Ctx c) {
    if (c.unbound()) {
      return new Outcome(SUCCESS_SUPPRESS_OUTPUT, "");
    }
    Double threshold = c.roleRequirements().packetLossPercentage();
    if (latencyOrLossNotApplicable(c, threshold)) {
      return new Outcome(SUCCESS, "Packet loss requirement has been satisfied.");
    }
    if (c.host().connectivity() == null) {
      return new Outcome(PENDING, "Missing packet loss information.");
    }
    List<String> failed = peersOverThreshold(c, ConnectivityReport::l3PacketLossPercentage, threshold, "%.2f%%");
    if (failed.isEmpty()) {
      return new Outcome(SUCCESS, "Packet loss requirement has been satisfied.");
    }
    return new Outcome(FAILURE, String.format(Locale.ROOT,
        "Packet loss percentage requirement of %s %.2f%% not met for connectivity between %s and%s.",
        comparison(threshold), threshold, c.host().id(), String.join(",", failed)));
  }

  private static String comparison(double v) {
    return v > 0 ? "less than or equals" : "equals";
  }

  /** An L3 measurement of a report, by entry index. */
  private interface L3Measure {
    double of(ConnectivityReport report, int entry);
  }

  /** Same-role peers whose L3 measurement is over the threshold, as " hostname (value)". */
  private List<String> peersOverThreshold(Ctx c, L3Measure measure, double threshold, String format) {
    List<String> out = new ArrayList<>();
    Set<String> seen = new java.util.HashSet<>();
    ConnectivityReport report = c.host().connectivity();
    for (int p = 0; p < report.peerCount(); p++) {
      Optional<HostSnapshot> peer = Optional.empty();
      for (int k = report.l3Start(p); k < report.l3End(p); k++) {
        double v = measure.of(report, k);
        if (!(v > threshold)) {
          continue;
        }
        if (peer.isEmpty()) { // looked up only for a peer over the threshold: a 1,000-host cluster has ~none
          peer = c.cluster().host(report.peerId(p));
          if (peer.isEmpty() || peer.get().effectiveRole() != c.host().effectiveRole()) {
            break;
          }
        }
        if (seen.add(report.l3RemoteIpAddress(k))) {
          out.add(" " + peer.get().hostname() + " (" + String.format(Locale.ROOT, format, v) + ")");
        }
      }
    }
    return out;
  }

  public static boolean isDefaultRoute(Inventory.Route r) {
    if (r.destination() == null || r.destination().isEmpty() || r.gateway() == null || r.gateway().isEmpty()) {
      return false;
    }
    Optional<Cidr> dst = Cidr.parse(r.destination());
    Optional<Cidr> gw = Cidr.parse(r.gateway());
    if (dst.isEmpty() || gw.isEmpty()) {
      return false;
    }
    return isUnspecified(dst.get()) && !isUnspecified(gw.get());
  }

  private static boolean isUnspecified(Cidr c) {
    for (byte b : c.address()) {
      if (b != 0) {
        return false;
      }
    }
    return true;
  }

  private Outcome defaultRoute(Ctx c) {
    if (c.inventory() == null) {
      return new Outcome(PENDING, "Missing default routing information.");
    }
    if (c.inventory().routes().stream().anyMatch(HostValidator::isDefaultRoute)) {
      return new Outcome(SUCCESS, "Host has been configured with at least one default route.");
    }
    return new Outcome(FAILURE, "Host has not yet been configured with a default route.");
  }

  /** Null: resolution must be checked; otherwise the status to return without checking. */
  private ValidationStatus dnsValidationShortcut(Ctx c) {
    boolean managed = !c.cluster().userManagedNetworking();
    if (managed) {
      return SUCCESS;
    }
    if (!c.cluster().day2() && c.cluster().singleNode()) {
      return SUCCESS; // day-1 SNO: the dnsmasq configuration on the node provides the records
    }
    if (c.cluster().baseDnsDomain() == null || c.cluster().baseDnsDomain().isEmpty()) {
      return ERROR;
    }
    return null;
  }

  private Outcome domainResolved(Ctx c, String prefix, String target) {
    if (c.unbound()) {
      return new Outcome(SUCCESS_SUPPRESS_OUTPUT, "");
    }
    String domain = c.domain(prefix);
    String printed = prefix.startsWith("console-openshift-console.apps") ? c.domain("*.apps") : domain;
    ValidationStatus st = dnsValidationShortcut(c);
    if (st == null) {
      st = checkResolution(c, domain);
    }
    boolean noBase = c.cluster().baseDnsDomain() == null || c.cluster().baseDnsDomain().isEmpty();
    return switch (st) {
      case SUCCESS -> new Outcome(SUCCESS, "Domain name resolution for the " + (noBase ? target : printed)
          + " domain was successful or not required");
      case PENDING -> new Outcome(PENDING, "DNS validation for the " + (noBase ? target : printed)
          + " domain cannot be completed at the moment. This could be due to other validations");
      case ERROR -> new Outcome(ERROR, noBase
          ? "DNS validation for the " + target + " domain cannot be completed because the cluster does not have "
              + "base_dns_domain set. Please update the cluster with the correct base_dns_domain"
          : "Error while evaluating DNS resolution on this host");
      default -> {
        Optional<String> own = resolvesToOwnAddress(c, domain);
        if (own.isPresent()) {
          yield new Outcome(FAILURE, "Domain " + printed + " must not point at " + own.get() + " as it is the API "
              + "address of this host. This domain must instead point at the IP address of a load balancer when "
              + "using user managed networking in a multi control-plane node cluster");
        }
        yield new Outcome(FAILURE, "Couldn't resolve domain name " + printed + " on the host. To continue "
            + "installation, create the necessary DNS entries to resolve this domain name to your cluster's "
            + target + " IP address");
      }
    };
  }

  private static Optional<StepOutputs.Resolution> firstResolution(HostSnapshot h, String domain) {
    if (h.domainResolutions() == null) {
      return Optional.empty();
    }
    return h.domainResolutions().resolutions().stream()
        .filter(r -> domain.equals(r.domainName()) && r.resolved()).findFirst();
  }

  private ValidationStatus checkResolution(Ctx c, String domain) {
    if (c.host().domainResolutions() == null) {
      return ERROR;
    }
    Optional<StepOutputs.Resolution> r = firstResolution(c.host(), domain);
    if (r.isEmpty()) {
      return FAILURE;
    }
    return resolvesToOwnAddress(c, domain).isPresent() ? FAILURE : SUCCESS;
  }

  private Optional<String> resolvesToOwnAddress(Ctx c, String domain) {
    Optional<StepOutputs.Resolution> r = firstResolution(c.host(), domain);
    if (r.isEmpty() || c.inventory() == null) {
      return Optional.empty();
    }
    List<String> own = c.inventory().allCidrAddresses().stream()
        .map(Cidr::parse).flatMap(Optional::stream).map(Cidr::addressString).toList();
    List<String> resolved = new ArrayList<>(r.get().ipv4Addresses());
    resolved.addAll(r.get().ipv6Addresses());
    return resolved.stream()
        .filter(a -> own.contains(Cidr.parse(a).map(Cidr::addressString).orElse(a))).findFirst();
  }

  private Outcome dnsWildcard(Ctx c) {
    if (c.unbound()) {
      return new Outcome(SUCCESS_SUPPRESS_OUTPUT, "");
    }
    if (c.host().day2()) {
      return new Outcome(SUCCESS, "DNS wildcard check is not required for day2");
    }
    if (c.host().domainResolutions() == null) {
      return new Outcome(PENDING,
          "DNS wildcard check cannot be performed yet because the host has not yet performed DNS resolution");
    }
    String name = c.domain("validateNoWildcardDNS");
    for (StepOutputs.Resolution r : c.host().domainResolutions().resolutions()) {
      if (name.equals(r.domainName()) && !r.resolved()) {
        return new Outcome(SUCCESS, "DNS wildcard check was successful");
      }
    }
    return new Outcome(FAILURE, String.format("DNS wildcard configuration was detected for domain *.%s.%s The "
        + "installation will not be able to complete while the entry exists. Please remove it to proceed.",
        c.cluster().name(), c.cluster().baseDnsDomain()));
  }

  private Outcome releaseDomain(Ctx c) {
    String domain = c.cfg().releaseDomain();
    if (c.unbound() || domain == null || domain.isEmpty()) {
      return new Outcome(SUCCESS_SUPPRESS_OUTPUT, "");
    }
    if (c.host().domainResolutions() == null) {
      return new Outcome(PENDING, "DNS validation for the " + domain
          + " domain cannot be completed at the moment. This could be due to other validations");
    }
    if (firstResolution(c.host(), domain).isPresent()) {
      return new Outcome(SUCCESS, "Domain name resolution for the " + domain + " domain was successful or not required");
    }
    return new Outcome(FAILURE, "Couldn't resolve domain name " + domain + " on the host. To continue installation, "
        + "create the necessary DNS entries to resolve this domain name to your release image registry");
  }

  private Outcome nonOverlappingSubnets(Ctx c) {
    if (c.inventory() == null || c.cluster() == null) {
      return new Outcome(PENDING, "Missing inventory, or missing cluster");
    }
    for (boolean v4 : new boolean[] {true, false}) {
      if (!families(c.cluster(), v4)) {
        continue;
      }
      List<String[]> nets = new ArrayList<>();
      for (Inventory.NetInterface i : c.inventory().interfaces()) {
        for (String a : v4 ? i.ipv4Addresses() : i.ipv6Addresses()) {
          Cidr.parse(a).ifPresent(x -> nets.add(new String[] {x.network().toString(), i.name()}));
        }
      }
      for (int i = 0; i < nets.size(); i++) {
        for (int j = i + 1; j < nets.size(); j++) {
          String[] a = nets.get(i);
          String[] b = nets.get(j);
          if (a[0].equals(b[0])) {
            return new Outcome(FAILURE, String.format("Address networks are overlapping: Address network %s appears "
                + "on multiple interfaces [%s, %s]", a[0], a[1], b[1]));
          }
          if (Cidr.parse(a[0]).orElseThrow().overlaps(Cidr.parse(b[0]).orElseThrow())) {
            return new Outcome(FAILURE, String.format("Address networks are overlapping: Address networks %s in "
                + "interface %s and %s in interface %s overlap", a[0], a[1], b[0], b[1]));
          }
        }
      }
    }
    return new Outcome(SUCCESS, "Host subnets are not overlapping");
  }

  private Outcome noIpCollisions(Ctx c) {
    if (c.cluster() == null) {
      return new Outcome(SUCCESS, "Cluster has not yet been defined, skipping validation.");
    }
    if (c.inventory() == null) {
      return new Outcome(SUCCESS, "Host inventory has not yet been defined, skipping validation.");
    }
    if (c.cluster().day2()) {
      return new Outcome(SUCCESS, "Skipping validation for day 2 host " + c.host().id());
    }
    if (c.cluster().ipCollisions().isEmpty()) {
      return new Outcome(SUCCESS, "IP collisions have not yet been evaluated");
    }
    List<String> own = c.inventory().allCidrAddresses().stream()
        .map(Cidr::parse).flatMap(Optional::stream).map(Cidr::addressString).toList();
    StringBuilder text = new StringBuilder();
    for (var e : new java.util.TreeMap<>(c.cluster().ipCollisions()).entrySet()) {
      String ip = Cidr.parse(e.getKey()).map(Cidr::addressString).orElse(e.getKey());
      if (own.contains(ip)) {
        text.append(String.format("Collisions detected for host ID %s, IP address: %s Mac addresses: %s%n",
            c.host().id(), e.getKey(), String.join(",", e.getValue())));
      }
    }
    if (text.length() > 0) {
      return new Outcome(FAILURE, text.toString().replace(System.lineSeparator(), "\n"));
    }
    return new Outcome(SUCCESS, "No IP collisions were detected by host " + c.host().id());
  }

  private Outcome iscsiNic(Ctx c) {
    Optional<Inventory.Disk> disk = c.host().installationDisk();
    if (c.unbound() || disk.isEmpty() || !"iSCSI".equals(disk.get().driveType()) || disk.get().iscsi() == null) {
      return new Outcome(SUCCESS, "Installation disk is not an iSCSI disk");
    }
    String hostIp = disk.get().iscsi().hostIpAddress();
    for (String net : c.cluster().machineNetworks()) {
      if (Cidr.parse(net).map(n -> n.containsAddress(hostIp)).orElse(false)) {
        return new Outcome(FAILURE, "Cannot use iSCSI installation disk: the network interface used to reach the "
            + "iSCSI target (" + hostIp + ") belongs to machine network " + net);
      }
    }
    return new Outcome(SUCCESS, "The network interface used by the iSCSI installation disk does not belong to a machine network");
  }

  private Outcome mtuValid(Ctx c) {
    if (c.unbound()) {
      return new Outcome(SUCCESS_SUPPRESS_OUTPUT, "");
    }
    if (c.host().connectivity() == null) {
      // a host alone in its cluster gets no connectivity check: there is nobody to test the MTU against
      return c.cluster().hosts().size() <= 1 ? new Outcome(SUCCESS, "MTU is ok")
          : new Outcome(PENDING, "Missing MTU information");
    }
    ConnectivityReport report = c.host().connectivity();
    for (int p = 0; p < report.peerCount(); p++) {
      for (int k = report.mtuStart(p); k < report.mtuEnd(p); k++) {
        String ip = report.mtuRemoteIpAddress(k);
        boolean relevant = c.umn() || c.cluster().machineNetworks().stream()
            .anyMatch(n -> Cidr.parse(n).map(x -> x.containsAddress(ip)).orElse(false));
        if (relevant && !report.mtuSuccessful(k)) {
          return new Outcome(FAILURE, String.format("MTU is broken. Interface: %s, remote IP address: %s",
              report.mtuOutgoingNic(k), ip));
        }
      }
    }
    return new Outcome(SUCCESS, "MTU is ok");
  }
}
