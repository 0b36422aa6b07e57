package dev.rendezvous.service.domain.cluster;

import static dev.rendezvous.service.domain.Fixtures.NOW;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.service.domain.DomainConfig;
import dev.rendezvous.service.domain.DomainEvent;
import dev.rendezvous.service.domain.Fixtures;
import dev.rendezvous.service.domain.Transitions;
import dev.rendezvous.service.domain.host.HostStatus;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The installation's reports against a cluster: what each does, and what each refuses with which status. */
class InstallReportsTest {
  static final ClusterStateMachine MACHINE = new ClusterStateMachine(DomainConfig.defaults());

  static ClusterContext finalizing(String stage) {
    return Fixtures.cluster(List.of(Fixtures.host(1, HostStatus.INSTALLED).build())).status(ClusterStatus.FINALIZING)
        .finalizingStage(stage).finalizingStageStartedAt(stage == null ? null : NOW.minusSeconds(30))
        .monitoredOperators(MonitoredOperators.initial(Fixtures.cluster(List.of()).olmOperators(List.of("lso")).build(), true))
        .build();
  }

  static ClusterContext applied(ClusterContext c, ClusterTransition t) {
    assertFalse(t.rejected(), () -> String.valueOf(t.rejection()));
    return Transitions.applied(c, t, NOW);
  }

  @Test
  void preparingForInstallationSeedsTheMonitoredOperators() {
    ClusterContext ready = Fixtures.cluster(List.of()).status(ClusterStatus.READY).olmOperators(List.of("lso", "cnv")).build();
    ClusterContext preparing = applied(ready, MACHINE.apply(ready, new ClusterEvent.PrepareForInstallation(), NOW));
    assertEquals(List.of("console", "cvo", "lso", "cnv"), preparing.monitoredOperators().stream()
        .map(ClusterContext.MonitoredOperator::name).toList());
    ClusterContext.MonitoredOperator lso = preparing.monitoredOperators().get(2);
    assertEquals("olm", lso.operatorType());
    assertEquals("openshift-local-storage", lso.namespace());
    assertEquals("local-storage-operator", lso.subscriptionName());
    assertEquals("", lso.status());
    assertEquals("not_started", preparing.lastPreparationStatus());
    assertEquals(NOW, preparing.installStartedAt());
  }

  @Test
  void aPreparationResultCountsOnlyForItsOwnPreparation() {
    ClusterContext preparing = Fixtures.cluster(List.of()).status(ClusterStatus.PREPARING_FOR_INSTALLATION)
        .installStartedAt(NOW).build();
    assertTrue(InstallReports.preparationFinished(preparing, NOW.minusSeconds(5), true, null, "built-in").effects().isEmpty());
    ClusterTransition builtIn = InstallReports.preparationFinished(preparing, NOW, true, null, "built-in");
    ClusterContext ok = applied(preparing, builtIn);
    assertEquals("success", ok.lastPreparationStatus());
    assertTrue(builtIn.events().get(0).message().contains("not a real OpenShift payload"), "the user is told");
    ClusterTransition failed = InstallReports.preparationFinished(preparing, NOW, false, "openshift-install exited 3", "openshift-install");
    ClusterContext bad = applied(preparing, failed);
    assertEquals("failed", bad.lastPreparationStatus());
    assertEquals("openshift-install exited 3", bad.lastPreparationReason());
    assertEquals(List.of("prepare_installation_failed"), failed.events().stream().map(DomainEvent::name).toList());
    assertTrue(InstallReports.preparationFinished(ok, NOW, false, "late", "built-in").effects().isEmpty(), "a result is taken once");
  }

  @Test
  void finalizingStagesMoveForwardOnlyWhileFinalizing() {
    ClusterContext c = finalizing(null);
    ClusterTransition first = InstallReports.finalizingStage(c, FinalizingStage.WAITING_FOR_CLUSTER_OPERATORS, NOW);
    ClusterContext waiting = applied(c, first);
    assertEquals(FinalizingStage.WAITING_FOR_CLUSTER_OPERATORS, waiting.finalizingStage());
    assertEquals(NOW, waiting.finalizingStageStartedAt());
    assertEquals("cluster_finalizing_stage_updated", first.events().get(0).name());
    ClusterContext router = applied(waiting, InstallReports.finalizingStage(waiting, FinalizingStage.ADDING_ROUTER_CA, NOW));
    ClusterTransition repeat = InstallReports.finalizingStage(router, FinalizingStage.WAITING_FOR_CLUSTER_OPERATORS, NOW);
    assertFalse(repeat.rejected(), "a restarted controller's repeat is taken");
    assertTrue(repeat.effects().isEmpty() && repeat.events().isEmpty(), "and changes nothing");
    assertEquals(400, InstallReports.finalizingStage(c, "Making coffee", NOW).rejection().httpStatus());
    ClusterContext installing = c.toBuilder().status(ClusterStatus.INSTALLING).build();
    assertEquals(409, InstallReports.finalizingStage(installing, FinalizingStage.DONE, NOW).rejection().httpStatus());
  }

  @Test
  void operatorReportsUpdateTheMonitoredOperatorAndTellTheUserOnChange() {
    ClusterContext c = finalizing(FinalizingStage.WAITING_FOR_CLUSTER_OPERATORS);
    ClusterTransition t = InstallReports.operatorStatus(c, "console", "progressing", "Rolling out", "4.16.3", NOW);
    ClusterContext after = applied(c, t);
    ClusterContext.MonitoredOperator console = after.monitoredOperators().get(0);
    assertEquals("progressing", console.status());
    assertEquals("Rolling out", console.statusInfo());
    assertEquals("4.16.3", console.version());
    assertEquals(NOW, console.statusUpdatedAt());
    assertEquals("Operator console status: progressing message: Rolling out", t.events().get(0).message());
    assertTrue(InstallReports.operatorStatus(after, "console", "progressing", "Rolling out", null, NOW).events().isEmpty(),
        "the same report again says nothing");
    assertEquals(404, InstallReports.operatorStatus(c, "ghost", "available", "", null, NOW).rejection().httpStatus());
    assertEquals(400, InstallReports.operatorStatus(c, "console", "great", "", null, NOW).rejection().httpStatus());
  }

  @Test
  void theClusterIsInstalledOnceHostsKubeconfigAndOperatorsAreThere() {
    ClusterContext c = finalizing(FinalizingStage.WAITING_FOR_CLUSTER_OPERATORS);
    for (String op : List.of("console", "cvo")) {
      c = applied(c, InstallReports.operatorStatus(c, op, "available", "", null, NOW));
    }
    c = applied(c, InstallReports.operatorStatus(c, "lso", "failed", "CSV failed", null, NOW));
    assertEquals(ClusterStatus.FINALIZING, MACHINE.apply(c, new ClusterEvent.Refresh(), NOW).status(),
        "no kubeconfig with the ingress CA yet");
    c = applied(c, InstallReports.kubeconfigStored(c));
    assertTrue(c.kubeconfigExists());
    ClusterTransition done = MACHINE.apply(c, new ClusterEvent.Refresh(), NOW);
    assertEquals(ClusterStatus.INSTALLED, done.status());
    assertEquals("Cluster is installed but degraded", done.statusInfo(), "a failed OLM operator degrades, never fails");
    assertTrue(done.events().stream().anyMatch(e -> e.name().equals("cluster_degraded_OLM_operators_failed")));
  }

  @Test
  void controllerLogsAndTheCompletionCall() {
    ClusterContext c = finalizing(FinalizingStage.DONE);
    ClusterContext requested = applied(c, InstallReports.controllerLogs(c, "requested", NOW));
    assertEquals("requested", requested.logsInfo());
    assertEquals(NOW, requested.controllerLogsStartedAt());
    Instant later = NOW.plusSeconds(30);
    ClusterContext uploaded = Transitions.applied(requested, InstallReports.controllerLogs(requested, "uploaded", later), later);
    assertEquals(later, uploaded.controllerLogsCollectedAt());
    assertEquals(400, InstallReports.controllerLogs(c, "lost", NOW).rejection().httpStatus());
    ClusterTransition failed = InstallReports.completionReported(c, false, "Stopped waiting for cluster operators to be available",
        "[{\"name\":\"console\",\"status\":\"progressing\"}]");
    assertEquals("cluster_operator_report", failed.events().get(0).name());
    assertTrue(failed.events().get(0).message().contains("console"));
    assertNull(failed.rejection());
    assertTrue(InstallReports.completionReported(c, true, null, null).events().isEmpty());
  }
}
