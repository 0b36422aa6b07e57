package dev.rendezvous.service.domain.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.service.domain.Fixtures;
import dev.rendezvous.service.domain.host.HostStatus;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Machine networks a user did not give, derived from the hosts as upstream does. */
class MachineNetworksTest {

  @Test
  void aSingleNodeTakesTheNetworkOfItsDefaultRoute() {
    ClusterContext sno = Fixtures.cluster(List.of(Fixtures.host(1, HostStatus.KNOWN).build())).controlPlaneCount(1)
        .userManagedNetworking(true).machineNetworks(List.of()).apiVips(List.of()).ingressVips(List.of()).build();
    ClusterContext derived = MachineNetworks.derive(sno).orElseThrow();
    assertEquals(List.of("192.168.111.0/24"), derived.machineNetworks());
    assertTrue(derived.machineNetworksDerived());
    assertTrue(MachineNetworks.derive(derived).isEmpty(), "nothing moves the second time");
  }

  @Test
  void aClusterWithVipsTakesTheHostNetworkHoldingTheApiVip() {
    ClusterContext ha = Fixtures.cluster(List.of(Fixtures.host(1, HostStatus.KNOWN).build(),
        Fixtures.host(2, HostStatus.KNOWN).build())).machineNetworks(List.of()).build();
    assertEquals(List.of("192.168.111.0/24"), MachineNetworks.derive(ha).orElseThrow().machineNetworks());
    ClusterContext outside = ha.toBuilder().apiVips(List.of("10.9.9.9")).ingressVips(List.of()).build();
    assertTrue(MachineNetworks.derive(outside).isEmpty(), "a VIP outside every host network derives nothing");
  }

  @Test
  void whatTheUserGaveAndDhcpVipsAreLeftAlone() {
    ClusterContext given = Fixtures.cluster(List.of(Fixtures.host(1, HostStatus.KNOWN).build()))
        .machineNetworks(List.of("10.0.0.0/16")).build();
    assertTrue(MachineNetworks.derive(given).isEmpty());
    ClusterContext dhcp = given.toBuilder().machineNetworks(List.of()).vipDhcpAllocation(true).build();
    assertTrue(MachineNetworks.derive(dhcp).isEmpty());
    ClusterContext installing = given.toBuilder().machineNetworks(List.of()).status(ClusterStatus.INSTALLING).build();
    assertTrue(MachineNetworks.derive(installing).isEmpty(), "only before installation");
  }

  @Test
  void aDerivedNetworkFollowsTheHostsAndGoesWhenTheyDo() {
    ClusterContext sno = Fixtures.cluster(List.of(Fixtures.host(1, HostStatus.KNOWN).build())).controlPlaneCount(1)
        .userManagedNetworking(true).machineNetworks(List.of()).build();
    ClusterContext derived = MachineNetworks.derive(sno).orElseThrow();
    ClusterContext alone = derived.toBuilder().hosts(List.of()).build();
    ClusterContext cleared = MachineNetworks.derive(alone).orElseThrow();
    assertEquals(List.of(), cleared.machineNetworks());
    assertEquals(false, cleared.machineNetworksDerived());
  }
}
