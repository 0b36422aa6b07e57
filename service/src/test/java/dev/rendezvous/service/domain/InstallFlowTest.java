package dev.rendezvous.service.domain;

import static dev.rendezvous.service.domain.Fixtures.NOW;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.service.domain.cluster.ClusterContext;
import dev.rendezvous.service.domain.cluster.ClusterEvent;
import dev.rendezvous.service.domain.cluster.ClusterStateMachine;
import dev.rendezvous.service.domain.cluster.ClusterStatus;
import dev.rendezvous.service.domain.cluster.ClusterTransition;
import dev.rendezvous.service.domain.cluster.FinalizingStage;
import dev.rendezvous.service.domain.cluster.InstallReports;
import dev.rendezvous.service.domain.host.HostEvent;
import dev.rendezvous.service.domain.host.HostProgress;
import dev.rendezvous.service.domain.host.HostRole;
import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.host.HostStage;
import dev.rendezvous.service.domain.host.HostStateMachine;
import dev.rendezvous.service.domain.host.HostStatus;
import dev.rendezvous.service.domain.host.HostTransition;
import dev.rendezvous.service.domain.host.StageSequences;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The installation half of the state machines on a scripted clock: every role's stage order, every stage's
 * timeout, and the cluster's outcomes (a failed master fails it, a failed worker among enough does not, the
 * finalizing timeouts).
 */
class InstallFlowTest {
  static final DomainConfig CONFIG = DomainConfig.defaults();
  static final HostStateMachine HOSTS = new HostStateMachine(CONFIG);
  static final ClusterStateMachine CLUSTERS = new ClusterStateMachine(CONFIG);

  static HostSnapshot installing(int i, HostRole role, boolean bootstrap) {
    return Fixtures.host(i, HostStatus.INSTALLING).role(role).bootstrap(bootstrap).build();
  }

  static ClusterContext cluster(ClusterStatus status, List<HostSnapshot> hosts) {
    return Fixtures.cluster(hosts).status(status).installStartedAt(NOW.minusSeconds(600)).statusUpdatedAt(NOW.minusSeconds(60))
        .build();
  }

  static HostSnapshot apply(HostSnapshot h, ClusterContext c, HostEvent e, Instant at) {
    HostTransition t = HOSTS.apply(h, c, e, at);
    assertTrue(!t.rejected(), () -> e + " refused: " + t.rejection());
    return Transitions.applied(h, t, at);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"bootstrap", "master", "worker", "sno"})
  void everyRoleWalksItsStagesInUpstreamsOrderToInstalled(String kind) {
    boolean sno = kind.equals("sno");
    HostSnapshot h = installing(1, kind.equals("worker") ? HostRole.WORKER : HostRole.MASTER,
        kind.equals("bootstrap") || sno);
    List<HostSnapshot> others = new ArrayList<>();
    if (!sno) {
      others.add(installing(2, HostRole.MASTER, false));
      others.add(installing(3, HostRole.MASTER, false));
    }
    Instant at = NOW;
    List<HostStage> order = StageSequences.forHost(h, sno);
    int lastPercent = 0;
    for (HostStage stage : order) {
      List<HostSnapshot> all = new ArrayList<>(others);
      all.add(h);
      ClusterContext c = Fixtures.cluster(all).status(ClusterStatus.INSTALLING).controlPlaneCount(sno ? 1 : 3).build();
      at = at.plusSeconds(10);
      h = apply(h, c, new HostEvent.ProgressReported(stage, ""), at);
      assertTrue(h.progress().installationPercentage() > lastPercent, stage + " moves the percentage");
      lastPercent = h.progress().installationPercentage();
      assertEquals(stage == HostStage.DONE ? HostStatus.INSTALLED : HostStatus.INSTALLING_IN_PROGRESS, h.status(), stage.wire());
      if (order.indexOf(stage) > 0) {
        HostStage before = order.get(order.indexOf(stage) - 1);
        HostTransition back = HOSTS.apply(h, c, new HostEvent.ProgressReported(before, ""), at);
        if (h.status() != HostStatus.INSTALLED) {
          assertEquals(409, back.rejection().httpStatus(), "no going back from " + stage + " to " + before);
        }
      }
    }
    assertEquals(100, h.progress().installationPercentage());
  }

  @Test
  void aStageNotInTheRolesListIsRefusedAndFailedMovesToError() {
    HostSnapshot master = installing(1, HostRole.MASTER, false);
    ClusterContext c = cluster(ClusterStatus.INSTALLING, List.of(master));
    assertEquals(409, HOSTS.apply(master, c, new HostEvent.ProgressReported(HostStage.WAITING_FOR_BOOTKUBE, ""), NOW)
        .rejection().httpStatus(), "a plain master never waits for bootkube");
    HostSnapshot failed = apply(master, c, new HostEvent.ProgressReported(HostStage.FAILED, "image checksum mismatch"), NOW);
    assertEquals(HostStatus.ERROR, failed.status());
    assertEquals("Failed - image checksum mismatch", failed.statusInfo());
  }

  @ParameterizedTest(name = "{0}: {1} min stays, {2} min -> {3}")
  @CsvSource({
      "Starting installation, 29, 31, error",
      "Installing, 59, 61, error",
      "Writing image to disk, 29, 31, error",
      "Waiting for control plane, 59, 61, error",
      "Waiting for bootkube, 59, 61, error",
      "Waiting for controller, 59, 61, error",
      "Copying registry data to disk, 89, 91, error",
      "Rebooting, 39, 41, installing-pending-user-action",
      "Configuring, 59, 61, error",
      "Joined, 59, 61, error",
      "Waiting for ignition, 1439, 1441, error"})
  void everyStageTimesOutAsUpstream(String stage, long stays, long times, String to) {
    HostStage s = HostStage.fromWire(stage);
    HostSnapshot h = Fixtures.host(1, HostStatus.INSTALLING_IN_PROGRESS).role(HostRole.MASTER).bootstrap(true)
        .progress(new HostProgress(s, "", NOW, NOW, 20)).build();
    ClusterContext c = cluster(ClusterStatus.INSTALLING, List.of(h));
    // the installer keeps talking: only the stage's own clock runs out
    Instant early = NOW.plus(Duration.ofMinutes(stays));
    Instant late = NOW.plus(Duration.ofMinutes(times));
    assertEquals(HostStatus.INSTALLING_IN_PROGRESS,
        HOSTS.apply(h.toBuilder().checkedInAt(early).build(), c, new HostEvent.Refresh(), early).status());
    assertEquals(HostStatus.fromWire(to), HOSTS.apply(h.toBuilder().checkedInAt(late).build(), c, new HostEvent.Refresh(), late).status());
  }

  @Test
  void aHostThatNeverReportsAStageFailsAfterTwentyMinutes() {
    HostSnapshot h = installing(1, HostRole.MASTER, false).toBuilder().statusUpdatedAt(NOW).checkedInAt(NOW.plusSeconds(1190)).build();
    ClusterContext c = cluster(ClusterStatus.INSTALLING, List.of(h));
    assertEquals(HostStatus.INSTALLING, HOSTS.apply(h, c, new HostEvent.Refresh(), NOW.plusSeconds(1190)).status());
    h = h.toBuilder().checkedInAt(NOW.plusSeconds(1210)).build();
    HostTransition t = HOSTS.apply(h, c, new HostEvent.Refresh(), NOW.plusSeconds(1210));
    assertEquals(HostStatus.ERROR, t.status());
    assertTrue(t.statusInfo().contains("timeout while starting installation"), t.statusInfo());
  }

  static List<HostSnapshot> hosts(int masters, int workers, HostStatus status) {
    List<HostSnapshot> l = new ArrayList<>();
    for (int i = 1; i <= masters + workers; i++) {
      l.add(Fixtures.host(i, status).role(i <= masters ? HostRole.MASTER : HostRole.WORKER).build());
    }
    return l;
  }

  static List<HostSnapshot> with(List<HostSnapshot> hosts, int index, HostStatus status) {
    List<HostSnapshot> l = new ArrayList<>(hosts);
    l.set(index, l.get(index).toBuilder().status(status).build());
    return l;
  }

  @Test
  void aFailedMasterFailsTheClusterAFailedWorkerAmongEnoughDoesNot() {
    List<HostSnapshot> six = hosts(3, 3, HostStatus.INSTALLING_IN_PROGRESS);
    ClusterTransition master = CLUSTERS.apply(cluster(ClusterStatus.INSTALLING, with(six, 0, HostStatus.ERROR)),
        new ClusterEvent.Refresh(), NOW);
    assertEquals(ClusterStatus.ERROR, master.status());
    assertTrue(master.events().stream().anyMatch(e -> e.name().equals("cluster_installation_failed")));
    ClusterTransition worker = CLUSTERS.apply(cluster(ClusterStatus.INSTALLING, with(six, 5, HostStatus.ERROR)),
        new ClusterEvent.Refresh(), NOW);
    assertEquals(ClusterStatus.INSTALLING, worker.status(), "two of three workers are still enough");
    List<HostSnapshot> done = with(hosts(3, 3, HostStatus.INSTALLED), 5, HostStatus.ERROR);
    assertEquals(ClusterStatus.FINALIZING, CLUSTERS.apply(cluster(ClusterStatus.INSTALLING, done), new ClusterEvent.Refresh(), NOW).status());
    ClusterContext finalizing = cluster(ClusterStatus.FINALIZING, done).toBuilder().kubeconfigExists(true).build();
    ClusterTransition installed = CLUSTERS.apply(finalizing, new ClusterEvent.Refresh(), NOW);
    assertEquals(ClusterStatus.INSTALLED, installed.status());
    assertEquals("Cluster is installed but some workers did not join", installed.statusInfo());
  }

  @Test
  void preparationAndFinalizingTimeOutAsUpstream() {
    List<HostSnapshot> five = hosts(3, 2, HostStatus.PREPARING_FOR_INSTALLATION);
    ClusterContext preparing = cluster(ClusterStatus.PREPARING_FOR_INSTALLATION, five).toBuilder().statusUpdatedAt(NOW).build();
    assertEquals(ClusterStatus.PREPARING_FOR_INSTALLATION,
        CLUSTERS.apply(preparing, new ClusterEvent.Refresh(), NOW.plus(Duration.ofMinutes(9))).status());
    ClusterTransition timedOut = CLUSTERS.apply(preparing, new ClusterEvent.Refresh(), NOW.plus(Duration.ofMinutes(11)));
    assertEquals(ClusterStatus.READY, timedOut.status());
    assertEquals("Preparing cluster for installation timeout", timedOut.statusInfo());

    List<HostSnapshot> installed = hosts(3, 2, HostStatus.INSTALLED);
    ClusterContext finalizing = cluster(ClusterStatus.FINALIZING, installed).toBuilder().statusUpdatedAt(NOW).build();
    ClusterContext waiting = Transitions.applied(finalizing, InstallReports.finalizingStage(finalizing,
        FinalizingStage.ADDING_ROUTER_CA, NOW), NOW);
    assertEquals(ClusterStatus.FINALIZING, CLUSTERS.apply(waiting, new ClusterEvent.Refresh(), NOW.plus(Duration.ofMinutes(69))).status());
    ClusterTransition stage = CLUSTERS.apply(waiting, new ClusterEvent.Refresh(), NOW.plus(Duration.ofMinutes(71)));
    assertEquals(ClusterStatus.ERROR, stage.status(), "a finalizing stage has 70 minutes");
    assertTrue(stage.statusInfo().contains("Adding router ca"), stage.statusInfo());
    ClusterContext olm = Transitions.applied(finalizing, InstallReports.finalizingStage(finalizing,
        FinalizingStage.WAITING_FOR_OLM_CSV, NOW), NOW);
    ClusterTransition soft = CLUSTERS.apply(olm, new ClusterEvent.Refresh(), NOW.plus(Duration.ofMinutes(71)));
    assertEquals(ClusterStatus.FINALIZING, soft.status(), "an OLM stage timing out only warns");
    assertTrue(soft.events().stream().anyMatch(e -> e.name().equals("finalizing_stage_timed_out")));
    ClusterContext operators = Transitions.applied(finalizing, InstallReports.finalizingStage(finalizing,
        FinalizingStage.WAITING_FOR_CLUSTER_OPERATORS, NOW), NOW);
    assertEquals(ClusterStatus.FINALIZING, CLUSTERS.apply(operators, new ClusterEvent.Refresh(), NOW.plus(Duration.ofHours(4))).status());
    ClusterTransition whole = CLUSTERS.apply(operators, new ClusterEvent.Refresh(), NOW.plus(Duration.ofHours(5)).plusSeconds(60));
    assertEquals(ClusterStatus.ERROR, whole.status(), "finalizing as a whole has 5 hours");
    assertEquals("Cluster installation timeout while finalizing", whole.statusInfo());
  }
}
