package dev.rendezvous.service.domain.cluster;

import dev.rendezvous.service.domain.Cidr;
import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.host.Inventory;
import dev.rendezvous.service.domain.validation.ClusterValidator;
import dev.rendezvous.service.domain.validation.HostValidator;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Machine networks the user did not give, derived from the hosts as upstream does: with API/ingress VIPs, the
 * host network that contains the API VIP (else the ingress VIP); for a single node, the network of the host's
 * default-route interface (else its first IPv4 network). DHCP-allocated VIPs need the user's choice (it starts the
 * lease), and user-managed networking with several hosts needs none.
 */
public final class MachineNetworks {
  private static final Set<ClusterStatus> PRE_INSTALL =
      Set.of(ClusterStatus.PENDING_FOR_INPUT, ClusterStatus.INSUFFICIENT, ClusterStatus.READY);

  private MachineNetworks() {}

  /** The cluster with its derived machine networks, or empty when nothing is to be derived or nothing changed. */
  public static Optional<ClusterContext> derive(ClusterContext c) {
    if (!PRE_INSTALL.contains(c.status()) || (!c.machineNetworks().isEmpty() && !c.machineNetworksDerived())) {
      return Optional.empty();
    }
    List<String> derived = derived(c).map(n -> List.of(n.toString())).orElse(List.of());
    if (derived.equals(c.machineNetworks())) {
      return Optional.empty();
    }
    return Optional.of(c.toBuilder().machineNetworks(derived).machineNetworksDerived(!derived.isEmpty()).build());
  }

  static Optional<Cidr> derived(ClusterContext c) {
    if (c.vipDhcpAllocation() || (c.userManagedNetworking() && !c.singleNode())) {
      return Optional.empty();
    }
    if (!c.singleNode()) {
      String vip = !c.apiVips().isEmpty() ? c.apiVips().get(0) : !c.ingressVips().isEmpty() ? c.ingressVips().get(0) : null;
      return vip == null ? Optional.empty() : ClusterValidator.calculateMachineCidr(c, vip);
    }
    for (HostSnapshot h : c.hosts()) {
      if (h.inventory() != null) {
        return primaryNetwork(h.inventory());
      }
    }
    return Optional.empty();
  }

  /** The IPv4 network of the interface carrying the default route, else the first IPv4 network. */
  static Optional<Cidr> primaryNetwork(Inventory inv) {
    for (Inventory.Route r : inv.routes()) {
      if (HostValidator.isDefaultRoute(r)) {
        for (Inventory.NetInterface i : inv.interfaces()) {
          if (i.name().equals(r.iface())) {
            Optional<Cidr> n = firstIpv4(i);
            if (n.isPresent()) {
              return n;
            }
          }
        }
      }
    }
    for (Inventory.NetInterface i : inv.interfaces()) {
      Optional<Cidr> n = firstIpv4(i);
      if (n.isPresent()) {
        return n;
      }
    }
    return Optional.empty();
  }

  private static Optional<Cidr> firstIpv4(Inventory.NetInterface i) {
    return i.ipv4Addresses().stream().map(Cidr::parse).flatMap(Optional::stream).filter(Cidr::isIpv4)
        .map(Cidr::network).findFirst();
  }
}
