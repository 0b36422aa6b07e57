package dev.rendezvous.service.domain.cluster;

import static dev.rendezvous.service.domain.Fixtures.NOW;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.service.domain.DomainConfig;
import dev.rendezvous.service.domain.DomainEvent;
import dev.rendezvous.service.domain.Fixtures;
import dev.rendezvous.service.domain.host.HostProgress;
import dev.rendezvous.service.domain.host.HostRole;
import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.host.HostStage;
import dev.rendezvous.service.domain.host.HostStatus;
import dev.rendezvous.service.domain.host.StageSequences;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RolesAndInstallTest {
  static final RoleAssigner ROLES = new RoleAssigner(DomainConfig.defaults());

  static HostSnapshot host(int i, int cores, boolean gpu) {
    return Fixtures.host(i, HostStatus.KNOWN).inventory(Fixtures.inventoryForHost(i, n -> {
      Fixtures.cpu(cores).accept(n);
      if (!gpu) {
        n.putArray("gpus");
      }
    })).build();
  }

  static String roles(Map<UUID, HostRole> m, int n) {
    StringBuilder sb = new StringBuilder();
    for (int i = 1; i <= n; i++) {
      sb.append(m.get(Fixtures.hostId(i)).wire().charAt(0));
    }
    return sb.toString();
  }

  @ParameterizedTest(name = "[{index}] cores {0}, gpu on {1}, cp {2} -> {3}")
  @CsvSource({
    // host cores (1..5), gpu host (0 none), control plane count, expected first letters
    "16 4 8 4 2, 0, 3, wmmmw",
    "16 4 8 4 2, 2, 3, mwmmw",
    "8 8 8 8 8, 0, 3, mmmww",
    "8 8 8, 0, 2, mma",
    "8 2 2, 0, 2, maw",
    "2 2 2, 0, 3, www",
  })
  void suggestsWeakestQualifyingHostsAsMasters(String cores, int gpuHost, int cp, String expected) {
    String[] c = cores.split(" ");
    List<HostSnapshot> hosts = new java.util.ArrayList<>();
    for (int i = 1; i <= c.length; i++) {
      hosts.add(host(i, Integer.parseInt(c[i - 1]), i == gpuHost));
    }
    ClusterContext cluster = Fixtures.cluster(hosts).controlPlaneCount(cp).build();
    RoleAssigner.Suggestions s = ROLES.suggest(cluster);
    assertEquals(expected, roles(s.suggestedRoles(), c.length));
    assertEquals(c.length, s.events().size());
    assertTrue(s.events().get(0).message().startsWith("Host host-"));
  }

  @Test
  void userRolesAreKeptAndStableSuggestionsAreNotRecomputed() {
    List<HostSnapshot> hosts = List.of(host(1, 8, false).toBuilder().role(HostRole.WORKER).build(), host(2, 8, false),
        host(3, 8, false), host(4, 8, false));
    RoleAssigner.Suggestions s = ROLES.suggest(Fixtures.cluster(hosts).build());
    assertTrue(!s.suggestedRoles().containsKey(Fixtures.hostId(1)));
    assertEquals(Map.of(Fixtures.hostId(2), HostRole.MASTER, Fixtures.hostId(3), HostRole.MASTER,
        Fixtures.hostId(4), HostRole.MASTER), s.suggestedRoles());
    List<HostSnapshot> suggested = hosts.stream().map(h -> h.toBuilder()
        .suggestedRole(s.suggestedRoles().getOrDefault(h.id(), h.suggestedRole())).build()).toList();
    assertEquals(Map.of(), ROLES.suggest(Fixtures.cluster(suggested).build()).suggestedRoles(), "nothing to change");
    List<HostSnapshot> oneMissingInventory = List.of(host(1, 8, false), host(2, 8, false).toBuilder().inventory(null).build());
    assertEquals(Map.of(), ROLES.suggest(Fixtures.cluster(oneMissingInventory).build()).suggestedRoles());
  }

  @Test
  void bootstrapIsTheLastKnownMasterOrTheExistingOne() {
    List<HostSnapshot> hosts = List.of(
        Fixtures.host(1, HostStatus.KNOWN).role(HostRole.MASTER).build(),
        Fixtures.host(2, HostStatus.KNOWN).suggestedRole(HostRole.MASTER).build(),
        Fixtures.host(3, HostStatus.KNOWN).role(HostRole.MASTER).build(),
        Fixtures.host(4, HostStatus.KNOWN).role(HostRole.WORKER).build(),
        Fixtures.host(5, HostStatus.INSUFFICIENT).role(HostRole.MASTER).build());
    assertEquals(Fixtures.hostId(3), RoleAssigner.electBootstrap(Fixtures.cluster(hosts).build(), DomainConfig.defaults()).orElseThrow());
    List<HostSnapshot> withBootstrap = List.of(hosts.get(0).toBuilder().bootstrap(true).build(), hosts.get(2));
    assertEquals(Fixtures.hostId(1), RoleAssigner.electBootstrap(Fixtures.cluster(withBootstrap).build(), DomainConfig.defaults()).orElseThrow());
  }

  @Test
  void theConfiguredBootstrapMacMakesItsHostAMasterAndTheBootstrap() {
    // upstream's BOOTSTRAP_HOST_MAC (the agent-based installer's rendezvous host): host 1's NIC, not the last master
    DomainConfig pinned = DomainConfig.defaults().withBootstrapHostMac("00:0E:0F:A1:38:01");
    List<HostSnapshot> hosts = List.of(
        Fixtures.host(1, HostStatus.KNOWN).role(HostRole.MASTER).build(),
        Fixtures.host(2, HostStatus.KNOWN).role(HostRole.MASTER).build(),
        Fixtures.host(3, HostStatus.KNOWN).role(HostRole.MASTER).build());
    assertEquals(Fixtures.hostId(1), RoleAssigner.electBootstrap(Fixtures.cluster(hosts).build(), pinned).orElseThrow());
    assertEquals(Fixtures.hostId(3), RoleAssigner.electBootstrap(Fixtures.cluster(hosts).build(), DomainConfig.defaults()).orElseThrow(),
        "without it, upstream's rule: the last known master");
    // five auto-assign hosts: three masters wanted; the pinned host is one of them even where it would not be chosen
    List<HostSnapshot> auto = new java.util.ArrayList<>();
    for (int i = 1; i <= 5; i++) {
      auto.add(Fixtures.host(i, HostStatus.KNOWN).build());
    }
    DomainConfig lastPinned = DomainConfig.defaults().withBootstrapHostMac("00:0e:0f:a1:38:05");
    Map<java.util.UUID, HostRole> unpinned = new RoleAssigner(DomainConfig.defaults())
        .suggest(Fixtures.cluster(auto).build()).suggestedRoles();
    Map<java.util.UUID, HostRole> suggested = new RoleAssigner(lastPinned)
        .suggest(Fixtures.cluster(auto).build()).suggestedRoles();
    assertEquals(HostRole.WORKER, unpinned.get(Fixtures.hostId(5)), "host 5 is a worker by default: " + unpinned);
    assertEquals(HostRole.MASTER, suggested.get(Fixtures.hostId(5)), "the pinned host is a master: " + suggested);
    assertEquals(3, suggested.values().stream().filter(r -> r == HostRole.MASTER).count(), suggested.toString());
  }

  @Test
  void installNeedsAReadyClusterThenAssignsRolesAndBootstrap() {
    List<HostSnapshot> hosts = List.of(
        Fixtures.host(1, HostStatus.KNOWN).suggestedRole(HostRole.MASTER).build(),
        Fixtures.host(2, HostStatus.KNOWN).suggestedRole(HostRole.MASTER).build(),
        Fixtures.host(3, HostStatus.KNOWN).suggestedRole(HostRole.MASTER).build(),
        Fixtures.host(4, HostStatus.KNOWN).role(HostRole.WORKER).build(),
        Fixtures.host(5, HostStatus.KNOWN).suggestedRole(HostRole.WORKER).build());
    InstallOrchestrator o = new InstallOrchestrator(DomainConfig.defaults());
    InstallOrchestrator.InstallDecision refused = o.install(Fixtures.cluster(hosts).status(ClusterStatus.INSUFFICIENT).build(), NOW);
    assertEquals(409, refused.rejection().httpStatus());
    assertNotNull(refused.validationsInfo());

    InstallOrchestrator.InstallDecision d = o.install(Fixtures.cluster(hosts).status(ClusterStatus.READY).build(), NOW);
    assertEquals(ClusterStatus.PREPARING_FOR_INSTALLATION, d.cluster().status());
    assertEquals(Map.of(Fixtures.hostId(1), HostRole.MASTER, Fixtures.hostId(2), HostRole.MASTER,
        Fixtures.hostId(3), HostRole.MASTER, Fixtures.hostId(5), HostRole.WORKER), d.roles());
    assertEquals(Fixtures.hostId(3), d.bootstrapHost());
    assertEquals(List.of("host_bootstrap_set", "cluster_status_updated", "cluster_prepare_installation_started"),
        d.events().stream().map(DomainEvent::name).toList());
  }

  @Test
  void installWorksOutAutoAssignedRolesAfreshNotFromStaleSuggestions() {
    // suggested while all five were auto-assign: 1, 2, 4 masters; then the user made 4 and 5 workers and 1 a master
    // by hand (the UI's role menu). The stored suggestions would leave two masters; install assigns three.
    List<HostSnapshot> hosts = List.of(
        host(1, 8, false).toBuilder().role(HostRole.MASTER).suggestedRole(HostRole.MASTER).build(),
        host(2, 8, false).toBuilder().suggestedRole(HostRole.MASTER).build(),
        host(3, 8, false).toBuilder().suggestedRole(HostRole.WORKER).build(),
        host(4, 8, false).toBuilder().role(HostRole.WORKER).suggestedRole(HostRole.WORKER).build(),
        host(5, 8, false).toBuilder().role(HostRole.WORKER).suggestedRole(HostRole.WORKER).build());
    InstallOrchestrator.InstallDecision d = new InstallOrchestrator(DomainConfig.defaults())
        .install(Fixtures.cluster(hosts).status(ClusterStatus.READY).build(), NOW);
    assertEquals(Map.of(Fixtures.hostId(2), HostRole.MASTER, Fixtures.hostId(3), HostRole.MASTER), d.roles());
  }

  @Test
  void progressPercentages() {
    HostProgress writing = new HostProgress(HostStage.WRITING_IMAGE_TO_DISK, "", NOW, NOW, 0);
    List<HostSnapshot> hosts = List.of(
        Fixtures.host(1, HostStatus.INSTALLING_IN_PROGRESS).role(HostRole.MASTER).bootstrap(true).progress(writing).build(),
        Fixtures.host(2, HostStatus.INSTALLING_IN_PROGRESS).role(HostRole.MASTER).progress(writing).build(),
        Fixtures.host(3, HostStatus.INSTALLING_IN_PROGRESS).role(HostRole.WORKER).progress(writing).build());
    ClusterProgress p = ClusterProgress.of(Fixtures.cluster(hosts).status(ClusterStatus.INSTALLING).build());
    // 3 done of (11 + 8 + 9) stages
    assertEquals(9 * 100 / 28, p.installingStagePercentage());
    assertEquals(100, p.preparingForInstallationStagePercentage());
    assertEquals(Math.round(0.1 * 100 + 0.7 * 32), p.totalPercentage());
    List<HostSnapshot> done = hosts.stream().map(h -> h.toBuilder().status(HostStatus.INSTALLED)
        .progress(new HostProgress(HostStage.DONE, "", NOW, NOW, 100)).build()).toList();
    ClusterProgress finalizing = ClusterProgress.of(Fixtures.cluster(done).status(ClusterStatus.FINALIZING)
        .finalizingStage(FinalizingStage.DONE).build());
    assertTrue(finalizing.totalPercentage() < 100, "never 100 before installed");
    assertEquals(100, ClusterProgress.of(Fixtures.cluster(done).status(ClusterStatus.INSTALLED).build()).totalPercentage());
    assertEquals(12, StageSequences.percentage(HostStage.STARTING_INSTALLATION, StageSequences.MASTER));
    assertEquals(100, StageSequences.percentage(HostStage.DONE, StageSequences.WORKER));
  }
}
