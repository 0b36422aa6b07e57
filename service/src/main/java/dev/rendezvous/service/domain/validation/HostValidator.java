package dev.rendezvous.service.domain.validation;

import static dev.rendezvous.service.domain.validation.ValidationStatus.FAILURE;
import static dev.rendezvous.service.domain.validation.ValidationStatus.PENDING;
import static dev.rendezvous.service.domain.validation.ValidationStatus.SUCCESS;
import static dev.rendezvous.service.domain.validation.ValidationStatus.SUCCESS_SUPPRESS_OUTPUT;

import dev.rendezvous.service.domain.DomainConfig;
import dev.rendezvous.service.domain.DomainTimeouts;
import dev.rendezvous.service.domain.cluster.ClusterContext;
import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.host.HostStage;
import dev.rendezvous.service.domain.host.Inventory;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Evaluates every host validation of upstream's validator.go (ids, statuses and messages as upstream) for
 * one host in its cluster (or unbound, {@code cluster == null}) at time {@code now}. The checks themselves live
 * by concept in {@code HardwareChecks}, {@code NetworkChecks}, {@code DnsChecks}, {@code PlatformChecks} and
 * {@code AgentChecks}; connectivity and hostname checks stay here with the constants they use.
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

  public HostValidation validate(HostSnapshot host, ClusterContext cluster, Instant now) {
    return validate(host, cluster, now, now);
  }

  /** {@code judged}: the instant the host's silence is measured at (no later than {@code now}; see HostStateMachine). */
  public HostValidation validate(HostSnapshot host, ClusterContext cluster, Instant now, Instant judged) {
    Inventory inv = host.inventory() != null && host.inventory().isUsable() ? host.inventory() : null;
    HostCheckContext c = new HostCheckContext(host, cluster, inv, now, judged, config);
    Map<String, List<ValidationResult>> out = new LinkedHashMap<>();
    HostValidation.Slots slots = new HostValidation.Slots();
    Set<String> ignored = cluster == null ? Set.of() : cluster.ignoredHostValidations();
    if (FrozenValidations.apply(host)) {
      List<FrozenValidations.Fresh> fresh = new ArrayList<>();
      for (HostValidationId id : FrozenValidations.LIVE) {
        CheckOutcome o = config.disabledHostValidations().contains(id.id())
            ? new CheckOutcome(ValidationStatus.DISABLED, DISABLED_BY_CONFIGURATION) : evaluate(id, c);
        fresh.add(new FrozenValidations.Fresh(id, new ValidationResult(id.id(), o.status(), o.message()),
            shown(id, o, host)));
      }
      return FrozenValidations.merge(host, fresh, ignored, HardwareChecks.diskSpeedCheckSuccessful(host),
          imagesAvailabilitySuccessful(host));
    }

    boolean ignoreAll = ignored.contains("all");
    boolean ignoreSome = ignoreAll || !ignored.isEmpty();
    Set<String> disabled = config.disabledHostValidations();
    for (HostValidationId id : HostValidationId.values()) {
      CheckOutcome o;
      if (!disabled.isEmpty() && disabled.contains(id.id())) {
        o = new CheckOutcome(ValidationStatus.DISABLED, DISABLED_BY_CONFIGURATION);
      } else {
        o = evaluate(id, c);
      }
      boolean isIgnored = ignoreSome && !HostValidationId.NON_IGNORABLE.contains(id.id())
          && (ignoreAll || ignored.contains(id.id()));
      slots.put(id, o.status(), o.status().passes() || isIgnored);
      if (!shown(id, o, host)) {
        continue;
      }
      out.computeIfAbsent(id.category(), k -> new ArrayList<>()).add(new ValidationResult(id.id(), o.status(), o.message()));
    }
    if (cluster != null) {
      ValidationResult[] ops = new ValidationResult[OperatorChecks.COUNT];
      for (int i = 0; i < OperatorChecks.COUNT; i++) {
        ValidationResult r = OperatorChecks.result(i, cluster, host, inv);
        ops[OperatorChecks.position(i)] = r;
        boolean ignoredOp = ignoreSome && (ignoreAll || ignored.contains(r.id()));
        slots.putOperator(i, r.status(), r.status().passes() || ignoredOp);
      }
      out.put("operators", java.util.Arrays.asList(ops));
    }
    return slots.build(ValidationsInfo.of(out, host.validationsInfo()), HardwareChecks.diskSpeedCheckSuccessful(host),
        imagesAvailabilitySuccessful(host));
  }

  /** Whether a result is listed in validations_info (some pass silently, some are hidden in some stages). */
  private static boolean shown(HostValidationId id, CheckOutcome o, HostSnapshot host) {
    return o.status() != SUCCESS_SUPPRESS_OUTPUT
        && !(HIDDEN_AFTER_REBOOT.contains(id) && MANUAL_REBOOT_STAGES.contains(host.stage()))
        && !(id == HostValidationId.COMPATIBLE_AGENT && host.stage() != null);
  }

  private CheckOutcome evaluate(HostValidationId id, HostCheckContext c) {
    return switch (id) {
      case CONNECTED -> connected(c);
      case MEDIA_CONNECTED -> c.host().mediaDisconnected()
          ? new CheckOutcome(FAILURE, MEDIA_DISCONNECTED) : new CheckOutcome(SUCCESS, "Media device is connected");
      case HAS_INVENTORY -> c.inventory() != null
          ? new CheckOutcome(SUCCESS, "Valid inventory exists for the host")
          : new CheckOutcome(FAILURE, "Inventory has not been received for the host");
      case HAS_MIN_CPU_CORES -> HardwareChecks.minCpu(c);
      case HAS_MIN_MEMORY -> HardwareChecks.minMemory(c);
      case HAS_MIN_VALID_DISKS -> HardwareChecks.minValidDisks(c);
      case MACHINE_CIDR_DEFINED -> NetworkChecks.machineCidrDefined(c);
      case HAS_CPU_CORES_FOR_ROLE -> HardwareChecks.cpuForRole(c);
      case HAS_MEMORY_FOR_ROLE -> HardwareChecks.memoryForRole(c);
      case HOSTNAME_UNIQUE -> hostnameUnique(c);
      case BELONGS_TO_MACHINE_CIDR -> NetworkChecks.belongsToMachineCidr(c);
      case HOSTNAME_VALID -> hostnameValid(c);
      case IGNITION_DOWNLOADABLE -> NetworkChecks.ignitionDownloadable(c);
      case BELONGS_TO_MAJORITY_GROUP -> NetworkChecks.majorityGroup(c);
      case VALID_PLATFORM_NETWORK_SETTINGS -> PlatformChecks.platformNetworkSettings(c);
      case NTP_SYNCED -> AgentChecks.ntpSynced(c);
      case CONTAINER_IMAGES_AVAILABLE -> AgentChecks.imagesAvailable(c);
      case SUFFICIENT_INSTALLATION_DISK_SPEED -> HardwareChecks.diskSpeed(c);
      case SUFFICIENT_NETWORK_LATENCY -> NetworkChecks.latency(c);
      case SUFFICIENT_PACKET_LOSS -> NetworkChecks.packetLoss(c);
      case HAS_DEFAULT_ROUTE -> NetworkChecks.defaultRoute(c);
      case API_DOMAIN_NAME_RESOLVED -> DnsChecks.domainResolved(c, "api", "API load balancer");
      case API_INT_DOMAIN_NAME_RESOLVED -> DnsChecks.domainResolved(c, "api-int", "internal API load balancer");
      case APPS_DOMAIN_NAME_RESOLVED -> DnsChecks.domainResolved(c, "console-openshift-console.apps", "application ingress");
      case COMPATIBLE_WITH_CLUSTER_PLATFORM -> PlatformChecks.platformCompatible(c);
      case DNS_WILDCARD_NOT_CONFIGURED -> DnsChecks.dnsWildcard(c);
      case DISK_ENCRYPTION_REQUIREMENTS -> HardwareChecks.diskEncryption(c);
      case NON_OVERLAPPING_SUBNETS -> NetworkChecks.nonOverlappingSubnets(c);
      case VSPHERE_DISK_UUID_ENABLED -> PlatformChecks.vsphereUuid(c);
      case COMPATIBLE_AGENT -> AgentChecks.compatibleAgent(c);
      case NO_SKIP_INSTALLATION_DISK -> HardwareChecks.noSkipInstallationDisk(c);
      case NO_SKIP_MISSING_DISK -> HardwareChecks.noSkipMissingDisk(c);
      case NO_IP_COLLISIONS_IN_NETWORK -> NetworkChecks.noIpCollisions(c);
      case TIME_SYNCED -> AgentChecks.timeSynced(c);
      case RELEASE_DOMAIN_NAME_RESOLVED -> DnsChecks.releaseDomain(c);
      case NO_ISCSI_NIC_IN_MACHINE_CIDR -> NetworkChecks.iscsiNic(c);
      case MTU_VALID -> NetworkChecks.mtuValid(c);
      case INVENTORY_NOT_PARTIALLY_TRUNCATED -> HardwareChecks.truncation(c, "partial");
      case INVENTORY_NOT_FULLY_TRUNCATED -> HardwareChecks.truncation(c, "full");
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

  private CheckOutcome connected(HostCheckContext c) {
    return isConnected(c.host(), c.judged(), c.cfg().timeouts())
        ? new CheckOutcome(SUCCESS, "Host is connected") : new CheckOutcome(FAILURE, "Host is disconnected");
  }

  // --- hostname -----------------------------------------------------------------------------------

  private CheckOutcome hostnameUnique(HostCheckContext c) {
    if (c.unbound()) {
      return new CheckOutcome(SUCCESS_SUPPRESS_OUTPUT, "");
    }
    if (c.inventory() == null) {
      return new CheckOutcome(PENDING, "Missing inventory");
    }
    String name = c.host().hostname();
    // the others: the cluster's copy of this host (maybe an older one) does not count
    HostSnapshot self = c.cluster().host(c.host().id()).orElse(null);
    int others = c.cluster().hostsNamed(name)
        - (self != null && self.inventory() != null && name.equals(self.hostname()) ? 1 : 0);
    if (others > 0) {
      return new CheckOutcome(FAILURE, "Hostname " + name + " is not unique in cluster");
    }
    return new CheckOutcome(SUCCESS, "Hostname " + name + " is unique in cluster");
  }

  private CheckOutcome hostnameValid(HostCheckContext c) {
    if (c.inventory() == null) {
      return new CheckOutcome(FAILURE, "Missing inventory");
    }
    String name = c.host().hostname();
    if (FORBIDDEN_HOSTNAMES.contains(name)) {
      return new CheckOutcome(FAILURE, "The host name " + name + " is forbidden");
    }
    if (!HOSTNAME.matcher(name).matches()) {
      return new CheckOutcome(FAILURE, "Hostname " + name + " is forbidden, hostname should match pattern " + HOSTNAME_PATTERN);
    }
    return new CheckOutcome(SUCCESS, "Hostname " + name + " is allowed");
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

  // --- helpers other code uses, kept here under their public names ----------------------------------

  /** Delegates to {@code HardwareChecks.requiredMemoryBytes} (upstream's memory tolerance). */
  public static long requiredMemoryBytes(long ramMib, Inventory inv) {
    return HardwareChecks.requiredMemoryBytes(ramMib, inv);
  }

  /** Delegates to {@code NetworkChecks.isDefaultRoute}. */
  public static boolean isDefaultRoute(Inventory.Route r) {
    return NetworkChecks.isDefaultRoute(r);
  }
}
