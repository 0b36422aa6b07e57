package dev.rendezvous.service.domain.cluster;

import static dev.rendezvous.service.domain.Fixtures.NOW;
import static dev.rendezvous.service.domain.cluster.ClusterStatus.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.service.domain.DomainConfig;
import dev.rendezvous.service.domain.DomainEvent;
import dev.rendezvous.service.domain.EventSeverity;
import dev.rendezvous.service.domain.Fixtures;
import dev.rendezvous.service.domain.host.HostEvent;
import dev.rendezvous.service.domain.host.HostRole;
import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.host.HostStatus;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ClusterStateMachineTest {
  static final ClusterStateMachine SM = new ClusterStateMachine(DomainConfig.defaults());
  static final ClusterEvent REFRESH = new ClusterEvent.Refresh();

  /** Three masters and two workers, all in {@code status}; host 1 is overridden by {@code first}. */
  static List<HostSnapshot> hosts(HostStatus status, HostStatus first) {
    return IntStream.rangeClosed(1, 5).mapToObj(i -> Fixtures.host(i, i == 1 && first != null ? first : status)
        .role(i <= 3 ? HostRole.MASTER : HostRole.WORKER).build()).toList();
  }

  static Arguments row(String name, ClusterStatus from, List<HostSnapshot> hosts, UnaryOperator<ClusterContext.Builder> edit,
      ClusterStatus to, String info) {
    return Arguments.of(name, from, hosts, edit, to, info);
  }

  static Stream<Arguments> rows() {
    UnaryOperator<ClusterContext.Builder> same = b -> b;
    List<HostSnapshot> known = hosts(HostStatus.KNOWN, null);
    return Stream.of(
        row("all set: ready", INSUFFICIENT, known, same, READY, "Cluster ready to be installed"),
        row("missing base domain: pending for input", READY, known, b -> b.baseDnsDomain(""), PENDING_FOR_INPUT, "User input required"),
        row("missing VIP: pending for input", INSUFFICIENT, known, b -> b.apiVips(List.of()), PENDING_FOR_INPUT, "User input required"),
        row("a host insufficient: insufficient", READY, hosts(HostStatus.KNOWN, HostStatus.INSUFFICIENT), same, INSUFFICIENT, "Cluster is not ready for install"),
        row("DHCP mode without VIPs: insufficient", PENDING_FOR_INPUT, known, b -> b.vipDhcpAllocation(true).apiVips(List.of()).ingressVips(List.of()), INSUFFICIENT, "not ready"),
        row("all prepared: installing", PREPARING_FOR_INSTALLATION, hosts(HostStatus.PREPARING_SUCCESSFUL, null), b -> b.lastPreparationStatus("success"), INSTALLING, "Installation in progress"),
        row("prepared but generation pending: stay", PREPARING_FOR_INSTALLATION, hosts(HostStatus.PREPARING_SUCCESSFUL, null), same, PREPARING_FOR_INSTALLATION, ""),
        row("preparing over 10 min: back to ready", PREPARING_FOR_INSTALLATION, hosts(HostStatus.PREPARING_FOR_INSTALLATION, null), b -> b.statusUpdatedAt(NOW.minusSeconds(601)), READY, "Preparing cluster for installation timeout"),
        row("a host left preparation", PREPARING_FOR_INSTALLATION, hosts(HostStatus.PREPARING_SUCCESSFUL, HostStatus.DISCONNECTED), same, INSUFFICIENT, "At least one host has stopped preparing for installation"),
        row("a host failed preparing", PREPARING_FOR_INSTALLATION, hosts(HostStatus.PREPARING_SUCCESSFUL, HostStatus.PREPARING_FAILED), same, READY, "Cluster failed to prepare for installation"),
        row("generation failed", PREPARING_FOR_INSTALLATION, hosts(HostStatus.PREPARING_SUCCESSFUL, null), b -> b.lastPreparationStatus("failed"), READY, "Cluster failed to prepare"),
        row("installing stays", INSTALLING, hosts(HostStatus.INSTALLING_IN_PROGRESS, null), same, INSTALLING, ""),
        row("losing a master while installing", INSTALLING, hosts(HostStatus.INSTALLING_IN_PROGRESS, HostStatus.ERROR), same, ERROR, "cluster has hosts in error"),
        row("losing one of two workers while installing", INSTALLING, List.of(
            Fixtures.host(1, HostStatus.INSTALLING_IN_PROGRESS).role(HostRole.MASTER).build(), Fixtures.host(2, HostStatus.INSTALLING_IN_PROGRESS).role(HostRole.MASTER).build(),
            Fixtures.host(3, HostStatus.INSTALLING_IN_PROGRESS).role(HostRole.MASTER).build(), Fixtures.host(4, HostStatus.ERROR).role(HostRole.WORKER).build(),
            Fixtures.host(5, HostStatus.INSTALLING_IN_PROGRESS).role(HostRole.WORKER).build()), same, ERROR, "cluster has hosts in error"),
        row("losing a third worker is fine", INSTALLING, Stream.concat(hosts(HostStatus.INSTALLING_IN_PROGRESS, null).stream(),
            Stream.of(Fixtures.host(6, HostStatus.ERROR).role(HostRole.WORKER).build())).toList(), same, INSTALLING, ""),
        row("all installed: finalizing", INSTALLING, hosts(HostStatus.INSTALLED, null), same, FINALIZING, "Finalizing cluster installation"),
        row("a host waits for the user", INSTALLING, hosts(HostStatus.INSTALLING_IN_PROGRESS, HostStatus.INSTALLING_PENDING_USER_ACTION), same, INSTALLING_PENDING_USER_ACTION, "Cluster has hosts pending user action"),
        row("user fixed boot order", INSTALLING_PENDING_USER_ACTION, hosts(HostStatus.INSTALLING_IN_PROGRESS, null), same, INSTALLING, "Installation in progress"),
        row("pending user action for 24h", INSTALLING_PENDING_USER_ACTION, hosts(HostStatus.INSTALLING_IN_PROGRESS, HostStatus.INSTALLING_PENDING_USER_ACTION),
            b -> b.installStartedAt(NOW.minus(Duration.ofHours(25))), ERROR, "cluster installation timed out while pending user action"),
        row("pending user action within 24h stays", INSTALLING_PENDING_USER_ACTION, hosts(HostStatus.INSTALLING_IN_PROGRESS, HostStatus.INSTALLING_PENDING_USER_ACTION),
            b -> b.installStartedAt(NOW.minus(Duration.ofHours(23))), INSTALLING_PENDING_USER_ACTION, ""),
        row("pending user action, master in error", INSTALLING_PENDING_USER_ACTION, List.of(
            Fixtures.host(1, HostStatus.ERROR).role(HostRole.MASTER).build(), Fixtures.host(2, HostStatus.INSTALLING_PENDING_USER_ACTION).role(HostRole.MASTER).build(),
            Fixtures.host(3, HostStatus.INSTALLED).role(HostRole.MASTER).build()), same, ERROR, "cluster has hosts in error"),
        row("finalizing without kubeconfig waits", FINALIZING, hosts(HostStatus.INSTALLED, null), b -> b.statusUpdatedAt(NOW.minusSeconds(60)), FINALIZING, ""),
        row("finalizing done", FINALIZING, hosts(HostStatus.INSTALLED, null), b -> b.kubeconfigExists(true).statusUpdatedAt(NOW.minusSeconds(60)), INSTALLED, "Cluster is installed"),
        row("finalizing with failed OLM operator", FINALIZING, hosts(HostStatus.INSTALLED, null), b -> b.kubeconfigExists(true).statusUpdatedAt(NOW.minusSeconds(60))
            .monitoredOperators(List.of(new ClusterContext.MonitoredOperator("lso", "olm", "failed"))), INSTALLED, "Cluster is installed but degraded"),
        row("finalizing with a worker in error", FINALIZING, Stream.concat(hosts(HostStatus.INSTALLED, null).stream(),
            Stream.of(Fixtures.host(6, HostStatus.ERROR).role(HostRole.WORKER).build())).toList(), b -> b.kubeconfigExists(true).statusUpdatedAt(NOW.minusSeconds(60)),
            INSTALLED, "Cluster is installed but some workers did not join"),
        row("finalizing waits for console operator", FINALIZING, hosts(HostStatus.INSTALLED, null), b -> b.kubeconfigExists(true).statusUpdatedAt(NOW.minusSeconds(60))
            .monitoredOperators(List.of(new ClusterContext.MonitoredOperator("console", "builtin", "progressing"))), FINALIZING, ""),
        row("finalizing over 5h", FINALIZING, hosts(HostStatus.INSTALLED, null), b -> b.statusUpdatedAt(NOW.minus(Duration.ofHours(5)).minusSeconds(1)), ERROR, "Cluster installation timeout while finalizing"),
        row("finalizing stage over 10h", FINALIZING, hosts(HostStatus.INSTALLED, null), b -> b.statusUpdatedAt(NOW.minusSeconds(60))
            .finalizingStage(FinalizingStage.WAITING_FOR_CLUSTER_OPERATORS).finalizingStageStartedAt(NOW.minus(Duration.ofHours(11))), ERROR,
            "Cluster finalizing stage 'Waiting for cluster operators' has been timed out after timeout duration of 600 minutes"),
        row("OLM stage timeout only warns", FINALIZING, hosts(HostStatus.INSTALLED, null), b -> b.statusUpdatedAt(NOW.minusSeconds(60))
            .finalizingStage(FinalizingStage.WAITING_FOR_OLM_CSV).finalizingStageStartedAt(NOW.minus(Duration.ofMinutes(71))), FINALIZING,
            "Cluster finalizing stage 'Waiting for olm operators csv' is taking longer than the expected duration (70 minutes)"),
        row("soft timeouts: installation over 24h", INSTALLING, hosts(HostStatus.INSTALLING_IN_PROGRESS, null), b -> b.softTimeoutsEnabled(true).installStartedAt(NOW.minus(Duration.ofHours(25))),
            ERROR, "cluster installation timeout (1440 minutes) has expired"),
        row("error stays", ERROR, hosts(HostStatus.ERROR, null), b -> b.logsInfo("completed"), ERROR, ""));
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @MethodSource("rows")
  void refresh(String name, ClusterStatus from, List<HostSnapshot> hosts, UnaryOperator<ClusterContext.Builder> edit,
      ClusterStatus to, String info) {
    ClusterContext c = edit.apply(Fixtures.cluster(hosts).status(from)).build();
    ClusterTransition t = SM.apply(c, REFRESH, NOW);
    assertNull(t.rejection());
    assertEquals(to, t.status(), t.rule() + " / " + t.statusInfo());
    assertTrue(t.statusInfo().contains(info), t.statusInfo());
    assertEquals(from != to, t.events().stream().anyMatch(e -> e.name().equals("cluster_status_updated")));
  }

  @Test
  void installationFailureIsCritical() {
    ClusterTransition t = SM.apply(Fixtures.cluster(hosts(HostStatus.INSTALLING_IN_PROGRESS, HostStatus.ERROR)).status(INSTALLING).build(), REFRESH, NOW);
    DomainEvent e = t.events().stream().filter(x -> x.name().equals("cluster_installation_failed")).findFirst().orElseThrow();
    assertEquals(EventSeverity.CRITICAL, e.severity());
    assertEquals("Failed installing cluster. Reason: cluster has hosts in error", e.message());
    assertTrue(t.effects().contains(new ClusterEffect.SetInstallCompletedAt(NOW)));
  }

  @Test
  void actions() {
    ClusterContext ready = Fixtures.cluster(hosts(HostStatus.KNOWN, null)).status(READY).build();
    ClusterTransition prepare = SM.apply(ready, new ClusterEvent.PrepareForInstallation(), NOW);
    assertEquals(PREPARING_FOR_INSTALLATION, prepare.status());
    assertTrue(prepare.effects().contains(new ClusterEffect.SetInstallStartedAt(NOW)));
    assertEquals(409, SM.apply(ready.toBuilder().status(INSUFFICIENT).build(), new ClusterEvent.PrepareForInstallation(), NOW).rejection().httpStatus());

    ClusterContext installing = ready.toBuilder().status(INSTALLING).build();
    ClusterTransition cancel = SM.apply(installing, new ClusterEvent.CancelInstallation("Installation was cancelled by user"), NOW);
    assertEquals(CANCELLED, cancel.status());
    assertEquals(5, cancel.hostEvents().size());
    assertTrue(cancel.hostEvents().values().stream().allMatch(e -> e instanceof HostEvent.CancelInstallation));
    assertEquals(READY, SM.apply(ready.toBuilder().status(PREPARING_FOR_INSTALLATION).build(), new ClusterEvent.CancelInstallation("x"), NOW).status());

    ClusterTransition reset = SM.apply(installing.toBuilder().status(ERROR).build(), new ClusterEvent.ResetInstallation(null), NOW);
    assertEquals(INSUFFICIENT, reset.status());
    assertTrue(reset.hostEvents().values().stream().allMatch(e -> e instanceof HostEvent.ResetPendingUserAction));
    assertEquals(409, SM.apply(ready, new ClusterEvent.ResetInstallation(null), NOW).rejection().httpStatus());
  }

  @Test
  void refreshReportsClusterValidationChanges() {
    ClusterContext c = Fixtures.cluster(hosts(HostStatus.KNOWN, null)).status(READY).build();
    ClusterTransition first = SM.apply(c, REFRESH, NOW);
    ClusterContext noSecret = c.toBuilder().validationsInfo(first.validationsInfo()).pullSecretSet(false).build();
    ClusterTransition t = SM.apply(noSecret, REFRESH, NOW);
    assertEquals(PENDING_FOR_INPUT, t.status());
    assertTrue(t.events().stream().anyMatch(e -> e.name().equals("cluster_validation_failed")
        && e.message().equals("Cluster validation 'pull-secret-set' that used to succeed is now failing")));
  }
}
