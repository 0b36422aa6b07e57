package dev.rendezvous.service.domain.host;

import static dev.rendezvous.service.domain.Fixtures.NOW;
import static dev.rendezvous.service.domain.host.HostStatus.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.service.domain.DomainConfig;
import dev.rendezvous.service.domain.DomainEvent;
import dev.rendezvous.service.domain.EventSeverity;
import dev.rendezvous.service.domain.Fixtures;
import dev.rendezvous.service.domain.cluster.ClusterContext;
import dev.rendezvous.service.domain.cluster.ClusterStatus;
import dev.rendezvous.service.domain.planning.StepOutputs;
import dev.rendezvous.service.domain.validation.ValidationsInfo;
import dev.rendezvous.service.domain.validation.ValidationResult;
import dev.rendezvous.service.domain.validation.ValidationStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class HostStateMachineTest {
  static final HostStateMachine SM = new HostStateMachine(DomainConfig.defaults());
  static final HostEvent REFRESH = new HostEvent.Refresh();
  static final UnaryOperator<ClusterContext.Builder> ANY = b -> b;

  static UnaryOperator<ClusterContext.Builder> clusterStatus(ClusterStatus s) {
    return b -> b.status(s);
  }

  static HostProgress stage(HostStage s, long minutesAgo) {
    Instant at = NOW.minus(Duration.ofMinutes(minutesAgo));
    return new HostProgress(s, "", at, at, 10);
  }

  /** Host 1 (the subject) in a three-host cluster; hosts 2 and 3 are known. */
  static HostTransition apply(HostStatus from, UnaryOperator<HostSnapshot.Builder> host,
      UnaryOperator<ClusterContext.Builder> cluster, HostEvent event) {
    HostSnapshot h = host.apply(Fixtures.host(1, from)).build();
    List<HostSnapshot> hosts = List.of(h, Fixtures.host(2, KNOWN).build(), Fixtures.host(3, KNOWN).build());
    ClusterContext c = cluster.apply(Fixtures.cluster(hosts)).build();
    return SM.apply(h, h.unbound() ? null : c, event, NOW);
  }

  private static Arguments row(String name, HostStatus from, UnaryOperator<HostSnapshot.Builder> host,
      UnaryOperator<ClusterContext.Builder> cluster, HostEvent event, HostStatus to, String info) {
    return Arguments.of(name, from, host, cluster, event, to, info);
  }

  private static UnaryOperator<HostSnapshot.Builder> h(UnaryOperator<HostSnapshot.Builder> f) {
    return f;
  }

  static final UnaryOperator<HostSnapshot.Builder> SAME = b -> b;
  static final UnaryOperator<HostSnapshot.Builder> DISCONNECTED_4M = b -> b.checkedInAt(NOW.minusSeconds(240));
  static final UnaryOperator<HostSnapshot.Builder> UNBOUND = b -> b.clusterId(null);

  static Stream<Arguments> rows() {
    HostEvent register = new HostEvent.Register("agent:v1");
    return Stream.of(
        // --- registration ---
        row("new bound host", null, SAME, ANY, register, DISCOVERING, "Waiting for host to send hardware details"),
        row("new unbound host", null, UNBOUND, ANY, register, DISCOVERING_UNBOUND, "Waiting for host to send hardware details"),
        row("re-register while known", KNOWN, SAME, ANY, register, DISCOVERING, "Waiting for host"),
        row("re-register while disconnected", DISCONNECTED, SAME, ANY, register, DISCOVERING, "Waiting for host"),
        row("re-register while binding", BINDING, SAME, ANY, register, DISCOVERING, "Waiting for host"),
        row("re-register while preparing keeps inventory", PREPARING_FOR_INSTALLATION, SAME, ANY, register, KNOWN, "Host is ready to be installed"),
        row("resetting host rebooting ignored", RESETTING, h(b -> b.progress(stage(HostStage.REBOOTING, 1))), ANY, register, RESETTING, ""),
        row("resetting host registers", RESETTING, SAME, ANY, register, DISCOVERING, "Waiting for host"),
        row("booted the ISO again after reboot", INSTALLING_IN_PROGRESS, h(b -> b.progress(stage(HostStage.REBOOTING, 1))), ANY, register,
            INSTALLING_PENDING_USER_ACTION, "Expected the host to boot from disk, but it booted the installation image - please reboot and fix boot order to boot from disk QEMU_HARDDISK 05abcd4ae2c1f2b1 (sda, /dev/disk/by-id/wwn-0x05abcd4ae2c1f2b1)"),
        row("restarted during install", INSTALLING_IN_PROGRESS, h(b -> b.progress(stage(HostStage.WRITING_IMAGE_TO_DISK, 1))), ANY, register, ERROR, "The host unexpectedly restarted during the installation"),
        row("register in error accepted", ERROR, h(b -> b.statusInfo("boom")), ANY, register, ERROR, "boom"),
        row("pool host re-registers", KNOWN_UNBOUND, UNBOUND, ANY, register, DISCOVERING_UNBOUND, "Waiting for host"),
        row("unbinding host re-registers unbound", UNBINDING, UNBOUND, ANY, register, DISCOVERING_UNBOUND, "Waiting for host"),
        // --- refresh: discovery ---
        row("discovering with good inventory becomes known", DISCOVERING, SAME, ANY, REFRESH, KNOWN, "Host is ready to be installed"),
        row("reconnecting after disconnection", DISCONNECTED, SAME, ANY, REFRESH, KNOWN, "Host is ready to be installed"),
        row("reconnecting without inventory", DISCONNECTED, h(b -> b.inventory(null)), ANY, REFRESH, DISCOVERING, "Waiting for host to send hardware details"),
        row("known host loses contact", KNOWN, DISCONNECTED_4M, ANY, REFRESH, DISCONNECTED, "Host has stopped communicating with the installation service"),
        row("media disconnected on refresh", KNOWN, h(b -> b.mediaDisconnected(true)), ANY, REFRESH, DISCONNECTED, "Host has stopped communicating"),
        row("1 core: insufficient hardware", DISCOVERING, h(b -> b.inventory(Fixtures.inventoryForHost(1, Fixtures.cpu(1)))), ANY, REFRESH,
            INSUFFICIENT, "Host does not meet the minimum hardware requirements: Require at least 2 CPU cores for auto-assign role, found only 1 ; The host is not eligible to participate in Openshift Cluster because the minimum required CPU cores for any role is 2, found only 1"),
        row("no machine network: pending for input", KNOWN, SAME, b -> b.machineNetworks(List.of()).apiVips(List.of()).ingressVips(List.of()), REFRESH,
            PENDING_FOR_INPUT, "Waiting for user input: Machine Network CIDR is undefined"),
        row("not ready: sorted failing messages", KNOWN, h(b -> b.requestedHostname("localhost").ntpSources(List.of())), ANY, REFRESH,
            INSUFFICIENT, "Host cannot be installed due to following failing validation(s): Host couldn't synchronize with any NTP server ; The host name localhost is forbidden"),
        row("known stays known", KNOWN, SAME, ANY, REFRESH, KNOWN, "Host is ready to be installed"),
        row("insufficient recovers", INSUFFICIENT, SAME, ANY, REFRESH, KNOWN, "Host is ready to be installed"),
        // --- refresh: preparation ---
        row("known moves to preparing", KNOWN, h(b -> b.role(HostRole.MASTER)), clusterStatus(ClusterStatus.PREPARING_FOR_INSTALLATION), REFRESH,
            PREPARING_FOR_INSTALLATION, "Host finished successfully to prepare for installation"),
        row("auto-assign without suggestion stays known", KNOWN, SAME, clusterStatus(ClusterStatus.PREPARING_FOR_INSTALLATION), REFRESH, KNOWN, "ready"),
        row("preparing waits for disk speed", PREPARING_FOR_INSTALLATION, h(b -> b.role(HostRole.MASTER)), clusterStatus(ClusterStatus.PREPARING_FOR_INSTALLATION), REFRESH, PREPARING_FOR_INSTALLATION, ""),
        row("preparing succeeds", PREPARING_FOR_INSTALLATION, h(b -> b.role(HostRole.MASTER).diskSpeeds(java.util.Map.of("/dev/sda", new HostSnapshot.DiskSpeed(true, 0, 3)))),
            clusterStatus(ClusterStatus.PREPARING_FOR_INSTALLATION), REFRESH, PREPARING_SUCCESSFUL, "Host finished successfully to prepare for installation"),
        row("preparing times out after 8 min", PREPARING_FOR_INSTALLATION, h(b -> b.role(HostRole.MASTER).statusUpdatedAt(NOW.minusSeconds(481))),
            clusterStatus(ClusterStatus.PREPARING_FOR_INSTALLATION), REFRESH, PREPARING_FAILED,
            "The host has encountered a preparation timeout, the following conditions failed: the installation disk speed check did not complete within the timeout."),
        row("slow disk: insufficient", PREPARING_FOR_INSTALLATION, h(b -> b.diskSpeeds(java.util.Map.of("/dev/sda", new HostSnapshot.DiskSpeed(true, 1, 0)))),
            clusterStatus(ClusterStatus.PREPARING_FOR_INSTALLATION), REFRESH, INSUFFICIENT, "Host cannot be installed due to following failing validation(s): While preparing the previous installation"),
        row("image pull failed", PREPARING_FOR_INSTALLATION, h(b -> b.imagesStatus(List.of(new StepOutputs.ImageAvailability("quay.io/x", "failure", 0, 0, 0)))),
            clusterStatus(ClusterStatus.PREPARING_FOR_INSTALLATION), REFRESH, PREPARING_FAILED, "Host failed to prepare for installation due to following failing validation(s): Failed to fetch container images"),
        row("preparing host disconnects", PREPARING_FOR_INSTALLATION, DISCONNECTED_4M, clusterStatus(ClusterStatus.PREPARING_FOR_INSTALLATION), REFRESH,
            DISCONNECTED, "Host failed to install due to timeout while connecting to host during the preparation phase."),
        row("prepared host installs", PREPARING_SUCCESSFUL, SAME, clusterStatus(ClusterStatus.INSTALLING), REFRESH, INSTALLING, "Installation is in progress"),
        row("prepared host back to known", PREPARING_SUCCESSFUL, SAME, clusterStatus(ClusterStatus.READY), REFRESH, KNOWN, "Host is ready to be installed"),
        row("preparing failed back to known", PREPARING_FAILED, SAME, clusterStatus(ClusterStatus.READY), REFRESH, KNOWN, "ready"),
        // --- refresh: installation ---
        row("installing without progress for 21 min", INSTALLING, h(b -> b.statusUpdatedAt(NOW.minusSeconds(21 * 60))), clusterStatus(ClusterStatus.INSTALLING), REFRESH,
            ERROR, "Host failed to install due to timeout while starting installation"),
        row("installing host disconnects", INSTALLING_IN_PROGRESS, h(b -> b.checkedInAt(NOW.minusSeconds(181)).progress(stage(HostStage.WRITING_IMAGE_TO_DISK, 1))),
            clusterStatus(ClusterStatus.INSTALLING), REFRESH, ERROR, "Host failed to install due to timeout while connecting to host during the installation phase."),
        row("bootstrap has 5 min", INSTALLING_IN_PROGRESS, h(b -> b.bootstrap(true).checkedInAt(NOW.minusSeconds(240)).progress(stage(HostStage.WAITING_FOR_BOOTKUBE, 1))),
            clusterStatus(ClusterStatus.INSTALLING), REFRESH, INSTALLING_IN_PROGRESS, ""),
        row("bootstrap after 5 min", INSTALLING_IN_PROGRESS, h(b -> b.bootstrap(true).checkedInAt(NOW.minusSeconds(301)).progress(stage(HostStage.WAITING_FOR_BOOTKUBE, 1))),
            clusterStatus(ClusterStatus.INSTALLING), REFRESH, ERROR, "during the installation phase"),
        row("no disconnection timeout after Rebooting", INSTALLING_IN_PROGRESS, h(b -> b.checkedInAt(NOW.minusSeconds(3600)).progress(stage(HostStage.CONFIGURING, 5))),
            clusterStatus(ClusterStatus.INSTALLING), REFRESH, INSTALLING_IN_PROGRESS, ""),
        row("stage timeout", INSTALLING_IN_PROGRESS, h(b -> b.progress(stage(HostStage.INSTALLING, 61))), clusterStatus(ClusterStatus.INSTALLING), REFRESH,
            ERROR, "Host failed to install because its installation stage Installing took longer than expected 1h0m0s"),
        row("writing image timeout", INSTALLING_IN_PROGRESS, h(b -> b.progress(stage(HostStage.WRITING_IMAGE_TO_DISK, 31))), clusterStatus(ClusterStatus.INSTALLING), REFRESH,
            ERROR, "its installation stage Writing image to disk did not sufficiently progress in the last 30m0s."),
        row("reboot timeout asks for boot order", INSTALLING_IN_PROGRESS, h(b -> b.progress(stage(HostStage.REBOOTING, 41))), clusterStatus(ClusterStatus.INSTALLING), REFRESH,
            INSTALLING_PENDING_USER_ACTION, "boots from the OpenShift installation disk (sda, /dev/disk/by-id/wwn-0x05abcd4ae2c1f2b1)"),
        row("SNO reboot gets 80 min", INSTALLING_IN_PROGRESS, h(b -> b.progress(stage(HostStage.REBOOTING, 60))), b -> b.status(ClusterStatus.INSTALLING).controlPlaneCount(1), REFRESH,
            INSTALLING_IN_PROGRESS, ""),
        row("stage timeout ignored while cluster waits for user", INSTALLING_IN_PROGRESS, h(b -> b.progress(stage(HostStage.WAITING_FOR_CONTROL_PLANE, 120))),
            clusterStatus(ClusterStatus.INSTALLING_PENDING_USER_ACTION), REFRESH, INSTALLING_IN_PROGRESS, ""),
        row("cluster error aborts host", INSTALLING_IN_PROGRESS, SAME, clusterStatus(ClusterStatus.ERROR), REFRESH, ERROR, "Host is part of a cluster that failed to install"),
        row("installed stays", INSTALLED, SAME, clusterStatus(ClusterStatus.FINALIZING), REFRESH, INSTALLED, ""),
        row("error stays", ERROR, h(b -> b.logsInfo("completed")), ANY, REFRESH, ERROR, ""),
        // --- progress ---
        row("first progress", INSTALLING, h(b -> b.role(HostRole.MASTER)), ANY, new HostEvent.ProgressReported(HostStage.STARTING_INSTALLATION, ""),
            INSTALLING_IN_PROGRESS, "Starting installation"),
        row("Done installs", INSTALLING_IN_PROGRESS, h(b -> b.role(HostRole.MASTER).progress(stage(HostStage.JOINED, 1))), ANY,
            new HostEvent.ProgressReported(HostStage.DONE, ""), INSTALLED, "Done"),
        row("stage Failed goes straight to error", INSTALLING_IN_PROGRESS, h(b -> b.role(HostRole.MASTER).progress(stage(HostStage.INSTALLING, 1))), ANY,
            new HostEvent.ProgressReported(HostStage.FAILED, "failed to write image"), ERROR, "Failed - failed to write image"),
        row("day-2 Rebooting is Done", INSTALLING_IN_PROGRESS, h(b -> b.day2(true).role(HostRole.WORKER).progress(stage(HostStage.WRITING_IMAGE_TO_DISK, 1))),
            b -> b.day2(true).status(ClusterStatus.ADDING_HOSTS), new HostEvent.ProgressReported(HostStage.REBOOTING, ""), ADDED_TO_EXISTING_CLUSTER, "Host has rebooted"),
        // --- user / API ---
        row("install step failed", INSTALLING, SAME, ANY, new HostEvent.InstallationFailed("exit code 1"), ERROR, "exit code 1"),
        row("cancel during install", INSTALLING_IN_PROGRESS, SAME, ANY, new HostEvent.CancelInstallation("Installation was cancelled by user"), CANCELLED, "cancelled by user"),
        row("cancel while preparing", PREPARING_SUCCESSFUL, SAME, ANY, new HostEvent.CancelInstallation("Installation was cancelled by user"), KNOWN, "cancelled by user"),
        row("reset", ERROR, SAME, ANY, new HostEvent.ResetPendingUserAction(), RESETTING_PENDING_USER_ACTION, "Host requires booting into the discovery image"),
        row("day-2 install", KNOWN, h(b -> b.day2(true)), b -> b.day2(true), new HostEvent.InstallHost(), INSTALLING, "Installation is in progress"),
        row("media lost before install", KNOWN, SAME, ANY, new HostEvent.MediaDisconnected(), DISCONNECTED, "Unable to read from the discovery media"),
        row("media lost during install", INSTALLING_IN_PROGRESS, SAME, ANY, new HostEvent.MediaDisconnected(), ERROR, "Unable to read from the discovery media"),
        row("media lost after failure", ERROR, h(b -> b.statusInfo("Failed - disk")), ANY, new HostEvent.MediaDisconnected(), ERROR, "Failed - Unable to read from the discovery media. It was either disconnected or poor network conditions prevented it from being read. Try using the minimal ISO option and be sure to keep the media connected until the installation is completed. Failed - disk"),
        row("bind", KNOWN_UNBOUND, UNBOUND, ANY, new HostEvent.Bind(Fixtures.CLUSTER), BINDING, "Host is waiting to be bound to the cluster"),
        row("unbind known", KNOWN, SAME, ANY, new HostEvent.Unbind(), UNBINDING, "Host is waiting to be unbound from the cluster"),
        row("unbind installed", INSTALLED, SAME, ANY, new HostEvent.Unbind(), UNBINDING_PENDING_USER_ACTION, "unbound"),
        row("reclaim installed", INSTALLED, SAME, ANY, new HostEvent.Reclaim("{}"), RECLAIMING, "unbound"),
        row("reclaim reboot", RECLAIMING, SAME, ANY, new HostEvent.RebootingForReclaim(), RECLAIMING_REBOOTING, "Host is rebooting into the discovery image"),
        row("reclaim failed", RECLAIMING_REBOOTING, SAME, ANY, new HostEvent.ReclaimFailed(), UNBINDING_PENDING_USER_ACTION, "unbound"),
        row("role update re-evaluates", INSUFFICIENT, h(b -> b.connectivity(new ConnectivityReport(List.of())).inventory(Fixtures.inventoryForHost(1, Fixtures.cpu(3)))), ANY, new HostEvent.RoleUpdated(HostRole.WORKER), KNOWN, "Host is ready"),
        row("role update to master fails cpu", KNOWN, h(b -> b.inventory(Fixtures.inventoryForHost(1, Fixtures.cpu(3)))), ANY, new HostEvent.RoleUpdated(HostRole.MASTER), INSUFFICIENT, "Require at least 4 CPU cores for master role, found only 3"),
        // --- pool ---
        row("pool host ready", DISCOVERING_UNBOUND, UNBOUND, ANY, REFRESH, KNOWN_UNBOUND, "Host is ready to be bound to a cluster"),
        row("pool host weak", DISCOVERING_UNBOUND, h(b -> b.clusterId(null).inventory(Fixtures.inventoryForHost(1, Fixtures.ramGib(2)))), ANY, REFRESH, INSUFFICIENT_UNBOUND, "minimum hardware requirements"),
        row("worker without latency data is not ready", KNOWN, h(b -> b.role(HostRole.WORKER)), ANY, REFRESH, INSUFFICIENT,
            "Host cannot be installed due to following pending validation(s): "),
        row("pool host disconnected", KNOWN_UNBOUND, h(b -> b.clusterId(null).checkedInAt(NOW.minusSeconds(600))), ANY, REFRESH, DISCONNECTED_UNBOUND, "stopped communicating"));
  }

  @Test
  void onlyPendingValidationsAreListedAsPendingNeverAsAnEmptyFailingList() {
    HostTransition t = apply(KNOWN, h(b -> b.role(HostRole.WORKER)), ANY, REFRESH);
    assertEquals(INSUFFICIENT, t.status());
    assertTrue(t.statusInfo().startsWith("Host cannot be installed due to following pending validation(s): "), t.statusInfo());
    assertFalse(t.statusInfo().endsWith(": "), t.statusInfo());
    assertFalse(t.statusInfo().contains("failing"), t.statusInfo());

    String template = HostStateMachine.INFO_NOT_READY;
    ValidationsInfo failedAndPending = new ValidationsInfo(java.util.Map.of("network", List.of(
        new ValidationResult("b", ValidationStatus.PENDING, "waiting for b"),
        new ValidationResult("z", ValidationStatus.FAILURE, "z failed"),
        new ValidationResult("a", ValidationStatus.FAILURE, "a failed"))));
    assertEquals("Host cannot be installed due to following failing validation(s): a failed ; z failed",
        HostStateMachine.failingValidations(template, failedAndPending), "failures only, sorted, as upstream");
    ValidationsInfo pendingOnly = new ValidationsInfo(java.util.Map.of("network", List.of(
        new ValidationResult("b", ValidationStatus.PENDING, "waiting for b"),
        new ValidationResult("a", ValidationStatus.PENDING, "waiting for a"),
        new ValidationResult("c", ValidationStatus.SUCCESS, "c is fine"))));
    assertEquals("Host cannot be installed due to following pending validation(s): waiting for a ; waiting for b",
        HostStateMachine.failingValidations(template, pendingOnly));
    assertEquals("Waiting for user input: waiting for a ; waiting for b",
        HostStateMachine.failingValidations(HostStateMachine.INFO_PENDING_INPUT, pendingOnly));
    assertEquals("Host cannot be installed", HostStateMachine.failingValidations(template, ValidationsInfo.empty()));
    assertEquals("Host does not meet the minimum hardware requirements",
        HostStateMachine.failingValidations(HostStateMachine.INFO_INSUFFICIENT_HW, ValidationsInfo.empty()));
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @MethodSource("rows")
  void transition(String name, HostStatus from, UnaryOperator<HostSnapshot.Builder> host, UnaryOperator<ClusterContext.Builder> cluster,
      HostEvent event, HostStatus to, String info) {
    HostTransition t = apply(from, host, cluster, event);
    assertNull(t.rejection(), () -> "rejected: " + t.rejection());
    assertEquals(to, t.status(), () -> t.rule() + " / " + t.statusInfo());
    assertTrue(t.statusInfo().contains(info), () -> "status_info was: " + t.statusInfo());
    if (from != to) {
      DomainEvent e = t.events().stream().filter(x -> x.name().equals("host_status_updated")).findFirst().orElseThrow();
      assertEquals(HostStateMachine.severityFor(to), e.severity());
    } else {
      assertTrue(t.events().stream().noneMatch(x -> x.name().equals("host_status_updated")));
    }
  }

  static Stream<Arguments> rejections() {
    return Stream.of(
        Arguments.of("register after installed", INSTALLED, SAME, new HostEvent.Register("v"), 403),
        Arguments.of("register again while pending user action", INSTALLING_PENDING_USER_ACTION, (UnaryOperator<HostSnapshot.Builder>) b -> b.progress(stage(HostStage.REBOOTING, 1)), new HostEvent.Register("v"), 403),
        Arguments.of("progress regression", INSTALLING_IN_PROGRESS, (UnaryOperator<HostSnapshot.Builder>) b -> b.role(HostRole.MASTER).progress(stage(HostStage.REBOOTING, 1)), new HostEvent.ProgressReported(HostStage.WRITING_IMAGE_TO_DISK, ""), 409),
        Arguments.of("progress before install", KNOWN, SAME, new HostEvent.ProgressReported(HostStage.INSTALLING, ""), 409),
        Arguments.of("stage not in worker list", INSTALLING_IN_PROGRESS, (UnaryOperator<HostSnapshot.Builder>) b -> b.role(HostRole.WORKER), new HostEvent.ProgressReported(HostStage.WAITING_FOR_BOOTKUBE, ""), 409),
        Arguments.of("role change during install", INSTALLING, SAME, new HostEvent.RoleUpdated(HostRole.MASTER), 400),
        Arguments.of("bad hostname", KNOWN, SAME, new HostEvent.HostnameUpdated("Bad_Name"), 400),
        Arguments.of("unknown disk", KNOWN, SAME, new HostEvent.InstallationDiskSelected("/dev/disk/by-id/nope"), 400),
        Arguments.of("cd-rom as install disk", KNOWN, SAME, new HostEvent.InstallationDiskSelected("/dev/disk/by-path/pci-0000:00:01.1-ata-1"), 400),
        Arguments.of("install a day-1 host alone", KNOWN, SAME, new HostEvent.InstallHost(), 409),
        Arguments.of("cancel a discovering host", DISCOVERING, SAME, new HostEvent.CancelInstallation("x"), 409));
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @MethodSource("rejections")
  void rejected(String name, HostStatus from, UnaryOperator<HostSnapshot.Builder> host, HostEvent event, int http) {
    HostTransition t = apply(from, host, ANY, event);
    assertNotNull(t.rejection(), () -> "accepted: " + t.rule() + " -> " + t.status());
    assertEquals(http, t.rejection().httpStatus(), t.rejection().message());
    assertEquals(from, t.status());
    assertTrue(t.effects().isEmpty());
  }

  @Test
  void silenceIsJudgedWhereTheCallerHasHeardTheHostThrough() {
    // 200 s since the last check-in the caller has: timed out at the wall clock, not if the caller is 60 s behind
    HostSnapshot h = Fixtures.host(1, INSTALLING_IN_PROGRESS).role(HostRole.MASTER).checkedInAt(NOW.minusSeconds(200))
        .progress(stage(HostStage.WRITING_IMAGE_TO_DISK, 1)).build();
    ClusterContext c = Fixtures.cluster(List.of(h, Fixtures.host(2, KNOWN).build())).status(ClusterStatus.INSTALLING)
        .build();
    assertEquals(ERROR, SM.apply(h, c, REFRESH, NOW).status());
    assertEquals(ERROR, SM.apply(h, c, REFRESH, NOW, NOW.plusSeconds(60)).status(), "a later instant counts as now");
    HostTransition behind = SM.apply(h, c, REFRESH, NOW, NOW.minusSeconds(60));
    assertEquals(INSTALLING_IN_PROGRESS, behind.status(), behind.statusInfo());
    assertEquals(ERROR, SM.apply(h, c, REFRESH, NOW, NOW.minusSeconds(10)).status(), "190 s of known silence");

    // the same for a stage that took too long: its progress may wait in the backlog too
    HostSnapshot slow = Fixtures.host(1, INSTALLING_IN_PROGRESS).role(HostRole.MASTER)
        .progress(stage(HostStage.INSTALLING, 61)).build();
    ClusterContext c2 = Fixtures.cluster(List.of(slow, Fixtures.host(2, KNOWN).build())).status(ClusterStatus.INSTALLING)
        .build();
    assertEquals(INSTALLING_IN_PROGRESS, SM.apply(slow, c2, REFRESH, NOW, NOW.minusSeconds(120)).status());
    HostTransition late = SM.apply(slow, c2, REFRESH, NOW, NOW.minusSeconds(30));
    assertEquals(ERROR, late.status());

    // a known host: disconnected only once the caller's horizon passes the timeout
    HostSnapshot known = Fixtures.host(1, KNOWN).checkedInAt(NOW.minusSeconds(240)).build();
    ClusterContext c3 = Fixtures.cluster(List.of(known, Fixtures.host(2, KNOWN).build())).build();
    assertEquals(DISCONNECTED, SM.apply(known, c3, REFRESH, NOW).status());
    assertEquals(KNOWN, SM.apply(known, c3, REFRESH, NOW, NOW.minusSeconds(90)).status());
  }

  @Test
  void newHostWithClusterNotAcceptingIsRefused() {
    HostTransition t = apply(null, SAME, clusterStatus(ClusterStatus.INSTALLING), new HostEvent.Register("v"));
    assertEquals(409, t.rejection().httpStatus());
  }

  @Test
  void registrationDefaultsFollowTheCluster() {
    HostTransition sno = apply(null, SAME, b -> b.controlPlaneCount(1), new HostEvent.Register("v"));
    assertEquals(new HostEffect.RegistrationDefaults(HostRole.MASTER, true, false, ""), sno.effects().get(0));
    HostTransition day2 = apply(null, SAME, b -> b.day2(true).status(ClusterStatus.ADDING_HOSTS), new HostEvent.Register("v"));
    assertEquals(new HostEffect.RegistrationDefaults(HostRole.WORKER, false, true, "worker"), day2.effects().get(0));
    assertEquals("host_registration_succeeded", day2.events().get(0).name());
    HostTransition again = apply(KNOWN, SAME, ANY, new HostEvent.Register("agent:v2"));
    assertEquals(new HostEffect.ClearDiscoveryData("agent:v2"), again.effects().get(0));
  }

  @Test
  void progressRecordsStageAndPercentageAndSameStageOnlyUpdatesInfo() {
    HostTransition t = apply(INSTALLING_IN_PROGRESS, b -> b.role(HostRole.MASTER).progress(stage(HostStage.INSTALLING, 3)), ANY,
        new HostEvent.ProgressReported(HostStage.WRITING_IMAGE_TO_DISK, "40%"));
    HostProgress p = t.effect(HostEffect.SetProgress.class).orElseThrow().progress();
    assertEquals(HostStage.WRITING_IMAGE_TO_DISK, p.currentStage());
    assertEquals(37, p.installationPercentage(), "3 of 8 master stages");
    assertEquals(NOW, p.stageStartedAt());
    assertEquals("Host: host-1, reached installation stage Writing image to disk: 40%", t.events().get(0).message());

    HostTransition same = apply(INSTALLING_IN_PROGRESS, b -> b.role(HostRole.MASTER).statusInfo("Writing image to disk")
        .progress(stage(HostStage.WRITING_IMAGE_TO_DISK, 3)), ANY, new HostEvent.ProgressReported(HostStage.WRITING_IMAGE_TO_DISK, "80%"));
    assertFalse(same.statusChanged());
    HostProgress p2 = same.effect(HostEffect.SetProgress.class).orElseThrow().progress();
    assertEquals(NOW.minus(Duration.ofMinutes(3)), p2.stageStartedAt(), "same stage keeps its start");
    assertEquals("80%", p2.progressInfo());
  }

  /** A retry whose answer was lost, or a controller that read the host before its report was applied. */
  @Test
  void theSameProgressAgainIsAcceptedAndChangesNothing() {
    HostProgress at = new HostProgress(HostStage.WRITING_IMAGE_TO_DISK, "33%", NOW.minusSeconds(60), NOW.minusSeconds(5), 37);
    HostTransition again = apply(INSTALLING_IN_PROGRESS, b -> b.role(HostRole.MASTER).progress(at), ANY,
        new HostEvent.ProgressReported(HostStage.WRITING_IMAGE_TO_DISK, "33%"));
    assertFalse(again.rejected());
    assertFalse(again.statusChanged());
    assertEquals(List.of(), again.events(), "no second stage event");
    assertEquals(List.of(), again.effects());

    HostTransition newInfo = apply(INSTALLING_IN_PROGRESS, b -> b.role(HostRole.MASTER).progress(at), ANY,
        new HostEvent.ProgressReported(HostStage.WRITING_IMAGE_TO_DISK, "66%"));
    assertEquals(1, newInfo.events().size(), "new info in the same stage is news");

    // Done once more after the host is installed: accepted (not 409), nothing changes
    HostProgress done = new HostProgress(HostStage.DONE, "", NOW.minusSeconds(3), NOW.minusSeconds(3), 100);
    HostTransition late = apply(INSTALLED, b -> b.role(HostRole.MASTER).progress(done), ANY,
        new HostEvent.ProgressReported(HostStage.DONE, ""));
    assertFalse(late.rejected());
    assertEquals(INSTALLED, late.status());
    assertEquals(List.of(), late.events());
  }

  @Test
  void refreshStoresValidationsAndEmitsChangeEventsOnce() {
    HostSnapshot good = Fixtures.host(1, KNOWN).build();
    ClusterContext c = Fixtures.cluster(List.of(good, Fixtures.host(2, KNOWN).build(), Fixtures.host(3, KNOWN).build())).build();
    HostTransition first = SM.apply(good, c, REFRESH, NOW);
    assertNotNull(first.validationsInfo());
    HostSnapshot noRoute = good.toBuilder().validationsInfo(first.validationsInfo())
        .inventory(Fixtures.inventoryForHost(1, n -> n.putArray("routes"))).build();
    HostTransition broken = SM.apply(noRoute, c.withHost(noRoute), REFRESH, NOW);
    assertEquals(INSUFFICIENT, broken.status());
    assertEquals(List.of("host_validation_failed", "host_status_updated"), broken.events().stream().map(DomainEvent::name).toList());
    HostSnapshot stillBroken = noRoute.toBuilder().status(INSUFFICIENT).statusInfo(broken.statusInfo())
        .validationsInfo(broken.validationsInfo()).build();
    HostTransition again = SM.apply(stillBroken, c.withHost(stillBroken), REFRESH, NOW);
    assertEquals(List.of(), again.events(), "no repeated events while nothing changes");
    assertFalse(again.statusChanged());
    assertEquals(broken.statusInfo(), again.statusInfo());
  }

  @Test
  void softTimeoutsKeepInstallingAndFlagTheDisconnection() {
    HostTransition t = apply(INSTALLING_IN_PROGRESS, b -> b.checkedInAt(NOW.minusSeconds(600)).progress(stage(HostStage.INSTALLING, 1)),
        b -> b.softTimeoutsEnabled(true).status(ClusterStatus.INSTALLING), REFRESH);
    assertEquals(INSTALLING_IN_PROGRESS, t.status());
    assertEquals(new HostEffect.SetConnectionTimedOut(true), t.effects().get(0));
    HostTransition stage = apply(INSTALLING_IN_PROGRESS, b -> b.progress(stage(HostStage.INSTALLING, 61)),
        b -> b.softTimeoutsEnabled(true).status(ClusterStatus.INSTALLING), REFRESH);
    assertEquals(INSTALLING_IN_PROGRESS, stage.status());
    assertTrue(stage.events().stream().anyMatch(e -> e.name().equals("host_stage_timed_out") && e.severity() == EventSeverity.WARNING));
  }

  @Test
  void logCollectionTimeoutMarksLogsInfo() {
    HostTransition t = apply(ERROR, b -> b.statusUpdatedAt(NOW.minusSeconds(180)), ANY, REFRESH);
    assertEquals(new HostEffect.SetLogsInfo("timeout"), t.effects().get(0));
  }

}
