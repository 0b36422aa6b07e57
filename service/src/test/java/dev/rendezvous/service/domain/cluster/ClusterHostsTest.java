package dev.rendezvous.service.domain.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.rendezvous.service.domain.Fixtures;
import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.host.HostStatus;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A cluster's hosts with one replaced: lookups by id and hostname see the new host, order is kept. */
class ClusterHostsTest {

  private static ClusterContext threeHosts() {
    ClusterContext c = Fixtures.cluster(List.of(Fixtures.host(1, HostStatus.KNOWN).build(),
        Fixtures.host(2, HostStatus.KNOWN).build(), Fixtures.host(3, HostStatus.KNOWN).build())).build();
    // the indexes are built, as a validation pass builds them before the first host is replaced
    assertEquals(1, c.hostsNamed("host-2"));
    assertEquals(HostStatus.KNOWN, c.host(Fixtures.hostId(2)).orElseThrow().status());
    return c;
  }

  @Test
  void aReplacedHostIsFoundInItsPlace() {
    ClusterContext c = threeHosts();
    HostSnapshot changed = c.hosts().get(1).toBuilder().status(HostStatus.INSUFFICIENT).build();
    ClusterContext after = c.withHost(changed);
    assertSame(changed, after.host(Fixtures.hostId(2)).orElseThrow());
    assertEquals(List.of(Fixtures.hostId(1), Fixtures.hostId(2), Fixtures.hostId(3)),
        after.hosts().stream().map(HostSnapshot::id).toList());
    assertEquals(HostStatus.KNOWN, c.host(Fixtures.hostId(2)).orElseThrow().status(), "the first view is unchanged");
    assertSame(after, after.withHost(changed), "the very host held: nothing to copy");
  }

  @Test
  void renamingOrLosingTheInventoryMovesTheHostnameCounts() {
    ClusterContext c = threeHosts();
    ClusterContext renamed = c.withHost(c.hosts().get(1).toBuilder()
        .inventory(Fixtures.inventoryForHost(2, n -> n.put("hostname", "host-1"))).build());
    assertEquals(2, renamed.hostsNamed("host-1"));
    assertEquals(0, renamed.hostsNamed("host-2"));
    assertEquals(1, c.hostsNamed("host-1"), "the first view's counts are its own");
    ClusterContext noInventory = renamed.withHost(renamed.hosts().get(0).toBuilder().inventory(null).build());
    assertEquals(1, noInventory.hostsNamed("host-1"), "a host without an inventory has no name to count");
    assertEquals(1, noInventory.hostsNamed("host-3"));
  }

  /** Many renames (past the point where the changed names are folded into new counts): every view counts right. */
  @Test
  void hostnameCountsHoldThroughManyRenamesAndEveryEarlierViewKeepsItsOwn() {
    ClusterContext c = threeHosts();
    java.util.List<ClusterContext> views = new java.util.ArrayList<>(List.of(c));
    java.util.Random random = new java.util.Random(7);
    for (int i = 0; i < 300; i++) {
      int host = random.nextInt(3);
      String name = "name-" + random.nextInt(150); // names come back; more than NameCounts.FOLD of them
      HostSnapshot h = c.hosts().get(host);
      c = c.withHost(h.toBuilder().inventory(i % 17 == 0 ? null
          : Fixtures.inventoryForHost(host + 1, n -> n.put("hostname", name))).build());
      views.add(c);
    }
    java.util.Set<String> names = new java.util.TreeSet<>(List.of("host-1", "host-2", "host-3", "nobody"));
    views.forEach(v -> v.hosts().forEach(h -> {
      if (h.inventory() != null) {
        names.add(h.hostname());
      }
    }));
    assertTrue(names.size() > 64, "enough names to fold the changed ones: " + names.size());
    for (ClusterContext v : views) {
      for (String name : names) {
        long recount = v.hosts().stream().filter(h -> h.inventory() != null && h.hostname().equals(name)).count();
        assertEquals(recount, v.hostsNamed(name), name);
      }
    }
  }

  @Test
  void whetherAnyHostHasAnInventoryFollowsReplacedAndAddedHosts() {
    ClusterContext c = threeHosts();
    ClusterContext bare = c;
    for (HostSnapshot h : c.hosts()) {
      bare = bare.withHost(h.toBuilder().inventory(null).build());
    }
    assertEquals(false, bare.anyHostWithInventory(), "three hosts, none with an inventory");
    ClusterContext added = bare.withHost(Fixtures.host(4, HostStatus.DISCOVERING).inventory(null).build());
    assertEquals(false, added.anyHostWithInventory());
    ClusterContext one = added.withHost(c.hosts().get(2));
    assertEquals(true, one.anyHostWithInventory(), "host 3's inventory is back");
    assertEquals(false, added.anyHostWithInventory(), "the earlier view keeps its own count");
    ClusterContext none = one.withHost(c.hosts().get(2).toBuilder().inventory(null).build());
    assertEquals(false, none.anyHostWithInventory());
    ClusterContext fifth = none.withHost(Fixtures.host(5, HostStatus.KNOWN).build());
    assertEquals(true, fifth.anyHostWithInventory(), "a host added with an inventory");
    ClusterContext all = none.withHostsReplaced(List.of(c.hosts().get(0), c.hosts().get(1)));
    assertEquals(true, all.anyHostWithInventory(), "several replaced at once");
    assertEquals(false, all.withHostsReplaced(List.of(c.hosts().get(0).toBuilder().inventory(null).build(),
        c.hosts().get(1).toBuilder().inventory(null).build())).anyHostWithInventory());
  }

  @Test
  void aHostOfAnotherIdIsAddedAtTheEnd() {
    ClusterContext c = threeHosts();
    ClusterContext after = c.withHost(Fixtures.host(4, HostStatus.KNOWN).build());
    assertEquals(4, after.hosts().size());
    assertEquals(Fixtures.hostId(4), after.hosts().get(3).id());
    assertEquals(1, after.hostsNamed("host-4"));
    assertEquals(HostStatus.KNOWN, after.host(Fixtures.hostId(4)).orElseThrow().status());
  }

  @Test
  void hostsAddedOneByOneAreAllFoundWhereTheyAreAndReplaceable() {
    ClusterContext c = threeHosts();
    List<ClusterContext> views = new java.util.ArrayList<>();
    for (int i = 4; i <= 120; i++) {
      c = c.withHost(Fixtures.host(i, HostStatus.DISCOVERING).build());
      views.add(c);
      if (i % 10 == 0) {
        // replacing one found past the shared index, and one in it
        c = c.withHost(c.host(Fixtures.hostId(i)).orElseThrow().toBuilder().status(HostStatus.KNOWN).build());
        c = c.withHost(c.host(Fixtures.hostId(2)).orElseThrow().toBuilder().statusInfo("seen " + i).build());
      }
    }
    assertEquals(120, c.hosts().size());
    for (int i = 1; i <= 120; i++) {
      HostSnapshot h = c.host(Fixtures.hostId(i)).orElseThrow();
      assertEquals(Fixtures.hostId(i), c.hosts().get(i - 1).id());
      assertSame(c.hosts().get(i - 1), h);
      assertEquals(i <= 3 || i % 10 == 0 ? HostStatus.KNOWN : HostStatus.DISCOVERING, h.status(), "host " + i);
    }
    assertEquals("seen 120", c.host(Fixtures.hostId(2)).orElseThrow().statusInfo());
    assertEquals(HostStatus.DISCOVERING, views.get(6).host(Fixtures.hostId(10)).orElseThrow().status(),
        "an earlier view keeps its own hosts");
    assertEquals(java.util.Optional.empty(), views.get(0).host(Fixtures.hostId(5)), "not yet added there");
  }

  @Test
  void severalHostsReplacedAtOnceAreFoundInTheirPlaces() {
    ClusterContext c = threeHosts();
    HostSnapshot one = c.hosts().get(0).toBuilder().status(HostStatus.INSUFFICIENT).build();
    HostSnapshot three = c.hosts().get(2).toBuilder()
        .inventory(Fixtures.inventoryForHost(3, n -> n.put("hostname", "host-2"))).build();
    ClusterContext after = c.withHostsReplaced(List.of(one, three, Fixtures.host(9, HostStatus.KNOWN).build()));
    assertEquals(3, after.hosts().size(), "a host of another id is not added");
    assertSame(one, after.host(Fixtures.hostId(1)).orElseThrow());
    assertSame(three, after.hosts().get(2));
    assertEquals(2, after.hostsNamed("host-2"), "the name counts follow the renamed host");
    assertEquals(0, after.hostsNamed("host-3"));
    assertEquals(HostStatus.KNOWN, c.host(Fixtures.hostId(1)).orElseThrow().status(), "the first view is unchanged");
    assertSame(c, c.withHostsReplaced(List.of(c.hosts().get(1))), "the very hosts held: nothing to copy");
  }

  @Test
  void theAddressesInUseFollowReplacedAndAddedHosts() {
    ClusterContext c = threeHosts();
    assertEquals(true, c.addressInUse("192.168.111.22"), "host 2's address");
    assertEquals(false, c.addressInUse("192.168.111.29"));
    // a new inventory with the same addresses (memory moved): the kept addresses still hold
    ClusterContext sameAddresses = c.withHost(c.hosts().get(1).toBuilder()
        .inventory(Fixtures.inventoryForHost(2, n -> n.with("memory").put("usable_bytes", 1L << 34))).build());
    assertEquals(true, sameAddresses.addressInUse("192.168.111.22"));
    ClusterContext moved = sameAddresses.withHost(sameAddresses.hosts().get(1).toBuilder()
        .inventory(Fixtures.inventoryForHost(9, n -> {})).build());
    assertEquals(false, moved.addressInUse("192.168.111.22"), "host 2 now has host 9's address");
    assertEquals(true, moved.addressInUse("192.168.111.29"));
    ClusterContext several = moved.withHostsReplaced(List.of(moved.hosts().get(0).toBuilder().inventory(null).build()));
    assertEquals(false, several.addressInUse("192.168.111.21"), "host 1 lost its inventory");
    ClusterContext added = several.withHost(Fixtures.host(7, HostStatus.DISCOVERING).build());
    assertEquals(true, added.addressInUse("192.168.111.27"), "a new host's addresses");
    ClusterContext bare = added.withHost(Fixtures.host(8, HostStatus.DISCOVERING).inventory(null).build());
    assertEquals(true, bare.addressInUse("192.168.111.27"), "a new host without inventory keeps what was known");
    assertEquals(true, c.addressInUse("192.168.111.21"), "the first view's addresses are its own");
  }
}
