package dev.rendezvous.service.domain;

import static dev.rendezvous.service.domain.Fixtures.NOW;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rendezvous.service.domain.cluster.ClusterContext;
import dev.rendezvous.service.domain.cluster.ClusterStatus;
import dev.rendezvous.service.domain.host.HostEvent;
import dev.rendezvous.service.domain.host.HostProgress;
import dev.rendezvous.service.domain.host.HostRole;
import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.host.HostStage;
import dev.rendezvous.service.domain.host.HostStateMachine;
import dev.rendezvous.service.domain.host.HostStatus;
import dev.rendezvous.service.domain.host.HostTransition;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Timeouts are driven only by the {@code now} argument: a scripted clock walks a host through them. */
class TimeoutsTest {

  /** Applies a refresh at {@code at} and returns the host with the transition's status written back. */
  static HostSnapshot refreshAt(HostStateMachine sm, HostSnapshot h, Instant at) {
    ClusterContext c = Fixtures.cluster(List.of(h, Fixtures.host(2, HostStatus.KNOWN).build(), Fixtures.host(3, HostStatus.KNOWN).build())).build();
    HostTransition t = sm.apply(h, c, new HostEvent.Refresh(), at);
    HostSnapshot.Builder b = h.toBuilder().status(t.status()).statusInfo(t.statusInfo()).validationsInfo(t.validationsInfo());
    if (t.statusChanged()) {
      b.statusUpdatedAt(at);
    }
    return b.build();
  }

  @Test
  void hostDisconnectsAfterThreeMinutesAndComesBack() {
    HostStateMachine sm = new HostStateMachine(DomainConfig.defaults());
    Instant checkIn = NOW;
    HostSnapshot h = Fixtures.host(1, HostStatus.KNOWN).checkedInAt(checkIn).build();
    h = refreshAt(sm, h, checkIn.plusSeconds(179));
    assertEquals(HostStatus.KNOWN, h.status());
    h = refreshAt(sm, h, checkIn.plusSeconds(181));
    assertEquals(HostStatus.DISCONNECTED, h.status());
    Instant back = checkIn.plusSeconds(600);
    h = refreshAt(sm, h.toBuilder().checkedInAt(back).build(), back.plusSeconds(5));
    assertEquals(HostStatus.KNOWN, h.status(), h.statusInfo());
  }

  @Test
  void disconnectionLimitIsConfigurable() {
    DomainConfig cfg = DomainConfig.defaults().withTimeouts(DomainTimeouts.defaults().withHostDisconnection(Duration.ofSeconds(30)));
    HostStateMachine sm = new HostStateMachine(cfg);
    HostSnapshot h = Fixtures.host(1, HostStatus.KNOWN).checkedInAt(NOW).build();
    assertEquals(HostStatus.DISCONNECTED, refreshAt(sm, h, NOW.plusSeconds(31)).status());
  }

  @ParameterizedTest(name = "[{index}] {0} for {1} min -> {2}")
  @CsvSource({
    "Starting installation, 29, installing-in-progress",
    "Starting installation, 31, error",
    "Copying registry data to disk, 89, installing-in-progress",
    "Copying registry data to disk, 91, error",
    "Waiting for ignition, 1000, installing-in-progress",
    "Configuring, 61, error",
    "Rebooting, 39, installing-in-progress",
    "Rebooting, 41, installing-pending-user-action",
  })
  void perStageTimeouts(String stage, long minutes, String expected) {
    HostStateMachine sm = new HostStateMachine(DomainConfig.defaults());
    Instant at = NOW.minus(Duration.ofMinutes(minutes));
    HostSnapshot h = Fixtures.host(1, HostStatus.INSTALLING_IN_PROGRESS).role(HostRole.WORKER)
        .progress(new HostProgress(HostStage.fromWire(stage), "", at, at, 10)).build();
    ClusterContext c = Fixtures.cluster(List.of(h)).status(ClusterStatus.INSTALLING).build();
    assertEquals(expected, sm.apply(h, c, new HostEvent.Refresh(), NOW).status().wire());
  }

  @Test
  void reclaimTimesOutAfterAnHour() {
    HostStateMachine sm = new HostStateMachine(DomainConfig.defaults());
    HostSnapshot h = Fixtures.host(1, HostStatus.RECLAIMING).statusUpdatedAt(NOW.minus(Duration.ofMinutes(59))).build();
    ClusterContext c = Fixtures.cluster(List.of(h)).build();
    assertEquals(HostStatus.RECLAIMING, sm.apply(h, c, new HostEvent.Refresh(), NOW).status());
    assertEquals(HostStatus.UNBINDING_PENDING_USER_ACTION, sm.apply(h, c, new HostEvent.Refresh(), NOW.plusSeconds(120)).status());
  }

  @Test
  void goDurationFormatMatchesUpstreamMessages() {
    assertEquals("1h0m0s", Formats.goDuration(Duration.ofMinutes(60)));
    assertEquals("30m0s", Formats.goDuration(Duration.ofMinutes(30)));
    assertEquals("24h0m0s", Formats.goDuration(Duration.ofHours(24)));
  }

  @Test
  void timeoutsAreReplacedByNameAndDurationsReadAsUpstreamWritesThem() {
    DomainTimeouts d = DomainTimeouts.defaults().withOverrides(java.util.Map.of(
        "host-stage-writing-image-to-disk", java.time.Duration.ofMinutes(10),
        "finalizing-stage-waiting-for-cluster-operators", java.time.Duration.ofHours(2),
        "cluster-installation", java.time.Duration.ofHours(3)));
    assertEquals(java.time.Duration.ofMinutes(10),
        d.stageTimeout(dev.rendezvous.service.domain.host.HostStage.WRITING_IMAGE_TO_DISK, false));
    assertEquals(java.time.Duration.ofMinutes(60),
        d.stageTimeout(dev.rendezvous.service.domain.host.HostStage.INSTALLING, false), "the others keep theirs");
    assertEquals(java.time.Duration.ofHours(2), d.finalizingStageTimeout(
        dev.rendezvous.service.domain.cluster.FinalizingStage.WAITING_FOR_CLUSTER_OPERATORS, false));
    assertEquals(java.time.Duration.ofHours(3), d.clusterInstallation());
    assertEquals(DomainTimeouts.defaults().byName().keySet(), d.byName().keySet());
    org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> DomainTimeouts.defaults()
        .withOverrides(java.util.Map.of("host-stage-writing-image-to-disk", java.time.Duration.ZERO)));
    assertEquals(java.time.Duration.ofMinutes(90), DomainTimeouts.parse("1h30m"));
    assertEquals(java.time.Duration.ofMillis(1500), DomainTimeouts.parse("1s500ms"));
    assertEquals(java.time.Duration.ofSeconds(45), DomainTimeouts.parse("45"));
    for (String bad : java.util.List.of("", "5x", "m5", "1h 30m")) {
      org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> DomainTimeouts.parse(bad), bad);
    }
  }
}
