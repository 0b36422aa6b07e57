package dev.rendezvous.service.brain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.service.domain.DomainConfig;
import dev.rendezvous.service.domain.cluster.ClusterContext;
import dev.rendezvous.service.domain.cluster.ClusterStatus;
import dev.rendezvous.service.domain.cluster.MajorityGroups;
import dev.rendezvous.service.domain.host.HostRole;
import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.host.HostStatus;
import dev.rendezvous.service.domain.planning.StepIdGenerator;
import dev.rendezvous.service.domain.planning.StepType;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** The brain's orchestration on in-memory units of work (each unit starts from what the previous committed). */
class BrainRulesTest {
  private static final Instant T0 = Instant.parse("2025-03-01T12:00:00Z");
  private static final UUID CLUSTER = UUID.fromString("c0000000-0000-0000-0000-000000000001");
  private static final UUID INFRA_ENV = UUID.fromString("e0000000-0000-0000-0000-000000000001");
  private final BrainRules rules = new BrainRules(DomainConfig.defaults(), StepIdGenerator.sequential());
  private final List<UUID> hosts = BrainFixtures.ids(3);
  private Loaded state = BrainFixtures.loaded(CLUSTER, T0);
  private Instant now = T0;
  private final Map<UUID, PushMark> marks = new java.util.HashMap<>();
  /** Whether the brain would have a targets pass pending for the key ({@link Work#targetsSettling}). */
  private boolean targetsPending;

  /** One unit as the brain runs it: the body, the touched hosts refreshed, plans; then the debounced full refresh. */
  private Work unit(Consumer<Work> body) {
    return unit(rules, body);
  }

  private Work unit(BrainRules rules, Consumer<Work> body) {
    now = now.plusSeconds(1);
    Work w = new Work(state, now);
    body.accept(w);
    if (!w.refreshScope().isEmpty()) {
      rules.settle(w, w.refreshScope());
    }
    w.targetsSettling(targetsPending);
    rules.plan(w, h -> marks.get(h.id()));
    w.pushes().forEach(p -> marks.put(p.host().id(), PushMark.of(p, w.now)));
    state = w.committed();
    if (w.othersMayBeStale()) {
      unit(rules, x -> { // what Brain schedules a little later
        rules.settle(x, x.hostIds());
        x.targetsPass();
      });
    }
    return w;
  }

  private HostSnapshot host(int i) {
    return state.hosts().get(hosts.get(i - 1)).snapshot();
  }

  private Map<UUID, Integer> peersOf(int i) {
    Map<UUID, Integer> m = new LinkedHashMap<>();
    for (int j = 1; j <= 3; j++) {
      if (j != i) {
        m.put(hosts.get(j - 1), j);
      }
    }
    return m;
  }

  private void discover() {
    for (int i = 1; i <= 3; i++) {
      UUID id = hosts.get(i - 1);
      Work w = unit(x -> rules.register(x, id, INFRA_ENV, CLUSTER, "agent-1", now));
      assertEquals(List.of(StepType.INVENTORY), w.pushes().get(w.pushes().size() - 1).plan().steps().types());
    }
    for (int i = 1; i <= 3; i++) {
      UUID id = hosts.get(i - 1);
      int n = i;
      unit(w -> rules.stepReply(w, id, "inventory", 0, BrainFixtures.inventory(n, 8), null, now));
    }
    for (int i = 1; i <= 3; i++) {
      UUID id = hosts.get(i - 1);
      int n = i;
      unit(w -> rules.stepReply(w, id, "connectivity-check", 0, BrainFixtures.connectivity(peersOf(n)), null, now));
      unit(w -> rules.stepReply(w, id, "domain-resolution", 0, BrainFixtures.domainResolution(), null, now));
      unit(w -> rules.stepReply(w, id, "ntp-synchronizer", 0, BrainFixtures.ntp(), null, now));
      unit(w -> rules.stepReply(w, id, "verify-vips", 0, BrainFixtures.vipsFree(), null, now));
    }
  }

  @Test
  void aVipAnotherMachineAnswersAtKeepsTheClusterFromReadyUntilItIsFree() {
    discover();
    assertEquals(ClusterStatus.READY, state.cluster().context().status());
    UUID two = hosts.get(1);
    unit(w -> rules.stepReply(w, two, "verify-vips", 0, BrainFixtures.vipsFree().replaceFirst("succeeded", "failed"), null, now));
    ClusterContext c = state.cluster().context();
    assertEquals(ClusterStatus.INSUFFICIENT, c.status(), c.statusInfo());
    assertEquals("api vips <192.168.111.5> is already in use in cidr 192.168.111.0/24",
        c.validationsInfo().find("api-vips-valid").orElseThrow().message());
    unit(w -> rules.stepReply(w, two, "verify-vips", 0, BrainFixtures.vipsFree(), null, now));
    assertEquals(ClusterStatus.READY, state.cluster().context().status(), state.cluster().context().statusInfo());

    // a free-address sweep of the VIPs' network that does not list the ingress VIP: kept on the host for the check
    unit(w -> rules.stepReply(w, two, "free-network-addresses", 0,
        "[{\"network\":\"192.168.111.0/24\",\"free_addresses\":[\"192.168.111.5\",\"192.168.111.77\"]}]", null, now));
    assertEquals(Map.of("192.168.111.5", true, "192.168.111.4", false), host(2).vipsFree());
  }

  @Test
  void threeHostsBecomeKnownAndTheClusterReady() {
    discover();
    for (int i = 1; i <= 3; i++) {
      assertEquals(HostStatus.KNOWN, host(i).status(), host(i).statusInfo() + " " + host(i).validationsInfo());
      assertEquals(HostRole.MASTER, host(i).suggestedRole());
      assertEquals("/dev/sda", host(i).installationDiskPath(), "install disk chosen from the inventory");
    }
    assertEquals(ClusterStatus.READY, state.cluster().context().status(), state.cluster().context().statusInfo());
    assertEquals(3, state.cluster().context().connectivityMajorityGroups().groupFor("192.168.111.0/24").size());
    assertNotNull(state.cluster().progress());
  }

  @Test
  void planIsPushedOnChangeOrWhenDueNotOnEveryReply() {
    discover();
    Work again = unit(w -> rules.stepReply(w, hosts.get(0), "ntp-synchronizer", 0, BrainFixtures.ntp(), null, now));
    assertTrue(again.pushes().isEmpty(), "an unchanged plan is not pushed again on a reply");
    now = now.plusSeconds(61);
    Work due = unit(w -> rules.settle(w, w.hostIds()));
    assertEquals(3, due.pushes().size(), "every plan is pushed again once next_instruction_seconds passed");
    assertTrue(due.pushes().get(0).plan().steps().types().contains(StepType.CONNECTIVITY_CHECK));
  }

  @Test
  void aHostWhoseGatewayFillsInTargetsIsPushedItsCheckWithoutThemAndTheClusterTargetsMakeTheSameList() {
    discover();
    now = now.plusSeconds(61);
    UUID first = hosts.get(0);
    Work w = new Work(state, now);
    w.fillsTargets(h -> h.id().equals(first));
    rules.plan(w, h -> marks.get(h.id()));
    assertEquals(3, w.pushes().size());
    ClusterContext c = w.cluster();
    var planner = new dev.rendezvous.service.domain.planning.NextStepPlanner(DomainConfig.defaults(),
        StepIdGenerator.sequential());
    for (Work.Push p : w.pushes()) {
      var check = p.plan().steps().instructions().stream()
          .filter(s -> s.stepType() == StepType.CONNECTIVITY_CHECK).findFirst()
          .orElseThrow(() -> new AssertionError(p.host().id() + " " + p.plan().steps().types()));
      String full = planner.plan(p.host(), c).steps().instructions().stream()
          .filter(s -> s.stepType() == StepType.CONNECTIVITY_CHECK).findFirst().orElseThrow().args().get(0);
      if (!p.host().id().equals(first)) {
        assertFalse(p.sharedTargets(), "the other hosts' gateways did not say they fill targets in");
        assertEquals(List.of(full), check.args());
        continue;
      }
      assertTrue(p.sharedTargets());
      assertEquals(List.of(), check.args(), "no targets in the plan itself");
      assertEquals(2, p.targets(), "two peers to check");
      // what the gateway makes of the cluster's targets (published before the plan) is the planner's own list
      List<dev.rendezvous.bus.event.StepsToDeliver.Target> targets = w.checkTargets().stream()
          .map(t -> new dev.rendezvous.bus.event.StepsToDeliver.Target(t.hostId().toString(), t.entry())).toList();
      assertEquals(3, targets.size(), "every host with an inventory, the host itself included");
      var delivered = new dev.rendezvous.bus.event.StepsToDeliver(60, "continue", List.of(
          new dev.rendezvous.bus.event.StepsToDeliver.Step("connectivity-check", check.stepId(), List.of(), true)))
          .withTargets(first.toString(), targets);
      assertEquals(List.of(full), delivered.instructions().get(0).args());
      assertTrue(full.contains(BrainFixtures.ip(2)) && full.contains(BrainFixtures.ip(3)) && !full.contains(BrainFixtures.ip(1)), full);
    }
  }

  @Test
  void whileBehindUnchangedPlansArePushedAgainLessOften() {
    discover();
    now = now.plusSeconds(61);
    Work w = new Work(state, now);
    rules.plan(w, h -> marks.get(h.id()), 3.0);
    assertTrue(w.pushes().isEmpty(), "at pace 3 a 60 s plan is due after 180 s, not 61");
    now = now.plusSeconds(120);
    Work later = new Work(state, now);
    rules.plan(later, h -> marks.get(h.id()), 3.0);
    assertEquals(3, later.pushes().size());
  }

  @Test
  void installPreparesThenInstallsWithOneBootstrap() {
    discover();
    Work install = unit(w -> rules.clusterAction(w, "install"));
    assertEquals(ClusterStatus.PREPARING_FOR_INSTALLATION, state.cluster().context().status());
    for (int i = 1; i <= 3; i++) {
      assertEquals(HostStatus.PREPARING_FOR_INSTALLATION, host(i).status());
      assertEquals(HostRole.MASTER, host(i).role(), "auto-assign took the suggested role");
    }
    assertEquals(1, state.hosts().values().stream().filter(h -> h.snapshot().bootstrap()).count());
    assertEquals(3, install.pushes().size());
    assertTrue(install.pushes().get(0).plan().steps().types().contains(StepType.INSTALLATION_DISK_SPEED_CHECK));
    for (int i = 1; i <= 3; i++) {
      UUID id = hosts.get(i - 1);
      unit(w -> rules.stepReply(w, id, "installation-disk-speed-check", 0, BrainFixtures.diskSpeed("/dev/sda", 3), null, now));
    }
    assertEquals(ClusterStatus.PREPARING_FOR_INSTALLATION, state.cluster().context().status(),
        "hosts are prepared, the installation files are not yet");
    Instant started = state.cluster().context().installStartedAt();
    unit(w -> rules.preparationFinished(w, started.minusSeconds(1), true, null, "built-in"));
    assertEquals(ClusterStatus.PREPARING_FOR_INSTALLATION, state.cluster().context().status(),
        "the result of another preparation changes nothing");
    unit(w -> rules.preparationFinished(w, started, true, null, "built-in"));
    assertEquals("success", state.cluster().context().lastPreparationStatus());
    assertEquals(ClusterStatus.INSTALLING, state.cluster().context().status());
    for (int i = 1; i <= 3; i++) {
      assertEquals(HostStatus.INSTALLING, host(i).status());
    }
  }

  @Test
  void aHostWithTwoCpusIsInsufficient() {
    Work reg = unit(w -> rules.register(w, hosts.get(0), INFRA_ENV, CLUSTER, "agent-1", now));
    assertFalse(reg.events().isEmpty());
    BrainRules strict = new BrainRules(new dev.rendezvous.service.ServiceConfig.BrainSettings(java.time.Duration.ofSeconds(1),
        4, null, null, java.time.Duration.ofMinutes(3)).domainConfig(), StepIdGenerator.sequential());
    now = now.plusSeconds(1);
    Work w = new Work(state, now);
    strict.stepReply(w, hosts.get(0), "inventory", 0, BrainFixtures.inventory(1, 2), null, now);
    strict.settle(w, w.refreshScope());
    HostSnapshot h = w.host(hosts.get(0));
    assertEquals(HostStatus.INSUFFICIENT, h.status());
    assertEquals("failure", h.validationsInfo().find("has-min-cpu-cores").orElseThrow().status().toString());
  }

  @Test
  void invalidOutputIsAWarningAndNothingElse() {
    unit(w -> rules.register(w, hosts.get(0), INFRA_ENV, CLUSTER, "agent-1", now));
    HostSnapshot before = host(1);
    Work w = unit(x -> rules.stepReply(x, hosts.get(0), "inventory", 0, "{\"cpu\": \"lots\"}", null, now));
    assertEquals(before, host(1));
    assertEquals(List.of("host_step_reply_invalid"), w.events().stream().map(e -> e.name()).toList());
  }

  @Test
  void aConnectivityReportIsStoredAsTheAgentSentIt() {
    unit(w -> rules.register(w, hosts.get(0), INFRA_ENV, CLUSTER, "agent-1", now));
    unit(w -> rules.stepReply(w, hosts.get(0), "inventory", 0, BrainFixtures.inventory(1, 8), null, now));
    // a field this build does not model stays in the stored document, as upstream keeps the agent's output whole
    String sent = BrainFixtures.connectivity(peersOf(1)).replaceFirst("\\{", "{\"future_field\":[1,2],");
    Work w = unit(x -> rules.stepReply(x, hosts.get(0), "connectivity-check", 0, sent, null, now));
    assertEquals(sent, w.writes().get(hosts.get(0)).connectivity());
    assertEquals(2, host(1).connectivity().remoteHosts().size(), "and parsed for the validations");
  }

  @Test
  void aNewInventoryIsStoredAsTheAgentSentIt() {
    unit(w -> rules.register(w, hosts.get(0), INFRA_ENV, CLUSTER, "agent-1", now));
    String sent = BrainFixtures.inventory(1, 8).replaceFirst("\\{", "{\"future_field\":{\"a\":[1,2]},");
    Work w = unit(x -> rules.stepReply(x, hosts.get(0), "inventory", 0, sent, null, now));
    assertEquals(sent, w.writes().get(hosts.get(0)).inventory(), "kept whole, with what this build does not read");
    assertEquals(8, host(1).inventory().cpu().count(), "and parsed for the validations");
    // a later document of the same unit replaces the text it came with: the row holds the last one
    String next = BrainFixtures.inventory(1, 4);
    Work two = unit(x -> {
      rules.stepReply(x, hosts.get(0), "inventory", 0, sent.replace("\"a\":[1,2]", "\"a\":[3]"), null, now);
      rules.stepReply(x, hosts.get(0), "inventory", 0, next, null, now);
    });
    assertEquals(next, two.writes().get(hosts.get(0)).inventory());
  }

  @Test
  void mediaDisconnectionAndInstallFailureFollowTheExitCode() {
    discover();
    unit(w -> rules.stepReply(w, hosts.get(0), "inventory", 256, "", "media gone", now));
    assertEquals(HostStatus.DISCONNECTED, host(1).status());
    assertTrue(host(1).mediaDisconnected());
  }

  @Test
  void userUpdatesGoThroughTheMachine() {
    unit(w -> rules.register(w, hosts.get(0), INFRA_ENV, CLUSTER, "agent-1", now));
    unit(w -> rules.stepReply(w, hosts.get(0), "inventory", 0, BrainFixtures.inventory(1, 8), null, now));
    unit(w -> rules.updateHost(w, hosts.get(0), HostRole.WORKER, "worker-a", null, null,
        "{\"node_labels\":[{\"key\":\"k\",\"value\":\"v\"}]}"));
    assertEquals(HostRole.WORKER, host(1).role());
    assertEquals("worker-a", host(1).requestedHostname());
    assertTrue(state.hosts().get(hosts.get(0)).spec().contains("node_labels"));
    HostUpdateRejected bad = assertThrows(HostUpdateRejected.class, () -> unit(w -> rules.updateHost(w, hosts.get(0), null,
        null, "/dev/sdz", "disks_selected_config[0].id", null)));
    assertEquals(400, bad.status());
    assertEquals("disks_selected_config[0].id", bad.field());
    assertThrows(HostUpdateRejected.class, () -> unit(w -> rules.updateHost(w, hosts.get(0), null, "local host!", null,
        null, null)));
  }

  /** Host i's fixture inventory, edited. */
  private static String inventory(int i, java.util.function.Consumer<com.fasterxml.jackson.databind.node.ObjectNode> edit) {
    try {
      var n = (com.fasterxml.jackson.databind.node.ObjectNode) dev.rendezvous.service.domain.planning.StepOutputs.JSON
          .readTree(BrainFixtures.inventory(i, 8));
      edit.accept(n);
      return n.toString();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void aHostsOwnOnlyChangeRefreshesThatHostAloneAndOneOthersReadRefreshesAll() {
    discover();
    HostSnapshot other = host(2);
    // an idle machine's next inventory: smartctl's hours and the usable memory moved, nothing other hosts read
    Work own = unit(w -> rules.stepReply(w, hosts.get(0), "inventory", 0, inventory(1, n -> {
      ((com.fasterxml.jackson.databind.node.ObjectNode) n.get("memory")).put("usable_bytes", 16765628416L - 4096);
      ((com.fasterxml.jackson.databind.node.ObjectNode) n.get("disks").get(0)).put("smart", "{\"hours\":9}");
    }), null, now));
    assertEquals(16765628416L - 4096, host(1).inventory().memory().usableBytes(), "the new inventory is the host's");
    assertNotNull(own.writes().get(hosts.get(0)).inventory(), "and is stored");
    assertFalse(own.sharedInputsChanged());
    assertFalse(own.othersMayBeStale(), "no pass over the other hosts follows");
    assertTrue(other == host(2), "another host is not even re-evaluated");
    // the same inventory once more: nothing about the inventory moves, its stored document is not written again
    HostSnapshot before = host(1);
    Work same = unit(w -> rules.stepReply(w, hosts.get(0), "inventory", 0, inventory(1, n -> {
      ((com.fasterxml.jackson.databind.node.ObjectNode) n.get("memory")).put("usable_bytes", 16765628416L - 4096);
      ((com.fasterxml.jackson.databind.node.ObjectNode) n.get("disks").get(0)).put("smart", "{\"hours\":9}");
    }), null, now));
    assertTrue(before.inventory() == host(1).inventory(), "the parsed inventory is kept as it was");
    assertFalse(same.sharedInputsChanged());
    // a new name is read by the other hosts (hostname-unique): they are refreshed
    Work renamed = unit(w -> rules.stepReply(w, hosts.get(0), "inventory", 0, inventory(1, n -> n.put("hostname",
        "host-2")), null, now));
    assertTrue(renamed.sharedInputsChanged());
    assertEquals(HostStatus.INSUFFICIENT, host(2).status(), "host 2 now shares its name: " + host(2).statusInfo());
  }

  @Test
  void aNewConnectivityReportIsReadAcrossHostsOnlyThroughTheMajorityGroups() {
    discover();
    // new round-trip times, the same peers reached: the groups (the only cross-host reader) do not move
    Work rtt = unit(w -> rules.stepReply(w, hosts.get(0), "connectivity-check", 0,
        BrainFixtures.connectivity(peersOf(1)).replace("0.4", "0.9"), null, now));
    assertEquals(0.9, host(1).connectivity().l3AverageRttMs(0));
    assertFalse(rtt.othersMayBeStale());
    // a peer no longer reached both ways: the groups move in the unit, and with them the others' inputs
    Work lost = unit(w -> rules.stepReply(w, hosts.get(0), "connectivity-check", 0,
        BrainFixtures.connectivity(peersOf(1)).replace("true", "false"), null, now));
    assertTrue(lost.sharedInputsChanged());
    assertTrue(state.cluster().context().connectivityMajorityGroups().groupFor("192.168.111.0/24").size() < 3);
    assertEquals(HostStatus.INSUFFICIENT, host(2).status(), "another host left the majority group: " + host(2).statusInfo());
    // a big cluster recomputes the groups in its full passes only: there, any new report counts; after install, none
    assertTrue(BrainRules.connectivityReadAcrossHosts(ClusterStatus.READY, BrainRules.GROUPS_EVERY_UNIT_MAX_HOSTS + 1));
    assertFalse(BrainRules.connectivityReadAcrossHosts(ClusterStatus.READY, BrainRules.GROUPS_EVERY_UNIT_MAX_HOSTS));
    assertFalse(BrainRules.connectivityReadAcrossHosts(ClusterStatus.INSTALLING, 1000));
  }

  @Test
  void theMajorityGroupsAreRecomputedWhenAnInventorysAddressesMoveNotOnEveryInventory() {
    discover();
    // a marker the computation would never give: whether a unit recomputed the groups shows in whether it survives
    MajorityGroups marker = new MajorityGroups(Map.of("192.168.111.0/24", List.of(hosts.get(0))), Map.of());
    Work marked = new Work(state, now); // committed as is: no pass over the hosts follows it
    marked.putCluster(marked.cluster().toBuilder().connectivityMajorityGroups(marker).build());
    state = marked.committed();
    assertEquals(marker, state.cluster().context().connectivityMajorityGroups());
    // an idle machine's next inventory (the usable memory moved): same addresses, the groups are not recomputed
    unit(w -> rules.stepReply(w, hosts.get(0), "inventory", 0, inventory(1, n ->
        ((com.fasterxml.jackson.databind.node.ObjectNode) n.get("memory")).put("usable_bytes", 16765628416L - 8192)),
        null, now));
    assertEquals(16765628416L - 8192, host(1).inventory().memory().usableBytes());
    assertEquals(marker, state.cluster().context().connectivityMajorityGroups());
    // a second address on the host: the groups are recomputed in the unit (all three reach each other again)
    unit(w -> rules.stepReply(w, hosts.get(0), "inventory", 0, inventory(1, n ->
        ((com.fasterxml.jackson.databind.node.ObjectNode) n.get("interfaces").get(0)).withArray("ipv4_addresses")
            .add("192.168.112.31/24")), null, now));
    assertEquals(3, state.cluster().context().connectivityMajorityGroups().groupFor("192.168.111.0/24").size());
  }

  /** How many peers the plan's connectivity check lists (0: no connectivity check). */
  private static int peersListed(Work.Push p) {
    return p.plan().steps().instructions().stream().filter(s -> s.stepType() == StepType.CONNECTIVITY_CHECK)
        .mapToInt(s -> new io.vertx.core.json.JsonArray(s.args().get(0)).size()).findFirst().orElse(0);
  }

  @Test
  void aTargetsPassPushesTheHostsWhoseConnectivityTargetsMovedNotTooOften() {
    discover();
    UUID fourth = BrainFixtures.ids(4).get(3);
    unit(w -> rules.register(w, fourth, INFRA_ENV, CLUSTER, "agent-1", now));
    Work arrived = unit(w -> rules.stepReply(w, fourth, "inventory", 0, BrainFixtures.inventory(4, 8), null, now));
    assertTrue(arrived.targetsMoved(), "a host with an inventory is a peer the others check");
    assertEquals(3, marks.get(fourth).targets(), "the newcomer's plan lists the three others");
    // the three were last pushed with two peers to check, 30 s ago (their plans are due again only after 60 s)
    for (UUID id : hosts) {
      marks.put(id, new PushMark(marks.get(id).signature(), now.minusSeconds(30), 2));
    }
    Work plain = unit(w -> { });
    assertEquals(List.of(), plain.pushes(), "an ordinary unit before the plan floor looks at nobody's targets");
    Work pass = unit(Work::targetsPass);
    assertEquals(hosts, pass.pushes().stream().map(p -> p.host().id()).toList(), "each of the three is pushed again");
    pass.pushes().forEach(p -> assertEquals(3, peersListed(p), "listing all three of its peers"));
    hosts.forEach(id -> assertEquals(3, marks.get(id).targets()));
    assertEquals(List.of(), unit(Work::targetsPass).pushes(), "pushed with the current targets: nothing more");
    // pushed with a stale count 1 s before the next unit: not again before 2 s (four hosts); the pass says when
    assertEquals(2, PushRules.targetsRefreshSeconds(4));
    Instant pushedAt = now;
    marks.put(hosts.get(0), new PushMark(marks.get(hosts.get(0)).signature(), pushedAt, 2));
    Work early = unit(Work::targetsPass);
    assertEquals(List.of(), early.pushes());
    assertEquals(pushedAt.plusSeconds(2), early.targetsRetryAt());
    now = early.targetsRetryAt().minusSeconds(1); // the next unit runs 1 s later: at the retry time
    Work retried = unit(Work::targetsPass);
    assertEquals(List.of(hosts.get(0)), retried.pushes().stream().map(p -> p.host().id()).toList());
    assertEquals(null, retried.targetsRetryAt());
  }

  @Test
  void inABigClusterAHostsFirstConnectivityCheckWaitsUntilThePeersStopArriving() {
    int n = 230;
    assertTrue(PushRules.firstCheckWaitsForArrivals(n));
    assertFalse(PushRules.firstCheckWaitsForArrivals(100), "a 100-host cluster re-checks within 2 s anyway");
    assertEquals(4, PushRules.targetsRefreshSeconds(n + 1), "how long a first check waits at most, here");
    List<UUID> ids = BrainFixtures.ids(n);
    targetsPending = true; // a burst of arrivals: each inventory asks for a targets pass, which waits for quiet
    unit(w -> ids.forEach(id -> rules.register(w, id, INFRA_ENV, CLUSTER, "agent-1", now)));
    Work inventories = unit(x -> { // then the full refresh after it, also a targets pass, 2 s after the registrations
      for (int k = 0; k < n; k++) {
        rules.stepReply(x, ids.get(k), "inventory", 0, BrainFixtures.inventory(k + 1, 8), null, now);
      }
    });
    for (UUID id : ids) {
      Work.Push p = inventories.pushes().stream().filter(x -> x.host().id().equals(id)).findFirst().orElseThrow();
      assertTrue(p.plan().steps().types().contains(StepType.NTP_SYNCHRONIZER), "its other checks go at once");
      assertFalse(p.plan().steps().types().contains(StepType.CONNECTIVITY_CHECK), "not yet its connectivity check");
      assertEquals(0, marks.get(id).targets(), "it has checked no peer");
    }
    assertEquals(List.of(), unit(Work::targetsPass).pushes(), "a pass while peers still arrive pushes nobody");
    targetsPending = false;
    Work pass = unit(Work::targetsPass);
    assertEquals(n, pass.pushes().size(), "every host is pushed its check");
    assertEquals(ids, pass.pushes().stream().map(p -> p.host().id()).toList());
    pass.pushes().forEach(p -> assertEquals(n - 1, peersListed(p), "listing every peer"));
    assertEquals(List.of(), unit(Work::targetsPass).pushes(), "pushed with the current targets: nothing more");

    // one more host while others keep arriving: it waits, but no longer than the targets wait after it registered
    UUID late = BrainFixtures.ids(n + 1).get(n);
    targetsPending = true;
    unit(w -> rules.register(w, late, INFRA_ENV, CLUSTER, "agent-1", now));
    Instant registered = now;
    Work arrived = unit(w -> rules.stepReply(w, late, "inventory", 0, BrainFixtures.inventory(n + 1, 8), null, now));
    assertTrue(arrived.targetsMoved());
    Work.Push first = arrived.pushes().stream().filter(p -> p.host().id().equals(late)).findFirst().orElseThrow();
    assertFalse(first.plan().steps().types().contains(StepType.CONNECTIVITY_CHECK));
    assertEquals(0, marks.get(late).targets(), "the full refresh after it (a targets pass) still while others arrive");
    now = registered.plusSeconds(3); // the next unit runs 4 s after it registered
    Work waited = unit(Work::targetsPass);
    assertTrue(waited.pushes().stream().anyMatch(p -> p.host().id().equals(late) && peersListed(p) == n),
        "it checks the peers there are");
  }

  @Test
  void aRegistrationNothingIsKnownOfMovesTheClusterButNoPassOverThePeers() {
    discover();
    UUID fourth = BrainFixtures.ids(4).get(3);
    List<?> peersBefore = List.of(host(1).validationsInfo(), host(2).validationsInfo(), host(3).validationsInfo());
    Work joined = unit(w -> rules.register(w, fourth, INFRA_ENV, CLUSTER, "agent-1", now));
    assertTrue(joined.sharedInputsChanged(), "the cluster's own rules read it");
    assertEquals(ClusterStatus.INSUFFICIENT, state.cluster().context().status(),
        "a discovering host keeps the cluster from ready: " + state.cluster().context().statusInfo());
    assertFalse(joined.othersMayBeStale(), "nothing the peers' validations read moved");
    // what such a pass would have found: the peers' validations as they were
    unit(w -> rules.settle(w, w.hostIds()));
    assertEquals(peersBefore, List.of(host(1).validationsInfo(), host(2).validationsInfo(), host(3).validationsInfo()));
  }

  @Test
  void aRegistrationThatMakesTheThirdHostRefreshesThePeers() {
    for (int i = 1; i <= 2; i++) {
      UUID id = hosts.get(i - 1);
      unit(x -> rules.register(x, id, INFRA_ENV, CLUSTER, "agent-1", now));
    }
    Work w = new Work(state, now.plusSeconds(1));
    rules.register(w, hosts.get(2), INFRA_ENV, CLUSTER, "agent-1", w.now);
    rules.settle(w, w.refreshScope());
    assertTrue(w.othersMayBeStale(), "the peers' rules compare the host count with 3");
    // a fourth, as a registration burst brings them: discovering peers, nothing known of any
    unit(x -> rules.register(x, hosts.get(2), INFRA_ENV, CLUSTER, "agent-1", now));
    UUID fourth = BrainFixtures.ids(4).get(3);
    Work burst = unit(x -> rules.register(x, fourth, INFRA_ENV, CLUSTER, "agent-1", now));
    assertEquals(HostStatus.DISCOVERING, state.hosts().get(fourth).snapshot().status());
    assertFalse(burst.othersMayBeStale());
  }

  @Test
  void aHostWhoseStatusAloneMovedIsNotPushedItsChecksAgain() {
    discover();
    assertEquals(HostStatus.KNOWN, host(1).status());
    unit(w -> w.planFloor(null)); // every host planned: the plans pushed are the current ones
    // it reaches none of its peers: out of the majority group, insufficient
    Work cut = unit(w -> rules.stepReply(w, hosts.get(0), "connectivity-check", 0, BrainFixtures.connectivity(Map.of()),
        null, now));
    assertEquals(HostStatus.INSUFFICIENT, host(1).status(), host(1).statusInfo());
    assertEquals(List.of(), cut.pushes(), "the same steps: they run again when the plan is due");
    Work back = unit(w -> rules.stepReply(w, hosts.get(0), "connectivity-check", 0,
        BrainFixtures.connectivity(peersOf(1)), null, now));
    assertEquals(HostStatus.KNOWN, host(1).status());
    assertEquals(List.of(), back.pushes());
    // a status whose steps differ is pushed: the install
    Work install = unit(w -> rules.clusterAction(w, "install"));
    assertEquals(3, install.pushes().size(), "preparing for the installation plans other steps");
  }

  @Test
  void beforeTheKeysPlanFloorOnlyTheTouchedHostsArePlanned() {
    discover();
    Instant floor = state.planFloor();
    assertNotNull(floor, "a pass over every host found when the next plan is due");
    assertTrue(floor.isAfter(now), floor + " after " + now);
    java.util.Set<UUID> asked = new java.util.HashSet<>();
    now = now.plusSeconds(1);
    Work w = new Work(state, now);
    rules.stepReply(w, hosts.get(0), "ntp-synchronizer", 0, BrainFixtures.ntp().replace("synced", "unsynced"), null, now);
    rules.settle(w, w.refreshScope());
    rules.plan(w, h -> {
      asked.add(h.id());
      return marks.get(h.id());
    });
    assertEquals(java.util.Set.of(hosts.get(0)), asked, "the others' marks are not even looked up");
    assertEquals(floor, w.planFloor(), "what was pushed now is due later than the floor");

    // once the floor passed, every host is looked at; a minute after the last pushes all three are due again
    asked.clear();
    Work atFloor = new Work(state, floor);
    rules.plan(atFloor, h -> {
      asked.add(h.id());
      return marks.get(h.id());
    });
    assertEquals(java.util.Set.copyOf(hosts), asked);
    assertTrue(!atFloor.planFloor().isBefore(floor));
    Work due = new Work(state, now.plusSeconds(61));
    rules.plan(due, h -> marks.get(h.id()));
    assertEquals(3, due.pushes().size());
    assertTrue(due.planFloor().isAfter(due.now), "all pushed now: due again a minute on");

    // a lost push (the brain drops the floor) makes every host looked at again before the floor
    asked.clear();
    marks.remove(hosts.get(2));
    Work lost = new Work(state, now);
    lost.planFloor(null);
    rules.plan(lost, h -> {
      asked.add(h.id());
      return marks.get(h.id());
    });
    assertEquals(java.util.Set.copyOf(hosts), asked);
    assertEquals(List.of(hosts.get(2)), lost.pushes().stream().map(p -> p.host().id()).toList());
  }

  @Test
  void aUnitThatChangesNothingCachesTheFloorItFound() {
    discover();
    Loaded unknown = state.withPlanFloor(null);
    assertTrue(unknown.sameRowsAs(state));
    Work w = new Work(unknown, now.plusSeconds(1));
    rules.plan(w, h -> marks.get(h.id()));
    assertTrue(w.pushes().isEmpty());
    assertNotNull(w.planFloor(), "found again by a pass over every host");
    assertTrue(w.planFloor().isAfter(w.now) && !w.planFloor().isBefore(state.planFloor()),
        w.planFloor() + " against " + state.planFloor());
  }

  @Test
  void anAgentUpgradeIsAskedOnceReportedAndNotAskedAgainAfterItFailedUntilTheAgentRegistersAgain() {
    BrainRules upgrading = new BrainRules(DomainConfig.defaults().withAgentUpgrade("0.2.0"), StepIdGenerator.sequential());
    UUID id = hosts.get(0);
    Work reg = unit(upgrading, w -> upgrading.register(w, id, INFRA_ENV, CLUSTER, "0.1.0", now));
    assertEquals(List.of("upgrade-agent"), reg.pushes().get(0).plan().steps().instructions().stream()
        .map(st -> st.stepType().wire()).toList());
    assertTrue(reg.events().stream().anyMatch(e -> e.name().equals("upgrade_agent_started")
        && e.message().contains("the agent 0.1.0 is being upgraded to 0.2.0")), reg.events().toString());
    Work again = unit(upgrading, w -> upgrading.stepReply(w, id, "inventory", 0, BrainFixtures.inventory(1, 8), null, now));
    assertTrue(again.events().stream().noneMatch(e -> e.name().equals("upgrade_agent_started")), "said once");

    Work failed = unit(upgrading, w -> upgrading.stepReply(w, id, "upgrade-agent", 1,
        "{\"agent_image\":\"0.2.0\",\"result\":\"failure\"}", "the service's agent jar is version 0.1.5", now));
    assertTrue(failed.events().stream().anyMatch(e -> e.name().equals("upgrade_agent_failed")
        && e.message().contains("could not be upgraded to 0.2.0: the service's agent jar is version 0.1.5")),
        failed.events().toString());
    assertEquals("0.2.0", state.hosts().get(id).snapshot().agentUpgradeFailed());
    assertTrue(failed.pushes().stream().flatMap(p -> p.plan().steps().instructions().stream())
        .noneMatch(st -> st.stepType().wire().equals("upgrade-agent")), "not asked again");

    unit(upgrading, w -> upgrading.register(w, id, INFRA_ENV, CLUSTER, "0.1.0", now)); // the agent restarted
    assertEquals(null, state.hosts().get(id).snapshot().agentUpgradeFailed());
    Work ok = unit(upgrading, w -> upgrading.stepReply(w, id, "upgrade-agent", 0,
        "{\"agent_image\":\"0.2.0\",\"result\":\"success\"}", null, now));
    assertTrue(ok.events().stream().anyMatch(e -> e.name().equals("upgrade_agent_finished")), ok.events().toString());
  }

  @Test
  void aReclaimedHostIsGivenItsBootArtifactsThenRebootsOrWaitsForTheUserWhenTheyCannotBeSetUp() {
    String request = "{\"kernel_url\":\"http://img/boot-artifacts/kernel\",\"host_fs_mount_dir\":\"/host\"}";
    for (int exit : new int[] {0, 1}) {
      UUID id = hosts.get(exit);
      unit(w -> rules.register(w, id, INFRA_ENV, CLUSTER, "0.1.0", now));
      unit(w -> w.put(w.host(id).toBuilder().status(HostStatus.INSTALLED).build()));
      Work reclaimed = unit(w -> rules.hostAction(w, id, new dev.rendezvous.service.domain.host.HostEvent.Reclaim(request)));
      HostSnapshot h = state.hosts().get(id).snapshot();
      assertEquals("reclaiming", h.status().wire());
      assertEquals(null, h.clusterId(), "unbound from its cluster");
      assertEquals(request, h.reclaimBootArtifacts());
      var download = reclaimed.pushes().stream().filter(p -> p.host().id().equals(id)).findFirst().orElseThrow()
          .plan().steps().instructions();
      assertEquals(List.of("download-boot-artifacts"), download.stream().map(st -> st.stepType().wire()).toList());
      assertEquals(List.of(request), download.get(0).args());

      Work replied = unit(w -> rules.stepReply(w, id, "download-boot-artifacts", exit,
          exit == 0 ? "Successfully downloaded boot artifacts" : "", exit == 0 ? null : "no space left on /boot", now));
      h = state.hosts().get(id).snapshot();
      if (exit == 0) {
        assertEquals("reclaiming-rebooting", h.status().wire());
        assertEquals("Host is rebooting into the discovery image", h.statusInfo());
        var reboot = replied.pushes().stream().filter(p -> p.host().id().equals(id)).findFirst().orElseThrow()
            .plan().steps();
        assertEquals(List.of("reboot-for-reclaim"), reboot.instructions().stream().map(st -> st.stepType().wire())
            .toList());
        assertEquals("exit", reboot.postStepAction());
      } else {
        assertEquals("unbinding-pending-user-action", h.status().wire());
        assertTrue(replied.events().stream().anyMatch(e -> e.name().equals("reclaim_failed")
            && e.message().contains("no space left on /boot")), replied.events().toString());
      }
    }
  }
}
