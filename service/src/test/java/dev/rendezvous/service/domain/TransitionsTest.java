package dev.rendezvous.service.domain;

import static dev.rendezvous.service.domain.Fixtures.NOW;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.service.domain.cluster.ClusterContext;
import dev.rendezvous.service.domain.cluster.ClusterEffect;
import dev.rendezvous.service.domain.cluster.ClusterEvent;
import dev.rendezvous.service.domain.cluster.ClusterStateMachine;
import dev.rendezvous.service.domain.cluster.ClusterStatus;
import dev.rendezvous.service.domain.cluster.ClusterTransition;
import dev.rendezvous.service.domain.host.HostEffect;
import dev.rendezvous.service.domain.host.HostEvent;
import dev.rendezvous.service.domain.host.HostProgress;
import dev.rendezvous.service.domain.host.HostRole;
import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.host.HostStage;
import dev.rendezvous.service.domain.host.HostStateMachine;
import dev.rendezvous.service.domain.host.HostStatus;
import dev.rendezvous.service.domain.host.HostTransition;
import dev.rendezvous.service.domain.planning.StepOutputs;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TransitionsTest {
  private final HostStateMachine hosts = new HostStateMachine(DomainConfig.defaults());
  private final ClusterStateMachine clusters = new ClusterStateMachine(DomainConfig.defaults());

  private static HostTransition transition(HostStatus from, HostStatus to, HostEffect... effects) {
    return new HostTransition(from, to, "info", "test rule", List.of(effects), List.of(), null, null);
  }

  @Test
  void statusChangeStampsStatusUpdatedAtAndKeepsItOtherwise() {
    HostSnapshot h = Fixtures.host(1, HostStatus.DISCOVERING).build();
    HostSnapshot moved = Transitions.applied(h, transition(HostStatus.DISCOVERING, HostStatus.KNOWN), NOW);
    assertEquals(HostStatus.KNOWN, moved.status());
    assertEquals("info", moved.statusInfo());
    assertEquals(NOW, moved.statusUpdatedAt());
    HostSnapshot stayed = Transitions.applied(h, transition(HostStatus.DISCOVERING, HostStatus.DISCOVERING), NOW);
    assertEquals(h.statusUpdatedAt(), stayed.statusUpdatedAt());
    assertEquals("info", stayed.statusInfo());
  }

  @Test
  void rejectedTransitionChangesNothing() {
    HostSnapshot h = Fixtures.host(1, HostStatus.INSTALLED).build();
    HostTransition t = hosts.apply(h, Fixtures.cluster(List.of(h)).build(), new HostEvent.Register("v2"), NOW);
    assertTrue(t.rejected());
    assertSame(h, Transitions.applied(h, t, NOW));
  }

  @Test
  void reRegistrationClearsWhatTheOldHardwareReported() {
    HostSnapshot h = Fixtures.host(1, HostStatus.KNOWN).bootstrap(true).logsInfo("completed")
        .imagesStatus(List.of(new StepOutputs.ImageAvailability("img", "success", 1, 1, 1)))
        .progress(new HostProgress(HostStage.INSTALLING, "x", NOW, NOW, 10)).build();
    HostTransition t = hosts.apply(h, Fixtures.cluster(List.of(h)).build(), new HostEvent.Register("agent-v2"), NOW);
    HostSnapshot after = Transitions.applied(h, t, NOW);
    assertEquals(HostStatus.DISCOVERING, after.status());
    assertNull(after.inventory());
    assertNull(after.ntpSources());
    assertFalse(after.bootstrap());
    assertEquals(List.of(), after.imagesStatus());
    assertEquals(HostProgress.NONE, after.progress());
    assertEquals("", after.logsInfo());
    assertEquals("agent-v2", after.discoveryAgentVersion());
  }

  @Test
  void registrationDefaultsOfASingleNodeCluster() {
    HostSnapshot fresh = HostSnapshot.builder(Fixtures.hostId(1), Fixtures.INFRA_ENV).clusterId(Fixtures.CLUSTER).build();
    ClusterContext sno = Fixtures.cluster(List.of()).controlPlaneCount(1).build();
    HostTransition t = hosts.apply(fresh, sno, new HostEvent.Register("v"), NOW);
    HostSnapshot after = Transitions.applied(fresh, t, NOW);
    assertEquals(HostStatus.DISCOVERING, after.status());
    assertEquals(HostRole.MASTER, after.role());
    assertEquals(HostRole.MASTER, after.suggestedRole());
    assertTrue(after.bootstrap());
    assertEquals(NOW, after.statusUpdatedAt());
  }

  @Test
  void everyDataEffectLandsOnTheSnapshot() {
    HostSnapshot h = Fixtures.host(1, HostStatus.INSTALLING_IN_PROGRESS).bootstrap(true)
        .progress(new HostProgress(HostStage.INSTALLING, "", NOW.minusSeconds(60), NOW.minusSeconds(60), 20)).build();
    Instant later = NOW.plusSeconds(5);
    HostProgress p = new HostProgress(HostStage.REBOOTING, "r", later, later, 80);
    HostSnapshot after = Transitions.applied(h, transition(h.status(), h.status(),
        new HostEffect.SetMediaDisconnected(true), new HostEffect.SetConnectionTimedOut(true),
        new HostEffect.SetStageTimedOut(true), new HostEffect.SetProgress(p), new HostEffect.RefreshStageUpdatedAt(later.plusSeconds(1)),
        new HostEffect.SetLogsInfo("requested"), new HostEffect.SetRole(HostRole.WORKER, true),
        new HostEffect.SetInstallationDisk("d1", "/dev/vdb"), new HostEffect.SetRequestedHostname("w-1"),
        new HostEffect.SetCluster(Fixtures.CLUSTER)), later);
    assertTrue(after.mediaDisconnected());
    assertTrue(after.connectionTimedOut());
    assertTrue(after.stageTimedOut());
    assertEquals(HostStage.REBOOTING, after.progress().currentStage());
    assertEquals(later.plusSeconds(1), after.progress().stageUpdatedAt(), "stage_updated_at refreshed after the new progress");
    assertEquals("requested", after.logsInfo());
    assertEquals(HostRole.WORKER, after.role());
    assertFalse(after.bootstrap(), "a worker is never the bootstrap");
    assertEquals("/dev/vdb", after.installationDiskPath());
    assertEquals("w-1", after.requestedHostname());
  }

  @Test
  void unbindClearsClusterData() {
    HostSnapshot h = Fixtures.host(1, HostStatus.KNOWN).role(HostRole.MASTER).bootstrap(true).build();
    HostTransition t = hosts.apply(h, Fixtures.cluster(List.of(h)).build(), new HostEvent.Unbind(), NOW);
    HostSnapshot after = Transitions.applied(h, t, NOW);
    assertEquals(HostStatus.UNBINDING, after.status());
    assertNull(after.clusterId());
    assertEquals(HostRole.AUTO_ASSIGN, after.role());
    assertNull(after.installationDiskPath());
    assertFalse(after.bootstrap());
  }

  @Test
  void refreshStoresValidations() {
    HostSnapshot h = Fixtures.host(1, HostStatus.DISCOVERING).build();
    ClusterContext c = Fixtures.cluster(List.of(h)).build();
    HostTransition t = hosts.apply(h, c, new HostEvent.Refresh(), NOW);
    HostSnapshot after = Transitions.applied(h, t, NOW);
    assertEquals(t.validationsInfo(), after.validationsInfo());
    assertTrue(after.validationsInfo().find("has-min-cpu-cores").isPresent());
  }

  @Test
  void reRegistrationWhilePreparingResetsTheClusterPreparation() {
    HostSnapshot h = Fixtures.host(1, HostStatus.PREPARING_FOR_INSTALLATION).build();
    ClusterContext c = Fixtures.cluster(List.of(h)).status(ClusterStatus.PREPARING_FOR_INSTALLATION)
        .lastPreparationStatus("success").build();
    HostTransition t = hosts.apply(h, c, new HostEvent.Register("v"), NOW);
    assertTrue(Transitions.resetsClusterPreparation(t));
    assertEquals("not_started", Transitions.preparationReset(c).lastPreparationStatus());
  }

  @Test
  void clusterPreparationEffects() {
    ClusterContext ready = Fixtures.cluster(List.of()).status(ClusterStatus.READY).lastPreparationStatus("failed")
        .logsInfo("completed").build();
    ClusterTransition t = clusters.apply(ready, new ClusterEvent.PrepareForInstallation(), NOW);
    ClusterContext after = Transitions.applied(ready, t, NOW);
    assertEquals(ClusterStatus.PREPARING_FOR_INSTALLATION, after.status());
    assertEquals(NOW, after.installStartedAt());
    assertEquals(NOW, after.statusUpdatedAt());
    assertEquals("not_started", after.lastPreparationStatus());
    assertEquals("", after.logsInfo());
  }

  @Test
  void clusterRefreshStoresValidationsAndFlags() {
    ClusterContext c = Fixtures.cluster(List.of()).build();
    ClusterTransition t = clusters.apply(c, new ClusterEvent.Refresh(), NOW);
    ClusterContext after = Transitions.applied(c, t, NOW);
    assertEquals(t.validationsInfo(), after.validationsInfo());
    ClusterTransition flags = new ClusterTransition(c.status(), c.status(), c.statusInfo(), "r",
        List.of(new ClusterEffect.SetFinalizingStageTimedOut(true), new ClusterEffect.SetLogsInfo("timeout")),
        List.of(), null, Map.of(), null);
    ClusterContext flagged = Transitions.applied(c, flags, NOW);
    assertTrue(flagged.finalizingStageTimedOut());
    assertEquals("timeout", flagged.logsInfo());
  }
}
