package dev.rendezvous.service.domain.validation;

import static dev.rendezvous.service.domain.validation.ValidationStatus.ERROR;
import static dev.rendezvous.service.domain.validation.ValidationStatus.FAILURE;
import static dev.rendezvous.service.domain.validation.ValidationStatus.PENDING;
import static dev.rendezvous.service.domain.validation.ValidationStatus.SUCCESS;
import static dev.rendezvous.service.domain.validation.ValidationStatus.SUCCESS_SUPPRESS_OUTPUT;

import dev.rendezvous.service.domain.Cidr;
import dev.rendezvous.service.domain.cluster.ClusterContext;
import dev.rendezvous.service.domain.cluster.MajorityGroups;
import dev.rendezvous.service.domain.host.ConnectivityReport;
import dev.rendezvous.service.domain.host.HostRole;
import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.host.Inventory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Host validations on networking: machine network membership, connectivity groups, latency and packet loss,
 * default route, subnet overlaps, IP collisions, iSCSI NIC, MTU and ignition download. Split out of
 * {@link HostValidator}, which dispatches here.
 */
final class NetworkChecks {

  private NetworkChecks() {}

  static CheckOutcome machineCidrDefined(HostCheckContext c) {
    if (c.unbound()) {
      return new CheckOutcome(SUCCESS_SUPPRESS_OUTPUT, "");
    }
    if (c.umn()) {
      return new CheckOutcome(SUCCESS, "No Machine Network CIDR needed: User Managed Networking");
    }
    if (c.cluster().day2()) {
      return new CheckOutcome(SUCCESS, "No Machine Network CIDR needed: Day2 cluster");
    }
    if (!c.cluster().machineNetworks().isEmpty()) {
      return new CheckOutcome(SUCCESS, "Machine Network CIDR is defined");
    }
    if (c.cluster().vipDhcpAllocation()) {
      return new CheckOutcome(FAILURE, "Machine Network CIDR is undefined");
    }
    return new CheckOutcome(FAILURE, "Machine Network CIDR is undefined; the Machine Network CIDR can be defined by "
        + "setting either the API or Ingress virtual IPs");
  }

  static CheckOutcome belongsToMachineCidr(HostCheckContext c) {
    if (c.unbound()) {
      return new CheckOutcome(SUCCESS_SUPPRESS_OUTPUT, "");
    }
    if (c.umn() && !c.sno()) {
      return new CheckOutcome(SUCCESS, "No machine network CIDR validation needed: User Managed Networking");
    }
    if (c.cluster().day2()) {
      return new CheckOutcome(SUCCESS, "No machine network CIDR validation needed: Day2 cluster");
    }
    if (c.inventory() == null || c.cluster().machineNetworks().isEmpty()) {
      return new CheckOutcome(PENDING, "Missing inventory or machine network CIDR");
    }
    for (String net : c.cluster().machineNetworks()) {
      if (!hasAddressIn(c.inventory(), net)) {
        return new CheckOutcome(FAILURE, "Host does not belong to machine network CIDRs. Verify that the host belongs to "
            + "every CIDR listed under machine networks");
      }
    }
    return new CheckOutcome(SUCCESS, "Host belongs to all machine network CIDRs");
  }

  static boolean hasAddressIn(Inventory inv, String cidr) {
    Optional<Cidr> net = Cidr.parse(cidr);
    if (net.isEmpty()) {
      return false;
    }
    for (String a : inv.allCidrAddresses()) {
      Optional<Cidr> addr = Cidr.parse(a);
      if (addr.isPresent() && net.get().containsAddressOf(addr.get())) {
        return true;
      }
    }
    return false;
  }

  static CheckOutcome ignitionDownloadable(HostCheckContext c) {
    if (c.unbound() || !c.host().day2()) {
      return new CheckOutcome(SUCCESS_SUPPRESS_OUTPUT, "");
    }
    var r = c.host().apiVipConnectivity();
    if (r == null) {
      return new CheckOutcome(PENDING, "Ignition is not yet available, pending API connectivity");
    }
    if (r.isSuccess()) {
      return new CheckOutcome(SUCCESS, "Ignition is downloadable");
    }
    if (r.url() == null || r.url().isEmpty()) {
      return new CheckOutcome(FAILURE,
          "This host has failed to download the ignition file from the cluster, please ensure the host can reach the cluster");
    }
    return new CheckOutcome(FAILURE, String.format("This host has failed to download the ignition file from %s with the "
        + "following error: %s. Please ensure the host can reach this URL", r.url(), r.downloadError()));
  }

  static CheckOutcome majorityGroup(HostCheckContext c) {
    if (c.unbound()) {
      return new CheckOutcome(SUCCESS_SUPPRESS_OUTPUT, "");
    }
    if (c.host().day2()) {
      return new CheckOutcome(SUCCESS, "Day2 host is not required to be connected to other hosts in the cluster");
    }
    if (c.sno()) {
      return new CheckOutcome(SUCCESS, "Host has connectivity to the majority of hosts in the cluster");
    }
    MajorityGroups groups = c.cluster().connectivityMajorityGroups();
    if (groups == null) {
      return new CheckOutcome(PENDING, "Machine Network CIDR or Connectivity Majority Groups missing");
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
      return new CheckOutcome(PENDING, "Not enough hosts in cluster to calculate connectivity groups");
    }
    return switch (st) {
      case SUCCESS -> new CheckOutcome(SUCCESS, "Host has connectivity to the majority of hosts in the cluster");
      case FAILURE -> new CheckOutcome(FAILURE, "No connectivity to the majority of hosts in the cluster");
      case PENDING -> new CheckOutcome(PENDING, "Not enough information to calculate host majority groups");
      default -> new CheckOutcome(st, "Unexpected status " + st);
    };
  }

  /** Address families configured on the cluster (machine, cluster and service networks). */
  static boolean families(ClusterContext cl, boolean v4) {
    List<String> all = new ArrayList<>(cl.machineNetworks());
    cl.clusterNetworks().forEach(n -> all.add(n.cidr()));
    all.addAll(cl.serviceNetworks());
    return all.stream().map(Cidr::parse).flatMap(Optional::stream).anyMatch(x -> x.isIpv4() == v4);
  }

  private static boolean latencyOrLossNotApplicable(HostCheckContext c, Double threshold) {
    return c.cluster().hosts().size() == 1 || threshold == null
        || c.host().effectiveRole() == HostRole.AUTO_ASSIGN || c.host().day2();
  }

  static CheckOutcome latency(HostCheckContext c) {
    if (c.unbound()) {
      return new CheckOutcome(SUCCESS_SUPPRESS_OUTPUT, "");
    }
    Double threshold = c.roleRequirements().networkLatencyThresholdMs();
    if (latencyOrLossNotApplicable(c, threshold)) {
      return new CheckOutcome(SUCCESS, "Network latency requirement has been satisfied.");
    }
    if (c.host().connectivity() == null) {
      return new CheckOutcome(PENDING, "Missing network latency information.");
    }
    List<String> failed = peersOverThreshold(c, ConnectivityReport::l3AverageRttMs, threshold, "%.2f ms");
    if (failed.isEmpty()) {
      return new CheckOutcome(SUCCESS, "Network latency requirement has been satisfied.");
    }
    return new CheckOutcome(FAILURE, String.format(Locale.ROOT,
        "Network latency requirements of %s %.2f ms not met for connectivity between %s and%s.",
        comparison(threshold), threshold, c.host().id(), String.join(",", failed)));
  }

  static CheckOutcome packetLoss(HostCheckContext c) {
    if (c.unbound()) {
      return new CheckOutcome(SUCCESS_SUPPRESS_OUTPUT, "");
    }
    Double threshold = c.roleRequirements().packetLossPercentage();
    if (latencyOrLossNotApplicable(c, threshold)) {
      return new CheckOutcome(SUCCESS, "Packet loss requirement has been satisfied.");
    }
    if (c.host().connectivity() == null) {
      return new CheckOutcome(PENDING, "Missing packet loss information.");
    }
    List<String> failed = peersOverThreshold(c, ConnectivityReport::l3PacketLossPercentage, threshold, "%.2f%%");
    if (failed.isEmpty()) {
      return new CheckOutcome(SUCCESS, "Packet loss requirement has been satisfied.");
    }
    return new CheckOutcome(FAILURE, String.format(Locale.ROOT,
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
  private static List<String> peersOverThreshold(HostCheckContext c, L3Measure measure, double threshold, String format) {
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

  static boolean isDefaultRoute(Inventory.Route r) {
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

  static CheckOutcome defaultRoute(HostCheckContext c) {
    if (c.inventory() == null) {
      return new CheckOutcome(PENDING, "Missing default routing information.");
    }
    if (c.inventory().routes().stream().anyMatch(NetworkChecks::isDefaultRoute)) {
      return new CheckOutcome(SUCCESS, "Host has been configured with at least one default route.");
    }
    return new CheckOutcome(FAILURE, "Host has not yet been configured with a default route.");
  }

  static CheckOutcome nonOverlappingSubnets(HostCheckContext c) {
    if (c.inventory() == null || c.cluster() == null) {
      return new CheckOutcome(PENDING, "Missing inventory, or missing cluster");
    }
    for (boolean v4 : new boolean[] {true, false}) {
      if (!families(c.cluster(), v4)) {
        continue;
      }
      List<Cidr> nets = new ArrayList<>();
      List<String> names = new ArrayList<>();
      for (Inventory.NetInterface i : c.inventory().interfaces()) {
        for (String a : v4 ? i.ipv4Addresses() : i.ipv6Addresses()) {
          Optional<Cidr> x = Cidr.parse(a);
          if (x.isPresent()) {
            nets.add(x.get().network());
            names.add(i.name());
          }
        }
      }
      // networks compared as parsed (equal networks write the same text); their text only for a message
      for (int i = 0; i < nets.size(); i++) {
        for (int j = i + 1; j < nets.size(); j++) {
          Cidr a = nets.get(i);
          Cidr b = nets.get(j);
          if (a.equals(b)) {
            return new CheckOutcome(FAILURE, String.format("Address networks are overlapping: Address network %s appears "
                + "on multiple interfaces [%s, %s]", a, names.get(i), names.get(j)));
          }
          if (a.overlaps(b)) {
            return new CheckOutcome(FAILURE, String.format("Address networks are overlapping: Address networks %s in "
                + "interface %s and %s in interface %s overlap", a, names.get(i), b, names.get(j)));
          }
        }
      }
    }
    return new CheckOutcome(SUCCESS, "Host subnets are not overlapping");
  }

  static CheckOutcome noIpCollisions(HostCheckContext c) {
    if (c.cluster() == null) {
      return new CheckOutcome(SUCCESS, "Cluster has not yet been defined, skipping validation.");
    }
    if (c.inventory() == null) {
      return new CheckOutcome(SUCCESS, "Host inventory has not yet been defined, skipping validation.");
    }
    if (c.cluster().day2()) {
      return new CheckOutcome(SUCCESS, "Skipping validation for day 2 host " + c.host().id());
    }
    if (c.cluster().ipCollisions().isEmpty()) {
      return new CheckOutcome(SUCCESS, "IP collisions have not yet been evaluated");
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
      return new CheckOutcome(FAILURE, text.toString().replace(System.lineSeparator(), "\n"));
    }
    return new CheckOutcome(SUCCESS, "No IP collisions were detected by host " + c.host().id());
  }

  static CheckOutcome iscsiNic(HostCheckContext c) {
    Optional<Inventory.Disk> disk = c.host().installationDisk();
    if (c.unbound() || disk.isEmpty() || !"iSCSI".equals(disk.get().driveType()) || disk.get().iscsi() == null) {
      return new CheckOutcome(SUCCESS, "Installation disk is not an iSCSI disk");
    }
    String hostIp = disk.get().iscsi().hostIpAddress();
    for (String net : c.cluster().machineNetworks()) {
      if (Cidr.parse(net).map(n -> n.containsAddress(hostIp)).orElse(false)) {
        return new CheckOutcome(FAILURE, "Cannot use iSCSI installation disk: the network interface used to reach the "
            + "iSCSI target (" + hostIp + ") belongs to machine network " + net);
      }
    }
    return new CheckOutcome(SUCCESS, "The network interface used by the iSCSI installation disk does not belong to a machine network");
  }

  static CheckOutcome mtuValid(HostCheckContext c) {
    if (c.unbound()) {
      return new CheckOutcome(SUCCESS_SUPPRESS_OUTPUT, "");
    }
    if (c.host().connectivity() == null) {
      // a host alone in its cluster gets no connectivity check: there is nobody to test the MTU against
      return c.cluster().hosts().size() <= 1 ? new CheckOutcome(SUCCESS, "MTU is ok")
          : new CheckOutcome(PENDING, "Missing MTU information");
    }
    ConnectivityReport report = c.host().connectivity();
    for (int p = 0; p < report.peerCount(); p++) {
      for (int k = report.mtuStart(p); k < report.mtuEnd(p); k++) {
        String ip = report.mtuRemoteIpAddress(k);
        boolean relevant = c.umn() || c.cluster().machineNetworks().stream()
            .anyMatch(n -> Cidr.parse(n).map(x -> x.containsAddress(ip)).orElse(false));
        if (relevant && !report.mtuSuccessful(k)) {
          return new CheckOutcome(FAILURE, String.format("MTU is broken. Interface: %s, remote IP address: %s",
              report.mtuOutgoingNic(k), ip));
        }
      }
    }
    return new CheckOutcome(SUCCESS, "MTU is ok");
  }
}
