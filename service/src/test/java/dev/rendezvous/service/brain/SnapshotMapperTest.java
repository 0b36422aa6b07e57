package dev.rendezvous.service.brain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.service.domain.DomainConfig;
import dev.rendezvous.service.domain.cluster.ClusterContext;
import dev.rendezvous.service.domain.cluster.ClusterStatus;
import dev.rendezvous.service.domain.cluster.MajorityGroups;
import dev.rendezvous.service.domain.host.HostEvent;
import dev.rendezvous.service.domain.host.HostProgress;
import dev.rendezvous.service.domain.host.HostRole;
import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.host.HostStage;
import dev.rendezvous.service.domain.host.HostStateMachine;
import dev.rendezvous.service.domain.host.HostStatus;
import dev.rendezvous.service.domain.planning.StepOutputs;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class SnapshotMapperTest {
  private static final Instant T = Instant.parse("2025-03-01T12:00:00.123456Z");
  private static final UUID CLUSTER = UUID.fromString("c0000000-0000-0000-0000-000000000001");
  private static final UUID IE = UUID.fromString("e0000000-0000-0000-0000-000000000001");
  private final List<UUID> ids = BrainFixtures.ids(3);

  private HostSnapshot richHost() {
    HostSnapshot h = HostSnapshot.builder(ids.get(0), IE).clusterId(CLUSTER).day2(true).status(HostStatus.INSTALLING_IN_PROGRESS)
        .statusInfo("Installing").statusUpdatedAt(T).registeredAt(T.minusSeconds(600)).checkedInAt(T.minusSeconds(3))
        .role(HostRole.MASTER).suggestedRole(HostRole.MASTER).bootstrap(true)
        .inventory(StepOutputs.inventory(BrainFixtures.inventory(1, 8))).requestedHostname("m-0")
        .mediaDisconnected(true).hostTimestamp(T.getEpochSecond())
        .progress(new HostProgress(HostStage.WRITING_IMAGE_TO_DISK, "40%", T.minusSeconds(30), T, 42))
        .connectionTimedOut(true).stageTimedOut(true)
        .connectivity(StepOutputs.connectivity(BrainFixtures.connectivity(Map.of(ids.get(1), 2, ids.get(2), 3))))
        .ntpSources(StepOutputs.ntp(BrainFixtures.ntp()).ntpSources())
        .domainResolutions(StepOutputs.domainResolution(BrainFixtures.domainResolution()))
        .imagesStatus(List.of(new StepOutputs.ImageAvailability("quay.io/x", "success", 10, 1.5, 6.6)))
        .diskSpeeds(Map.of("/dev/sda", new HostSnapshot.DiskSpeed(true, 0, 7), "/dev/sdb", new HostSnapshot.DiskSpeed(true, 5, 0)))
        .installationDiskId("/dev/disk/by-id/wwn-0x05abcd4ae2c1f2b1").installationDiskPath("/dev/sda")
        .apiVipConnectivity(new StepOutputs.ApiVipConnectivityResponse(true, "http://x:22624", null, null))
        .tangConnectivity(new StepOutputs.TangConnectivityResponse(true))
        .vipVerifications(Map.of("192.168.111.5", "succeeded")).vipsFree(Map.of("192.168.111.6", true))
        .skipFormattingDiskIds(List.of("/dev/sdb")).installerArgs(List.of("--append-karg", "x"))
        .staticNetworking(true).discoveryAgentVersion("agent-1").logsInfo("requested").logsStartedAt(T)
        .logsCollectedAt(T.plusSeconds(1)).build();
    // validations as the machine computes them
    var t = new HostStateMachine(DomainConfig.defaults()).apply(h, ClusterContext.builder(CLUSTER).hosts(List.of(h)).build(),
        new HostEvent.Refresh(), T);
    return h.toBuilder().validationsInfo(t.validationsInfo()).build();
  }

  @Test
  void hostRoundTripsThroughItsRow() {
    HostRecord r = new HostRecord(richHost(), 7,
        "{\"disks_skip_formatting\":[{\"disk_id\":\"/dev/sdb\",\"skip_formatting\":true}],"
            + "\"installer_args\":[\"--append-karg\",\"x\"],\"node_labels\":[{\"key\":\"a\",\"value\":\"b\"}]}",
        "{\"free_addresses\":[{\"network\":\"192.168.111.0/24\",\"free_addresses\":[\"192.168.111.9\"]}]}");
    r = SnapshotMapper.host(SnapshotMapper.stored(r)); // canonical spec text
    StoredHost stored = SnapshotMapper.stored(r);
    HostRecord back = SnapshotMapper.host(stored);
    assertEquals(r.snapshot(), back.snapshot());
    assertEquals(r, back);
    assertEquals(stored, SnapshotMapper.stored(back), "the row written again is the same row");
  }

  /**
   * A row written again reuses the state and step-results texts of the row as stored while what they hold is the same
   * (a new inventory moves neither), and rebuilds them when it moved: each field they write is compared.
   */
  @Test
  void stateAndStepResultsAreCarriedWhileUnchanged() {
    HostRecord prev = new HostRecord(richHost(), 3, null, "{\"free_addresses\":[]}");
    StoredHost prevStored = SnapshotMapper.stored(prev);
    HostSnapshot h = prev.snapshot();

    StoredHost renamed = SnapshotMapper.stored(new HostRecord(h.toBuilder().inventory(StepOutputs.inventory(
        new JsonObject(BrainFixtures.inventory(1, 8)).put("hostname", "renamed").encode())).build(), 3, null,
        "{\"free_addresses\":[]}"), prev, prevStored);
    org.junit.jupiter.api.Assertions.assertSame(prevStored.state(), renamed.state(), "the state text carried");
    org.junit.jupiter.api.Assertions.assertSame(prevStored.stepResults(), renamed.stepResults(),
        "the step results text carried");
    org.junit.jupiter.api.Assertions.assertSame(prevStored.progress(), renamed.progress(), "the progress text carried");
    String spec = "{\"installer_args\":[\"--append-karg\",\"a kernel argument long enough to matter\"]}";
    HostRecord withSpec = new HostRecord(h, 3, spec, "{\"free_addresses\":[]}");
    StoredHost withSpecStored = SnapshotMapper.stored(withSpec);
    StoredHost sameSpec = SnapshotMapper.stored(new HostRecord(h, 3, new String(spec.toCharArray()),
        "{\"free_addresses\":[]}"), withSpec, withSpecStored);
    org.junit.jupiter.api.Assertions.assertSame(withSpecStored.spec(), sameSpec.spec(), "an equal spec: the text carried");
    assertEquals("{}", SnapshotMapper.stored(new HostRecord(h, 3, "{}", "{\"free_addresses\":[]}"), withSpec,
        withSpecStored).spec());
    assertTrue(renamed.inventory().contains("renamed"));

    java.util.function.Function<HostSnapshot, StoredHost> write =
        changed -> SnapshotMapper.stored(new HostRecord(changed, 3, null, "{\"free_addresses\":[]}"), prev, prevStored);
    assertEquals(T.getEpochSecond() + 60, new JsonObject(write.apply(h.toBuilder().hostTimestamp(T.getEpochSecond() + 60)
        .build()).state()).getLong("timestamp"));
    assertEquals("completed", new JsonObject(write.apply(h.toBuilder().logsInfo("completed").build()).state())
        .getString("logs_info"));
    assertFalse(new JsonObject(write.apply(h.toBuilder().mediaDisconnected(false).build()).state())
        .getBoolean("media_disconnected"));
    assertEquals(List.of(Map.of("path", "/dev/sda", "disk_speed", Map.of("tested", true, "exit_code", 0, "speed_ms", 9))),
        new JsonObject(write.apply(h.toBuilder().diskSpeeds(Map.of("/dev/sda", new HostSnapshot.DiskSpeed(true, 0, 9)))
            .build()).stepResults()).getJsonArray("disks_info").getList());
    assertFalse(new JsonObject(write.apply(h.toBuilder().tangConnectivity(null).build()).stepResults())
        .containsKey("tang_connectivity"));
    StoredHost otherResults = SnapshotMapper.stored(new HostRecord(h, 3, null, "{\"free_addresses\":[{}]}"), prev,
        prevStored);
    assertEquals(1, new JsonObject(otherResults.stepResults()).getJsonArray("free_addresses").size());
  }

  /**
   * Whatever field of a host moves, the row written after it is the row built afresh: a document carried from the row
   * as stored is carried only when nothing it holds moved. Every component of the snapshot in turn (a flag flipped, a
   * number, text or time moved, anything else taken away), so a field added to a document and not to its comparison
   * fails here.
   */
  @Test
  void aRowWrittenAfterAnyChangeIsTheRowBuiltAfresh() throws Exception {
    HostRecord prev = new HostRecord(richHost(), 3, "{\"installer_args\":[\"--append-karg\",\"x\"]}",
        "{\"free_addresses\":[]}");
    StoredHost prevStored = SnapshotMapper.stored(prev);
    var components = HostSnapshot.class.getRecordComponents();
    Class<?>[] types = java.util.Arrays.stream(components).map(c -> c.getType()).toArray(Class<?>[]::new);
    var constructor = HostSnapshot.class.getDeclaredConstructor(types);
    int changed = 0;
    for (int i = 0; i < components.length; i++) {
      Object[] args = new Object[components.length];
      for (int j = 0; j < components.length; j++) {
        args[j] = components[j].getAccessor().invoke(prev.snapshot());
      }
      Object was = args[i];
      Class<?> type = types[i];
      if (type == boolean.class) {
        args[i] = !(Boolean) was;
      } else if (type == long.class) {
        args[i] = (Long) was + 61;
      } else if (type == String.class) {
        args[i] = was == null ? "changed" : was + "-changed";
      } else if (type == Instant.class) {
        args[i] = was == null ? T : ((Instant) was).plusSeconds(7);
      } else if (type == UUID.class || type.isEnum() || was == null) {
        continue; // ids, statuses and roles are columns; nothing to take away
      } else {
        args[i] = null;
      }
      HostRecord r = new HostRecord((HostSnapshot) constructor.newInstance(args), 3, prev.spec(), prev.otherResults());
      if (r.snapshot().equals(prev.snapshot())) {
        continue; // taking it away changed nothing (an empty list, no progress)
      }
      changed++;
      StoredHost written = SnapshotMapper.stored(r, prev, prevStored);
      StoredHost fresh = SnapshotMapper.stored(r);
      for (int doc = StoredHost.INVENTORY; doc <= StoredHost.STATE; doc++) {
        assertEquals(fresh.document(doc), written.document(doc), components[i].getName() + " moved: document " + doc);
      }
    }
    assertTrue(changed >= 25, "components moved: " + changed);
    StoredHost otherSpec = SnapshotMapper.stored(new HostRecord(prev.snapshot(), 3, "{}", prev.otherResults()), prev,
        prevStored);
    assertEquals("{}", otherSpec.spec());
    StoredHost otherResults = SnapshotMapper.stored(new HostRecord(prev.snapshot(), 3, prev.spec(),
        "{\"free_addresses\":[{}]}"), prev, prevStored);
    assertEquals(1, new JsonObject(otherResults.stepResults()).getJsonArray("free_addresses").size());
  }

  @Test
  void rowsUseUpstreamShapesWhereTheApiShowsThem() {
    StoredHost s = SnapshotMapper.stored(new HostRecord(richHost(), 1, null, null));
    JsonObject progress = new JsonObject(s.progress());
    assertEquals("Writing image to disk", progress.getString("current_stage"));
    assertEquals(42, progress.getInteger("installation_percentage"));
    JsonObject results = new JsonObject(s.stepResults());
    assertEquals("synced", results.getJsonArray("ntp_sources").getJsonObject(0).getString("source_state"));
    assertEquals(2, results.getJsonArray("disks_info").size());
    assertEquals(7, results.getJsonArray("disks_info").getJsonObject(0).getJsonObject("disk_speed").getInteger("speed_ms"));
    assertEquals("host-1", new JsonObject(s.inventory()).getString("hostname"));
    JsonObject state = new JsonObject(s.state());
    assertTrue(state.getBoolean("day2"));
    assertTrue(state.getBoolean("media_disconnected"));
    assertEquals(T.getEpochSecond(), state.getLong("timestamp"));
    assertEquals("master", s.role());
    assertTrue(new JsonObject(s.validationsInfo()).containsKey("hardware"));
  }

  @Test
  void aFreshHostHasNoProgressAndEmptyDocuments() {
    HostSnapshot h = HostSnapshot.builder(ids.get(1), IE).status(HostStatus.DISCOVERING_UNBOUND).statusUpdatedAt(T)
        .registeredAt(T).build();
    StoredHost s = SnapshotMapper.stored(new HostRecord(h, 1, null, null));
    assertNull(s.progress());
    assertNull(s.inventory());
    assertEquals("{}", s.stepResults());
    HostRecord back = SnapshotMapper.host(s);
    assertEquals(h, back.snapshot());
    assertNull(back.snapshot().ntpSources());
  }

  @Test
  void clusterSpecAndStateMapToTheContext() {
    StoredCluster s = BrainFixtures.cluster(CLUSTER, T);
    ClusterRecord r = SnapshotMapper.cluster(s);
    ClusterContext c = r.context();
    assertEquals(ClusterStatus.INSUFFICIENT, c.status());
    assertEquals(List.of("192.168.111.0/24"), c.machineNetworks());
    assertEquals(List.of("192.168.111.5"), c.apiVips());
    assertEquals(List.of("192.168.111.4"), c.ingressVips());
    assertEquals(BrainFixtures.BASE_DOMAIN, c.baseDnsDomain());
    assertEquals(3, c.controlPlaneCount());
    assertEquals(23, c.clusterNetworks().get(0).hostPrefix());
    assertTrue(c.pullSecretSet());
    assertEquals("not_started", c.lastPreparationStatus());

    ClusterContext moved = c.toBuilder().status(ClusterStatus.FINALIZING).installStartedAt(T)
        .connectivityMajorityGroups(new MajorityGroups(Map.of("192.168.111.0/24", ids), Map.of(ids.get(0), List.of("192.168.111.21"))))
        .ipCollisions(Map.of("192.168.111.30", List.of("aa", "bb"))).ignoredHostValidations(java.util.Set.of("ntp-synced"))
        .lastPreparationStatus("success").kubeconfigExists(true)
        .monitoredOperators(List.of(new ClusterContext.MonitoredOperator("console", "builtin", "available")))
        .finalizingStage("Waiting for cluster operators").finalizingStageStartedAt(T).finalizingStageTimedOut(true)
        .logsInfo("requested").controllerLogsStartedAt(T).build();
    ClusterRecord next = new ClusterRecord(moved, 2, "tenant-a", T.plusSeconds(9), "{\"total_percentage\":10}");
    StoredCluster written = SnapshotMapper.stored(next);
    assertNull(written.spec(), "the brain never writes the user's settings (the REST API owns them)");
    // read back as the row holds it: what the brain wrote beside the user's settings
    StoredCluster row = new StoredCluster(written.id(), written.tenant(), written.name(), written.openshiftVersion(),
        written.status(), written.statusInfo(), written.statusUpdatedAt(), s.spec(), written.validationsInfo(),
        written.progress(), written.installStartedAt(), written.installCompletedAt(), written.state(),
        written.rowVersion());
    assertEquals(next.context(), SnapshotMapper.cluster(row).context());
    assertEquals(next, SnapshotMapper.cluster(row));
  }

  @Test
  void staticNetworkingComesFromTheInfraEnv() {
    assertTrue(SnapshotMapper.hasStaticNetworking("{\"static_network_config\":[{\"network_yaml\":\"a: b\"}]}"));
    assertFalse(SnapshotMapper.hasStaticNetworking("{\"static_network_config\":[]}"));
    assertFalse(SnapshotMapper.hasStaticNetworking("{}"));
  }
}
