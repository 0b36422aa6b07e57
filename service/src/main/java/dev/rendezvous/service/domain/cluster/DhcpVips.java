package dev.rendezvous.service.domain.cluster;

import dev.rendezvous.service.domain.Cidr;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The VIPs a DHCP server leased for a cluster in {@code vip_dhcp_allocation} mode, with their leases (dhclient's
 * lease-file text, renewal times replaced by "never" as upstream keeps them: the control plane's keepalived renews
 * them once installed). Pure: what an agent's dhcp-lease-allocate answer changes is decided by {@link #accept}.
 */
public record DhcpVips(String apiVip, String ingressVip, String apiVipLease, String ingressVipLease) {
  /** Upstream's lease check: empty, or one {@code lease { ... }} block of "name value;" statements. */
  private static final Pattern LEASE = Pattern.compile("^(?:|\\s*lease\\s*[{](?:\\s+[a-z-]+ [^;}]*;)*\\s+[}]\\s*)$");
  private static final Pattern TIMES = Pattern.compile("(\\s)(renew|rebind|expire) [^;]*;");

  /** What an answer does: {@code vips} to keep (null: nothing changes), or why it is refused. */
  public record Decision(DhcpVips vips, String refusal) {
    static Decision keep() {
      return new Decision(null, null);
    }

    static Decision refuse(String why) {
      return new Decision(null, why);
    }
  }

  public static boolean validLease(String lease) {
    return lease == null || LEASE.matcher(lease).matches();
  }

  /** The lease as kept: its renew, rebind and expire times set to never. */
  public static String kept(String lease) {
    return lease == null ? "" : TIMES.matcher(lease).replaceAll("$1$2 never;");
  }

  /**
   * An agent's answer for cluster {@code c}, as upstream's: refused when the cluster does not allocate its VIPs by
   * DHCP, when an address is outside the (first) machine network, or when a lease is no lease; otherwise taken while
   * the cluster is still being set up (pending-for-input, insufficient, ready); after that an answer that differs is
   * refused (a VIP never moves under an installation) and an equal one changes nothing.
   */
  public static Decision accept(ClusterContext c, String apiVip, String ingressVip, String apiLease, String ingressLease) {
    if (!c.vipDhcpAllocation()) {
      return Decision.refuse("DHCP not enabled in cluster " + c.id());
    }
    List<String> nets = c.machineNetworks();
    Cidr net = nets.isEmpty() ? null : Cidr.parse(nets.get(0)).orElse(null);
    if (net == null || apiVip == null || ingressVip == null || !net.containsAddress(apiVip)
        || !net.containsAddress(ingressVip)) {
      return Decision.refuse("At least of the IPs (" + apiVip + ", " + ingressVip + ") is not in machine CIDR "
          + (nets.isEmpty() ? "" : nets.get(0)));
    }
    if (!validLease(apiLease)) {
      return Decision.refuse("api_vip_lease: Lease " + apiLease + " was not matched");
    }
    if (!validLease(ingressLease)) {
      return Decision.refuse("ingress_vip_lease: Lease " + ingressLease + " was not matched");
    }
    DhcpVips next = new DhcpVips(apiVip, ingressVip, kept(apiLease), kept(ingressLease));
    if (next.equals(c.dhcpVips())) {
      return Decision.keep();
    }
    return switch (c.status()) {
      case PENDING_FOR_INPUT, INSUFFICIENT, READY -> new Decision(next, null);
      default -> c.dhcpVips() != null && apiVip.equals(c.dhcpVips().apiVip()) && ingressVip.equals(c.dhcpVips().ingressVip())
          ? Decision.keep()
          : Decision.refuse("Got VIPs different than those that are stored for cluster " + c.id() + ": api vip " + apiVip
              + " (kept " + (c.dhcpVips() == null ? "none" : c.dhcpVips().apiVip()) + "), ingress vip " + ingressVip
              + " (kept " + (c.dhcpVips() == null ? "none" : c.dhcpVips().ingressVip()) + ")");
    };
  }

  /**
   * The MAC a VIP's lease is asked for with ({@code which}: 0 API, 1 ingress): stable, derived from the cluster id, so
   * renewals and the control plane's keepalived ask for the same lease.
   */
  public static String mac(java.util.UUID clusterId, int which) {
    long bits = clusterId.getLeastSignificantBits() + which;
    return String.format(java.util.Locale.ROOT, "00:1a:4a:%02x:%02x:%02x", (bits >> 16) & 0xff, (bits >> 8) & 0xff,
        bits & 0xff);
  }

  /** Whether the VIP addresses (not the leases) differ from {@code o}'s. */
  public boolean movedFrom(DhcpVips o) {
    return o == null || !Objects.equals(apiVip, o.apiVip) || !Objects.equals(ingressVip, o.ingressVip);
  }
}
