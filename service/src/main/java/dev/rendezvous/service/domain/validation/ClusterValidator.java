package dev.rendezvous.service.domain.validation;

import static dev.rendezvous.service.domain.validation.ValidationStatus.ERROR;
import static dev.rendezvous.service.domain.validation.ValidationStatus.FAILURE;
import static dev.rendezvous.service.domain.validation.ValidationStatus.PENDING;
import static dev.rendezvous.service.domain.validation.ValidationStatus.SUCCESS;

import dev.rendezvous.service.domain.Cidr;
import dev.rendezvous.service.domain.DomainConfig;
import dev.rendezvous.service.domain.cluster.ClusterContext;
import dev.rendezvous.service.domain.cluster.HostTally;
import dev.rendezvous.service.domain.host.HostRole;
import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.host.HostStatus;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/** Evaluates upstream's cluster validations (ids, categories, messages) over a {@link ClusterContext}. */
public final class ClusterValidator {

  static final Set<HostStatus> READY_TO_INSTALL =
      Set.of(HostStatus.DISABLED, HostStatus.KNOWN, HostStatus.PREPARING_FOR_INSTALLATION,
          HostStatus.PREPARING_SUCCESSFUL);
  static final Set<String> VALID_NETWORK_TYPES =
      Set.of("OVNKubernetes", "OpenShiftSDN", "CiscoACI", "Cilium", "Calico", "None");

  private final DomainConfig config;

  public ClusterValidator(DomainConfig config) {
    this.config = config;
  }

  private record Outcome(ValidationStatus status, String message) {}

  public ClusterValidation validate(ClusterContext c) {
    Map<String, List<ValidationResult>> out = new LinkedHashMap<>();
    Map<String, Boolean> conditions = new HashMap<>();
    for (ClusterValidationId id : ClusterValidationId.values()) {
      Outcome o = evaluate(id, c);
      boolean ignored = !ClusterValidationId.NON_IGNORABLE.contains(id.id())
          && (c.ignoredClusterValidations().contains(id.id()) || c.ignoredClusterValidations().contains("all"));
      conditions.put(id.id(), o.status() == SUCCESS || ignored);
      out.computeIfAbsent(id.category(), k -> new ArrayList<>()).add(new ValidationResult(id.id(), o.status(), o.message()));
    }
    List<ValidationResult> ops = new ArrayList<>();
    for (String op : HostValidationId.OPERATORS) {
      String id = HostValidationId.operatorValidationId(op);
      var known = dev.rendezvous.service.domain.operators.OlmOperator.parse(op);
      OperatorRequirements.Check check = known.isPresent() && c.olmOperators().contains(op)
          ? OperatorRequirements.validateCluster(known.get(), c)
          : new OperatorRequirements.Check(SUCCESS, op + " is disabled");
      ops.add(new ValidationResult(id, check.status(), check.message()));
      boolean ignoredOp = c.ignoredClusterValidations().contains(id) || c.ignoredClusterValidations().contains("all");
      conditions.put(id, check.status() == SUCCESS || ignoredOp);
    }
    ops.sort(java.util.Comparator.comparing(ValidationResult::id));
    out.put("operators", ops);
    return new ClusterValidation(new ValidationsInfo(out), conditions);
  }

  /** Network types whose CNI the user brings as manifests (upstream's third-party CNI backends). */
  static final java.util.Set<String> THIRD_PARTY_CNI = java.util.Set.of("Cilium", "Calico", "CiscoACI", "None");

  private Outcome evaluate(ClusterValidationId id, ClusterContext c) {
    return switch (id) {
      case MACHINE_CIDR_DEFINED -> machineCidrDefined(c);
      case CLUSTER_CIDR_DEFINED -> c.clusterNetworks().isEmpty()
          ? new Outcome(FAILURE, "The Cluster Network CIDR is undefined.")
          : new Outcome(SUCCESS, "The Cluster Network CIDR is defined.");
      case SERVICE_CIDR_DEFINED -> c.serviceNetworks().isEmpty()
          ? new Outcome(FAILURE, "The Service Network CIDR is undefined.")
          : new Outcome(SUCCESS, "The Service Network CIDR is defined.");
      case NO_CIDRS_OVERLAPPING -> cidrsOverlapping(c);
      case NETWORKS_SAME_ADDRESS_FAMILIES -> sameFamilies(c);
      case NETWORK_PREFIX_VALID -> prefixValid(c);
      case MACHINE_CIDR_EQUALS_TO_CALCULATED_CIDR -> calculatedCidr(c);
      case API_VIPS_DEFINED -> vipsDefined(c, c.apiVips(), "API");
      case API_VIPS_VALID -> vipsValid(c, id, c.apiVips(), "api vips", "API");
      case INGRESS_VIPS_DEFINED -> vipsDefined(c, c.ingressVips(), "Ingress");
      case INGRESS_VIPS_VALID -> vipsValid(c, id, c.ingressVips(), "ingress vips", "Ingress");
      case ALL_HOSTS_ARE_READY_TO_INSTALL -> c.hostTally().withStatusIn(READY_TO_INSTALL) == c.hosts().size()
          ? new Outcome(SUCCESS, "All hosts in the cluster are ready to install.")
          : new Outcome(FAILURE, "The cluster has hosts that are not ready to install.");
      case SUFFICIENT_MASTERS_COUNT -> mastersCount(c);
      case DNS_DOMAIN_DEFINED -> c.baseDnsDomain() == null || c.baseDnsDomain().isEmpty()
          ? new Outcome(FAILURE, "The base domain is undefined and must be provided.")
          : new Outcome(SUCCESS, "The base domain is defined.");
      case PULL_SECRET_SET -> c.pullSecretSet()
          ? new Outcome(SUCCESS, "The pull secret is set.") : new Outcome(FAILURE, "The pull secret is not set.");
      case NTP_SERVER_CONFIGURED -> ntp(c);
      case NETWORK_TYPE_VALID -> networkType(c);
      case CUSTOM_MANIFESTS_REQUIREMENTS -> customManifests(c);
      case PLATFORM_REQUIREMENTS -> !"external".equals(c.platformType()) || !"oci".equals(c.externalPlatformName())
          || c.customManifests()
          ? new Outcome(SUCCESS, "Platform requirements satisfied")
          : new Outcome(FAILURE, "The custom manifest required for Oracle Cloud Infrastructure platform integration has"
              + " not been added. Add a custom manifest to continue.");
    };
  }

  /** Upstream's: a third-party CNI (or none) needs the user's manifests for it; any custom manifest satisfies it. */
  private static Outcome customManifests(ClusterContext c) {
    if (c.networkType() == null || !THIRD_PARTY_CNI.contains(c.networkType())) { // an imported cluster has none
      return new Outcome(SUCCESS, "No custom manifests are required");
    }
    if (c.customManifests()) {
      return new Outcome(SUCCESS, "Custom manifests are uploaded");
    }
    return new Outcome(FAILURE, "Custom manifests are required for: " + c.networkType() + " network type. Please"
        + " upload manifests via the custom manifests API.");
  }

  private static boolean hasInventories(ClusterContext c) {
    return c.anyHostWithInventory();
  }

  private Outcome machineCidrDefined(ClusterContext c) {
    if ((c.userManagedNetworking() && !c.singleNode()) || !c.machineNetworks().isEmpty()) {
      return new Outcome(SUCCESS, c.userManagedNetworking() && !c.singleNode()
          ? "No Machine Network CIDR needed: User Managed Networking" : "The Machine Network CIDR is defined.");
    }
    if (!hasInventories(c)) {
      return new Outcome(PENDING, "Hosts have not been discovered yet");
    }
    if (c.vipDhcpAllocation()) {
      return new Outcome(FAILURE, "The Machine Network CIDR is undefined; setting the Machine Network CIDR initiates "
          + "the VIPs DHCP lease allocation.");
    }
    if (c.singleNode()) {
      return new Outcome(FAILURE,
          "The Machine Network CIDR is undefined; Setting Machine Network CIDR is required for single node cluster");
    }
    return new Outcome(FAILURE, "The Machine Network CIDR is undefined; the Machine Network CIDR can be defined by "
        + "setting either the API or Ingress virtual IPs.");
  }

  private record Named(String kind, Cidr cidr) {}

  private Outcome cidrsOverlapping(ClusterContext c) {
    boolean umnMulti = c.userManagedNetworking() && !c.singleNode();
    if (c.clusterNetworks().isEmpty() || c.serviceNetworks().isEmpty() || (!umnMulti && c.machineNetworks().isEmpty())) {
      return new Outcome(PENDING, umnMulti
          ? "At least one of the CIDRs (Cluster Network, Service Network) is undefined."
          : "At least one of the CIDRs (Machine Network, Cluster Network, Service Network) is undefined.");
    }
    List<Named> nets = new ArrayList<>();
    c.machineNetworks().forEach(n -> Cidr.parse(n).ifPresent(x -> nets.add(new Named("MachineNetworkCIDR", x))));
    c.clusterNetworks().forEach(n -> Cidr.parse(n.cidr()).ifPresent(x -> nets.add(new Named("ClusterNetworkCidr", x))));
    c.serviceNetworks().forEach(n -> Cidr.parse(n).ifPresent(x -> nets.add(new Named("ServiceNetworkCidr", x))));
    for (int i = 0; i < nets.size(); i++) {
      for (int j = i + 1; j < nets.size(); j++) {
        Named a = nets.get(i);
        Named b = nets.get(j);
        if (!a.kind().equals(b.kind()) && a.cidr().network().overlaps(b.cidr().network())) {
          return new Outcome(FAILURE, String.format("CIDRS Overlapping: %s and %s: CIDRS %s and %s overlap.",
              a.kind(), b.kind(), a.cidr(), b.cidr()));
        }
      }
    }
    return new Outcome(SUCCESS, "No CIDRS are overlapping.");
  }

  private Outcome sameFamilies(ClusterContext c) {
    if (c.clusterNetworks().isEmpty() || c.serviceNetworks().isEmpty()) {
      return new Outcome(PENDING, "At least one of the CIDRs (Cluster Network, Service Network) is undefined.");
    }
    Set<Boolean> cluster = families(c.clusterNetworks().stream().map(ClusterContext.ClusterNetwork::cidr).toList());
    Set<Boolean> service = families(c.serviceNetworks());
    Set<Boolean> machine = families(c.machineNetworks());
    boolean same = cluster.equals(service) && (c.machineNetworks().isEmpty() || cluster.equals(machine));
    return same ? new Outcome(SUCCESS, "Same address families for all networks.")
        : new Outcome(FAILURE, "Address families of networks (machine, cluster, service) are not the same.");
  }

  private static Set<Boolean> families(List<String> cidrs) {
    Set<Boolean> out = new java.util.HashSet<>(4);
    for (String s : cidrs) {
      Boolean v4 = IPV4.computeIfAbsent(s, k -> Cidr.parse(k).map(Cidr::isIpv4).orElse(null));
      if (v4 != null) {
        out.add(v4);
      }
    }
    return out;
  }

  /** Whether a CIDR text is IPv4 (absent: not a CIDR): asked by two validations of every unit, parsed once. */
  private static final Map<String, Boolean> IPV4 = java.util.Collections.synchronizedMap(
      new java.util.LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
          return size() > 1024;
        }
      });

  private Outcome prefixValid(ClusterContext c) {
    if (c.clusterNetworks().isEmpty()) {
      return new Outcome(PENDING, "The Cluster Network CIDR is undefined.");
    }
    for (ClusterContext.ClusterNetwork n : c.clusterNetworks()) {
      Optional<Cidr> cidr = Cidr.parse(n.cidr());
      if (cidr.isEmpty()) {
        return new Outcome(FAILURE, "Invalid Cluster Network prefix: cannot parse " + n.cidr() + ".");
      }
      int max = cidr.get().isIpv4() ? 25 : 128;
      if (n.hostPrefix() < 1 || n.hostPrefix() > max) {
        return new Outcome(FAILURE, String.format("Invalid Cluster Network prefix: Host prefix, now %d, must be a "
            + "positive integer less than or equal to %d.", n.hostPrefix(), max));
      }
      if (n.hostPrefix() < cidr.get().prefix()) {
        return new Outcome(FAILURE, String.format("Invalid Cluster Network prefix: Host prefix %d is smaller than "
            + "the cluster network prefix %d.", n.hostPrefix(), cidr.get().prefix()));
      }
      int bits = n.hostPrefix() - cidr.get().prefix();
      if (bits < 31 && (1L << bits) < c.hosts().size()) {
        return new Outcome(FAILURE, String.format("Cluster network CIDR prefix %d does not contain enough addresses "
            + "for %d hosts each one with %d prefix", cidr.get().prefix(), c.hosts().size(), n.hostPrefix()));
      }
    }
    return new Outcome(SUCCESS, "The Cluster Network prefix is valid.");
  }

  private Outcome calculatedCidr(ClusterContext c) {
    if (c.userManagedNetworking()) {
      return new Outcome(SUCCESS, "The Cluster Machine CIDR is not required: User Managed Networking");
    }
    if ((c.apiVips().isEmpty() && c.ingressVips().isEmpty()) || !hasInventories(c)) {
      return new Outcome(PENDING, c.apiVips().isEmpty() && c.ingressVips().isEmpty()
          ? "The Machine Network CIDR, API virtual IP, or Ingress virtual IP is undefined."
          : "Hosts have not been discovered yet");
    }
    String vip = c.apiVips().isEmpty() ? c.ingressVips().get(0) : c.apiVips().get(0);
    Optional<Cidr> calculated = calculateMachineCidr(c, vip);
    String machine = c.machineNetworks().isEmpty() ? "" : c.machineNetworks().get(0);
    boolean equal = calculated.isPresent() && Cidr.parse(machine).map(m -> m.network().equals(calculated.get())).orElse(false);
    if (equal) {
      return new Outcome(SUCCESS, "The Cluster Machine CIDR is equivalent to the calculated CIDR.");
    }
    return new Outcome(FAILURE, String.format("The Cluster Machine CIDR %s is different than the calculated CIDR %s.",
        machine, calculated.map(Cidr::toString).orElse("")));
  }

  /** The network of a host interface that contains the VIP (upstream CalculateMachineNetworkCIDR). */
  public static Optional<Cidr> calculateMachineCidr(ClusterContext c, String vip) {
    for (HostSnapshot h : c.hosts()) {
      if (h.inventory() == null) {
        continue;
      }
      for (String a : h.inventory().allCidrAddresses()) {
        Optional<Cidr> addr = Cidr.parse(a);
        if (addr.isPresent() && addr.get().network().containsAddress(vip)) {
          return Optional.of(addr.get().network());
        }
      }
    }
    return Optional.empty();
  }

  private static boolean vipsNotRequired(ClusterContext c) {
    return c.userManagedNetworking() || c.singleNode();
  }

  private Outcome vipsDefined(ClusterContext c, List<String> vips, String kind) {
    if (vipsNotRequired(c)) {
      return new Outcome(SUCCESS, "The " + kind + " virtual IP is not required: User Managed Networking");
    }
    if (c.vipDhcpAllocation() && c.machineNetworks().isEmpty()) {
      return new Outcome(PENDING, "The Machine Network CIDR is undefined");
    }
    if (!vips.isEmpty()) {
      return new Outcome(SUCCESS, "The " + kind + " virtual IP is defined.");
    }
    if (c.vipDhcpAllocation()) {
      return new Outcome(FAILURE, "The " + kind + " virtual IP is undefined; after the Machine Network CIDR has been "
          + "defined, the " + kind + " virtual IP is received from a DHCP lease allocation task which may take up to 2 minutes.");
    }
    return new Outcome(FAILURE, "The " + kind + " virtual IP is undefined and must be provided.");
  }

  private Outcome vipsValid(ClusterContext c, ClusterValidationId id, List<String> vips, String name, String kind) {
    if (vipsNotRequired(c)) {
      return new Outcome(SUCCESS, "The " + kind + " virtual IP is not required: User Managed Networking");
    }
    if (vips.isEmpty() || !hasInventories(c)) {
      return new Outcome(PENDING, vips.isEmpty() ? "The " + kind + " virtual IP is undefined." : "Hosts have not been discovered yet");
    }
    String joined = String.join(",", vips);
    Outcome valid = new Outcome(SUCCESS, name + " " + joined + " belongs to the Machine CIDR and is not in use.");
    // Once verified, these VIPs stay verified until a host finds otherwise, as upstream's per-VIP verification kept on
    // the cluster: no answer yet is no news (hosts re-registered, or the brain of an older release, which kept no
    // verdicts, handed the cluster over mid-upgrade: a ready cluster must not drop out of ready meanwhile, refusing
    // the install its user was just told was accepted).
    boolean verifiedBefore = c.validationsInfo() != null && c.validationsInfo().find(id.id())
        .filter(r -> r.status() == SUCCESS && r.message().equals(valid.message())).isPresent();
    // upstream's VerifyVipWithSingleMachineNetwork, per VIP, its messages
    for (String vip : vips) {
      if (c.machineNetworks().isEmpty()) {
        return new Outcome(FAILURE, name + " <" + vip + "> cannot be set if Machine Network CIDR is empty");
      }
      Optional<String> network = c.machineNetworks().stream()
          .filter(n -> Cidr.parse(n).map(x -> x.containsAddress(vip)).orElse(false)).findFirst();
      if (network.isEmpty()) {
        return new Outcome(FAILURE, name + " <" + vip + "> does not belong to machine-network-cidr <"
            + c.machineNetworks().get(0) + ">");
      }
      // a host's own address, or what the hosts found answering at it (verify-vips, else the free-address sweeps)
      boolean hostAddress = c.addressInUse(Cidr.parse(vip).map(Cidr::addressString).orElse(vip));
      String verification = hostAddress ? "failed" : c.vipVerification(vip);
      if (verification.equals("failed")) {
        return new Outcome(FAILURE, name + " <" + vip + "> is already in use in cidr " + network.get());
      }
      if (!verification.equals("succeeded") && !verifiedBefore) {
        return new Outcome(FAILURE, name + " <" + vip + "> are not verified yet.");
      }
    }
    return valid;
  }

  /** A host that, as a master, has the CPU and memory the master role needs. */
  boolean validMasterCandidate(HostSnapshot h, ClusterContext c) {
    if (h.inventory() == null || !h.inventory().isUsable()) {
      return false;
    }
    String product = h.inventory().systemVendor() == null ? null : h.inventory().systemVendor().productName();
    var req = config.hardware().forRole(HostRole.MASTER, c.singleNode(), c.openshiftVersion(), product);
    return h.inventory().cpuCount() >= req.cpuCores()
        && h.inventory().physicalMemoryBytes() >= HostValidator.requiredMemoryBytes(req.ramMib(), h.inventory());
  }

  private Outcome mastersCount(ClusterContext c) {
    int expected = c.controlPlaneCount();
    HostTally tally = c.hostTally();
    int masters = tally.active(HostRole.MASTER);
    int arbiters = tally.active(HostRole.ARBITER);
    int workers = tally.active(HostRole.WORKER);
    int candidates = tally.active(HostRole.AUTO_ASSIGN) + tally.active(HostRole.BOOTSTRAP);
    // the candidates in order: a master while masters are missing and the host can be one, the first with an
    // inventory an arbiter where two masters need one, else a worker. Once neither can happen, or no candidate has an
    // inventory (none can be either), the rest are workers: counted, not visited (run once per unit).
    if (tally.candidatesWithInventory() == 0) {
      workers += candidates;
      candidates = 0;
    }
    for (int i = 0, n = c.hosts().size(); i < n && candidates > 0; i++) {
      if (masters >= expected && (expected != 2 || arbiters > 0)) {
        workers += candidates;
        break;
      }
      HostSnapshot h = c.hosts().get(i);
      if (!HostTally.candidate(h)) {
        continue;
      }
      candidates--;
      if (masters < expected && validMasterCandidate(h, c)) {
        masters++;
      } else if (expected == 2 && arbiters == 0 && h.inventory() != null) {
        arbiters++;
      } else {
        workers++;
      }
    }
    boolean ok = masters == expected;
    if (c.singleNode()) {
      ok = ok && workers == 0 && arbiters == 0;
    } else {
      ok = ok && workers != 1 && (expected != 2 || arbiters >= 1);
    }
    if (ok) {
      return new Outcome(SUCCESS, "The cluster has a sufficient number of master candidates.");
    }
    if (c.singleNode()) {
      return new Outcome(FAILURE, "Single-node clusters must have a single master node and no workers.");
    }
    return new Outcome(FAILURE, "Clusters must have exactly " + expected
        + " dedicated masters. Please either add hosts, or disable the worker host");
  }

  private Outcome ntp(ClusterContext c) {
    if (c.hostTally().clockSpread() <= 4 * 60) {
      return new Outcome(SUCCESS, "No ntp problems found");
    }
    return new Outcome(FAILURE, "Host clocks are not synchronized, please configure an NTP server via DHCP.");
  }

  private Outcome networkType(ClusterContext c) {
    String t = c.networkType();
    if (t == null) {
      return new Outcome(SUCCESS, "The cluster will use a default network type");
    }
    if (!VALID_NETWORK_TYPES.contains(t)) {
      return new Outcome(FAILURE, "The network type is not valid; the valid network types are OpenShiftSDN or OVNKubernetes");
    }
    boolean ipv6 = families(c.machineNetworks()).contains(false) || families(c.serviceNetworks()).contains(false)
        || families(c.clusterNetworks().stream().map(ClusterContext.ClusterNetwork::cidr).toList()).contains(false);
    if (ipv6 && t.equals("OpenShiftSDN")) {
      return new Outcome(FAILURE, "The cluster is configured with IPv6 which is not supported by OpenShiftSDN; use OVNKubernetes instead");
    }
    return new Outcome(SUCCESS, "The cluster has a valid network type");
  }

}
