package dev.rendezvous.controller.dryrun;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.controller.cluster.Views;
import dev.rendezvous.controller.service.Host;
import dev.rendezvous.controller.service.HostStage;
import dev.rendezvous.controller.support.ControllerLog;
import dev.rendezvous.controller.support.SharedRuntime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The simulation on a hand-moved clock: what appears when, from the service's view alone. */
class SimulatedClusterTest {
  Instant now = Instant.parse("2026-01-01T00:00:00Z");
  final Clock clock = new Clock() {
    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  };
  final SimulatedDurations d = SimulatedDurations.realistic();
  final SimulatedCluster sim = new SimulatedCluster("assisted-installer", d, SharedRuntime.get().scheduler(), null,
      new ControllerLog("c", 10_000), 1, Duration.ofSeconds(30), clock);

  static Host host(String id, String name, String role, HostStage stage, Instant startedAt) {
    String inv = "{\"hostname\":\"" + name + "\",\"interfaces\":[{\"ipv4_addresses\":[\"10.0.0." + id + "/24\"]}]}";
    return new Host(id, "ie", "c", stage == HostStage.DONE ? "installed" : "installing-in-progress", role, role,
        false, name, inv, new Host.Progress(stage, "", startedAt.toString(), startedAt.toString()), null, null);
  }

  @Test
  void aRebootingHostsNodeRegistersWithAPendingCsrAndIsReadyAfterApproval() {
    sim.onHosts(List.of(host("1", "Master-1", "master", HostStage.REBOOTING, now)));
    assertTrue(sim.nodes().isEmpty());
    now = now.plus(d.ignitionFetch());
    assertTrue(sim.machineConfigServerLogs(Duration.ofSeconds(300)).join().contains("address:\"10.0.0.1:"));
    now = now.plus(d.boot().minus(d.ignitionFetch()));
    Views.Node node = sim.nodes().get(0);
    assertEquals("master-1", node.name());
    assertEquals(List.of("10.0.0.1"), node.internalIps());
    assertFalse(node.ready());
    Views.Csr csr = sim.csrs().get(0);
    assertTrue(csr.pending());
    assertEquals("system:node:master-1", csr.commonName());
    assertEquals(SimulatedCluster.BOOTSTRAPPER, csr.username());

    now = now.plus(Duration.ofHours(1));
    assertFalse(sim.nodes().get(0).ready(), "never Ready without the CSR approved");
    sim.approveCsr(csr.name(), "NodeCSRApprove", "m").join();
    assertFalse(sim.csrs().get(0).pending());
    now = now.plus(d.nodeReady());
    assertTrue(sim.nodes().get(0).ready());
  }

  @Test
  void operatorsRollOutOnceTheMastersAreReadyAndTheServiceViewWins() {
    sim.onHosts(List.of(host("1", "m1", "master", HostStage.DONE, now)));
    assertTrue(sim.nodes().get(0).ready(), "a Done host has a Ready node at once (restart)");
    assertTrue(sim.clusterOperator("console").isEmpty());
    now = now.plus(d.consoleProgressing());
    assertEquals("Progressing", sim.clusterOperator("console").get().conditions().get(0).type());
    now = now.plus(d.ingressCa().minus(d.consoleProgressing()));
    assertTrue(sim.ingressCaBundle().get().startsWith("-----BEGIN CERTIFICATE-----"));
    assertFalse(isAvailable(sim.clusterVersion().get().conditions()));
    now = now.plus(d.clusterVersion());
    assertTrue(isAvailable(sim.clusterOperator("console").get().conditions()));
    assertTrue(isAvailable(sim.clusterVersion().get().conditions()));
  }

  @Test
  void aJoinedHostAlreadyHasItsCsrApproved() {
    sim.onHosts(List.of(host("2", "w", "worker", HostStage.JOINED, now)));
    assertFalse(sim.csrs().get(0).pending());
    assertFalse(sim.nodes().get(0).ready());
    now = now.plus(d.nodeReady());
    assertTrue(sim.nodes().get(0).ready());
  }

  @Test
  void theOneKnobScalesEveryDuration() {
    SimulatedDurations s = d.scaled(0.01);
    List<Duration> a = new ArrayList<>(List.of(d.boot(), d.nodeReady(), d.console(), d.clusterVersion()));
    List<Duration> b = List.of(s.boot(), s.nodeReady(), s.console(), s.clusterVersion());
    for (int i = 0; i < a.size(); i++) {
      assertEquals(a.get(i).toMillis() / 100, b.get(i).toMillis());
    }
  }

  static boolean isAvailable(List<Views.Condition> conditions) {
    return conditions.stream().anyMatch(c -> c.type().equals("Available") && c.status().equals("True"));
  }
}
