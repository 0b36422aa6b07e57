package dev.rendezvous.agent.netcheck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.agent.Fixtures;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Parsers against command output captured on the VM (fixtures/README.md). */
class NetcheckParsersTest {
  @Test
  void pingReachable() {
    var s = PingParser.parse(Fixtures.command(Fixtures.VM, "ping-reachable.txt")).orElseThrow();
    assertEquals(new PingParser.PingStats(3, 3, 0.0, 0.196), s);
    assertTrue(s.anyReply());
  }

  @Test
  void pingUnreachable() {
    var s = PingParser.parse(Fixtures.command(Fixtures.VM, "ping-unreachable.txt")).orElseThrow();
    assertEquals(new PingParser.PingStats(3, 0, 100.0, 0.0), s);
    assertFalse(s.anyReply());
  }

  @Test
  void pingVariants() {
    assertEquals(Optional.empty(), PingParser.parse("ping: unknown host nowhere\n"));
    var errors = PingParser.parse("10 packets transmitted, 7 received, +3 errors, 30% packet loss, time 9012ms\n"
        + "rtt min/avg/max/mdev = 0.1/0.25/0.4/0.1 ms\n").orElseThrow();
    assertEquals(30.0, errors.packetLossPercentage());
    assertEquals(0.25, errors.averageRttMs());
    var busybox = PingParser.parse("3 packets transmitted, 3 packets received, 0% packet loss\n"
        + "round-trip min/avg/max = 0.061/0.081/0.105 ms\n").orElseThrow();
    assertEquals(0.081, busybox.averageRttMs());
  }

  @Test
  void arping() {
    assertEquals(Set.of("02:fc:00:00:00:05"), ArpingParser.replyingMacs(Fixtures.command(Fixtures.VM, "arping-reachable.txt")));
    assertEquals(Set.of(), ArpingParser.replyingMacs(Fixtures.command(Fixtures.VM, "arping-unreachable.txt")));
    assertEquals(Set.of("52:54:00:12:34:56"),
        ArpingParser.replyingMacs("60 bytes from 52:54:00:12:34:56 (10.0.0.1): index=0 time=1.2 msec\n"));
  }

  @Test
  void neighbourTable() {
    NeighbourTable t = NeighbourTable.parse(Fixtures.command(Fixtures.VM, "ip-neigh.json"));
    assertEquals(Optional.of("02:fc:00:00:00:05"), t.macOf("192.0.2.1", "eth0"));
    assertEquals(Optional.empty(), t.macOf("192.0.2.77", "eth0"), "FAILED entry");
    assertEquals(Optional.empty(), t.macOf("fd00::1", "eth0"));
    assertEquals(Optional.empty(), t.macOf("192.0.2.1", "eth1"));
  }

  @Test
  void ipv4Networks() {
    Ipv4Network n = Ipv4Network.parse("192.0.2.0/29");
    assertTrue(n.isCanonical());
    assertEquals(List.of("192.0.2.0", "192.0.2.1", "192.0.2.2", "192.0.2.3", "192.0.2.4", "192.0.2.5", "192.0.2.6",
        "192.0.2.7"), n.addresses());
    assertFalse(Ipv4Network.parse("192.0.2.5/24").isCanonical());
    assertEquals(4, Ipv4Network.parse("10.0.0.0/20").split(22).size());
    assertEquals("10.0.12.0/22", Ipv4Network.parse("10.0.0.0/20").split(22).get(3).toString());
    assertTrue(n.contains("192.0.2.7"));
    assertFalse(n.contains("192.0.2.8"));
    assertThrows(IllegalArgumentException.class, () -> Ipv4Network.parse("300.0.0.0/24"));
    assertThrows(IllegalArgumentException.class, () -> Ipv4Network.parse("10.0.0.0/33"));
  }

  @Test
  void ipPrefixes() {
    assertTrue(IpPrefix.parse("fd00::2/64").contains("fd00::1"));
    assertFalse(IpPrefix.parse("fd00::2/64").contains("fd01::1"));
    assertFalse(IpPrefix.parse("192.0.2.2/24").contains("fd00::1"));
    assertEquals("fd00::2", IpPrefix.parse("fd00:0:0:0::2/64").ip());
    assertThrows(IllegalArgumentException.class, () -> IpPrefix.literal("example.com"));
  }
}
