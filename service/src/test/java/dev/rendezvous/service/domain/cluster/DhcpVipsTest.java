package dev.rendezvous.service.domain.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.service.domain.Fixtures;
import java.util.List;
import org.junit.jupiter.api.Test;

class DhcpVipsTest {
  /** A lease as dhclient writes it (and as our agent answers). */
  private static final String LEASE = "lease {\n  interface \"api\";\n  fixed-address 192.168.111.30;\n"
      + "  option subnet-mask 255.255.255.0;\n  option dhcp-lease-time 600;\n  option dhcp-message-type 5;\n"
      + "  option dhcp-server-identifier 192.168.111.1;\n  renew 0 2026/11/29 08:30:00;\n"
      + "  rebind 0 2026/11/29 08:36:15;\n  expire 0 2026/11/29 08:40:00;\n}\n";

  private static ClusterContext dhcp(ClusterStatus status) {
    return Fixtures.cluster(List.of()).vipDhcpAllocation(true).apiVips(List.of()).ingressVips(List.of())
        .status(status).build();
  }

  @Test
  void aLeaseIsTakenWithItsTimesKeptAsNeverWhileTheClusterIsSetUp() {
    DhcpVips.Decision d = DhcpVips.accept(dhcp(ClusterStatus.INSUFFICIENT), "192.168.111.30", "192.168.111.31", LEASE,
        LEASE.replace("api", "ingress").replace(".30;", ".31;"));
    assertNull(d.refusal());
    assertEquals("192.168.111.30", d.vips().apiVip());
    assertEquals("192.168.111.31", d.vips().ingressVip());
    assertTrue(d.vips().apiVipLease().contains("  renew never;\n  rebind never;\n  expire never;\n"), d.vips().apiVipLease());
    assertTrue(d.vips().apiVipLease().contains("fixed-address 192.168.111.30;"));
    // the same answer again (a renewal) changes nothing
    ClusterContext held = dhcp(ClusterStatus.READY).toBuilder().dhcpVips(d.vips()).build();
    DhcpVips.Decision again = DhcpVips.accept(held, "192.168.111.30", "192.168.111.31", LEASE,
        LEASE.replace("api", "ingress").replace(".30;", ".31;"));
    assertNull(again.refusal());
    assertNull(again.vips());
  }

  @Test
  void refusedAsUpstreamRefusesThem() {
    assertEquals("DHCP not enabled in cluster " + Fixtures.CLUSTER, DhcpVips.accept(
        dhcp(ClusterStatus.READY).toBuilder().vipDhcpAllocation(false).build(), "192.168.111.30", "192.168.111.31", LEASE,
        LEASE).refusal());
    assertEquals("At least of the IPs (10.0.0.5, 192.168.111.31) is not in machine CIDR 192.168.111.0/24",
        DhcpVips.accept(dhcp(ClusterStatus.READY), "10.0.0.5", "192.168.111.31", LEASE, LEASE).refusal());
    assertTrue(DhcpVips.accept(dhcp(ClusterStatus.READY), "192.168.111.30", "192.168.111.31", "lease { fixed-address x }",
        LEASE).refusal().startsWith("api_vip_lease: Lease"));
    assertTrue(DhcpVips.accept(dhcp(ClusterStatus.READY), "192.168.111.30", "192.168.111.31", LEASE, LEASE + LEASE)
        .refusal().startsWith("ingress_vip_lease: Lease"), "two leases in one answer are no lease");
    // an empty lease is allowed (upstream's pattern), the addresses are what count
    assertNull(DhcpVips.accept(dhcp(ClusterStatus.READY), "192.168.111.30", "192.168.111.31", "", null).refusal());
  }

  @Test
  void oncePreparingOrInstallingTheVipsNeverMove() {
    DhcpVips held = new DhcpVips("192.168.111.30", "192.168.111.31", DhcpVips.kept(LEASE), "");
    ClusterContext installing = dhcp(ClusterStatus.INSTALLING).toBuilder().dhcpVips(held).build();
    DhcpVips.Decision moved = DhcpVips.accept(installing, "192.168.111.40", "192.168.111.31", LEASE, "");
    assertTrue(moved.refusal().startsWith("Got VIPs different than those that are stored"), moved.refusal());
    // a renewal with other lease terms while installing: the addresses are the same, nothing changes
    DhcpVips.Decision renewed = DhcpVips.accept(installing, "192.168.111.30", "192.168.111.31",
        LEASE.replace("dhcp-lease-time 600", "dhcp-lease-time 900"), "");
    assertNull(renewed.vips());
    assertNull(renewed.refusal());
  }

  @Test
  void eachVipHasItsOwnStableMac() {
    assertEquals(DhcpVips.mac(Fixtures.CLUSTER, 0), DhcpVips.mac(Fixtures.CLUSTER, 0));
    assertFalse(DhcpVips.mac(Fixtures.CLUSTER, 0).equals(DhcpVips.mac(Fixtures.CLUSTER, 1)));
    assertTrue(DhcpVips.mac(Fixtures.CLUSTER, 1).matches("00:1a:4a(:[0-9a-f]{2}){3}"));
  }
}
