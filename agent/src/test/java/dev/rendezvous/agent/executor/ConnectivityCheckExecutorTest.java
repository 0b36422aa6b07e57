package dev.rendezvous.agent.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.agent.FixtureCommands;
import dev.rendezvous.agent.Fixtures;
import dev.rendezvous.agent.inventory.NetworkInterfaces;
import dev.rendezvous.agent.step.StepOutcome;
import dev.rendezvous.agent.wire.ConnectivityCheck;
import dev.rendezvous.agent.wire.Inventory;
import dev.rendezvous.agent.wire.Step;
import dev.rendezvous.agent.wire.WireJson;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Against ping / arping / ip neigh output captured on the VM (eth0 192.0.2.2/24, MTU 1400, gateway .1). */
class ConnectivityCheckExecutorTest {
  static final List<String> PING = List.of("ping", "-c", "3", "-i", "0.2", "-W", "1");
  static final String REQUEST = "[{\"host_id\":\"h-b\",\"nics\":[{\"name\":\"eth0\",\"mac\":\"02:FC:00:00:00:05\","
      + "\"ip_addresses\":[\"192.0.2.1/24\"]}]},"
      + "{\"host_id\":\"h-a\",\"nics\":[{\"name\":\"ens3\",\"mac\":\"aa:bb:cc:dd:ee:ff\","
      + "\"ip_addresses\":[\"192.0.2.77\",\"198.51.100.7\"]}]}]";

  static List<Inventory.Interface> vmInterfaces() {
    return NetworkInterfaces.parse(Fixtures.command(Fixtures.VM, "ip-addr.json"), Fixtures.root(Fixtures.VM));
  }

  static List<String> concat(List<String> a, String... b) {
    var l = new java.util.ArrayList<>(a);
    l.addAll(List.of(b));
    return l;
  }

  static FixtureCommands pings() {
    return new FixtureCommands()
        .onFixture(concat(PING, "-I", "eth0", "192.0.2.1"), Fixtures.VM, "ping-reachable.txt")
        .onFixture(concat(PING, "-I", "eth0", "192.0.2.77"), Fixtures.VM, "ping-unreachable.txt")
        .onFixture(concat(PING, "198.51.100.7"), Fixtures.VM, "ping-unreachable.txt")
        .on(List.of("ping", "-c", "2", "-i", "0.2", "-W", "1", "-M", "do", "-s", "1372", "-I", "eth0", "192.0.2.1"), "", 0)
        .on(List.of("ping", "-c", "2", "-i", "0.2", "-W", "1", "-M", "do", "-s", "1372", "-I", "eth0", "192.0.2.77"), "", 1);
  }

  static ConnectivityCheck.Report run(FixtureCommands commands) throws Exception {
    StepOutcome out = new ConnectivityCheckExecutor(commands, ConnectivityCheckExecutorTest::vmInterfaces, 3)
        .execute(new Step("connectivity-check", "connectivity-check-1", List.of(REQUEST)));
    assertEquals(0, out.exitCode(), out.error());
    return WireJson.read(out.output(), ConnectivityCheck.Report.class);
  }

  @Test
  void l3PingL2ArpingAndMtu() throws Exception {
    FixtureCommands commands = pings()
        .onFixture(List.of("arping", "-c", "2", "-w", "2", "-I", "eth0", "192.0.2.1"), Fixtures.VM, "arping-reachable.txt")
        .onFixture(List.of("arping", "-c", "2", "-w", "2", "-I", "eth0", "192.0.2.77"), Fixtures.VM, "arping-unreachable.txt");
    ConnectivityCheck.Report report = run(commands);

    assertEquals(List.of("h-a", "h-b"), report.remoteHosts().stream().map(ConnectivityCheck.RemoteHost::hostId).toList());
    ConnectivityCheck.RemoteHost a = report.remoteHosts().get(0);
    assertEquals(List.of(
        new ConnectivityCheck.L3Connectivity("eth0", "192.0.2.77", false, 0.0, 100.0),
        new ConnectivityCheck.L3Connectivity(null, "198.51.100.7", false, 0.0, 100.0)), a.l3Connectivity());
    assertEquals(List.of(), a.l2Connectivity(), "nobody answered ARP");
    assertEquals(List.of(new ConnectivityCheck.MtuReport("eth0", "192.0.2.77", false)), a.mtuReport());

    ConnectivityCheck.RemoteHost b = report.remoteHosts().get(1);
    assertEquals(List.of(new ConnectivityCheck.L3Connectivity("eth0", "192.0.2.1", true, 0.196, 0.0)), b.l3Connectivity());
    assertEquals(List.of(new ConnectivityCheck.L2Connectivity("eth0", "192.0.2.2", "192.0.2.1", "02:fc:00:00:00:05", true)),
        b.l2Connectivity());
    assertEquals(List.of(new ConnectivityCheck.MtuReport("eth0", "192.0.2.1", true)), b.mtuReport(),
        "eth0 MTU 1400 != 1500: 1372-byte don't-fragment ping");
    assertTrue(commands.calls().stream().noneMatch(c -> c.contains("198.51.100.7") && c.contains("-I")),
        "an off-link address is pinged through the routing table");
  }

  @Test
  void neighbourTableWhenArpingIsMissing() throws Exception {
    FixtureCommands commands = pings()
        .onFixture(List.of("ip", "-j", "neigh", "show", "to", "192.0.2.1", "dev", "eth0"), Fixtures.VM, "ip-neigh.json")
        .onFixture(List.of("ip", "-j", "neigh", "show", "to", "192.0.2.77", "dev", "eth0"), Fixtures.VM, "ip-neigh.json");
    ConnectivityCheck.Report report = run(commands);
    assertEquals(List.of(new ConnectivityCheck.L2Connectivity("eth0", "192.0.2.2", "192.0.2.1", "02:fc:00:00:00:05", true)),
        report.remoteHosts().get(1).l2Connectivity());
    assertEquals(List.of(), report.remoteHosts().get(0).l2Connectivity(), "FAILED neighbour entry");
    assertFalse(commands.calls().stream().anyMatch(c -> c.get(0).equals("arping")));
  }

  @Test
  void answerFromAMacNotOfTheRemoteHostIsUnsuccessful() throws Exception {
    String request = "[{\"host_id\":\"h-x\",\"nics\":[{\"name\":\"eth0\",\"mac\":\"02:00:00:00:00:99\","
        + "\"ip_addresses\":[\"192.0.2.1\"]}]}]";
    FixtureCommands commands = pings()
        .onFixture(List.of("arping", "-c", "2", "-w", "2", "-I", "eth0", "192.0.2.1"), Fixtures.VM, "arping-reachable.txt");
    StepOutcome out = new ConnectivityCheckExecutor(commands, ConnectivityCheckExecutorTest::vmInterfaces, 3)
        .execute(new Step("connectivity-check", "c-2", List.of(request)));
    var l2 = WireJson.read(out.output(), ConnectivityCheck.Report.class).remoteHosts().get(0).l2Connectivity();
    assertEquals(1, l2.size());
    assertFalse(l2.get(0).successful(), "address conflict: someone else answers for that IP");
  }

  @Test
  void withoutPingTheStepFailsSayingWhichPackage() throws Exception {
    StepOutcome out = new ConnectivityCheckExecutor(new FixtureCommands(), ConnectivityCheckExecutorTest::vmInterfaces, 3)
        .execute(new Step("connectivity-check", "c-3", List.of("[]")));
    assertEquals(-1, out.exitCode());
    assertTrue(out.error().contains("iputils-ping"));
  }
}
