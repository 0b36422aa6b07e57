package dev.rendezvous.service.install;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.service.domain.host.HostRole;
import dev.rendezvous.service.domain.operators.OperatorManifests;
import dev.rendezvous.service.repo.ClusterRepository.ClusterRow;
import dev.rendezvous.service.repo.HostRepository.HostRow;
import dev.rendezvous.service.repo.ManifestRepository;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** How the preparation reads the operators' manifests off the stored cluster and gives them to the generator. */
class OperatorManifestsPreparationTest {
  static ClusterRow cluster(String... operators) {
    JsonArray ops = new JsonArray();
    for (String o : operators) {
      ops.add(new JsonObject().put("name", o));
    }
    return new ClusterRow(UUID.randomUUID(), "t", "c", "4.18", "preparing-for-installation", "", null,
        new JsonObject().put("olm_operators", ops), null, null, null, null, 1, null, null);
  }

  /** A host whose inventory has an installation disk and {@code extra} more disks of 100 GB (one of 10 GB too). */
  static HostRow host(String role, String suggested, int extra) {
    JsonArray disks = new JsonArray().add(disk("sda", 120)).add(disk("sdz", 10));
    for (int i = 0; i < extra; i++) {
      disks.add(disk("sd" + (char) ('b' + i), 100));
    }
    JsonObject inventory = new JsonObject().put("disks", disks)
        .put("cpu", new JsonObject().put("count", 8)).put("memory", new JsonObject().put("physical_bytes", 1L << 35));
    return new HostRow(UUID.randomUUID(), UUID.randomUUID(), null, "installing", "", null, role, suggested, false, null,
        "/dev/disk/by-id/sda", null, null, inventory.encode(), null, null, null, new JsonObject(), null, null, 1, null, null, null);
  }

  static JsonObject disk(String name, long gb) {
    return new JsonObject().put("id", "/dev/disk/by-id/" + name).put("name", name).put("path", "/dev/" + name)
        .put("drive_type", "SSD").put("size_bytes", gb * 1_000_000_000L);
  }

  @Test
  void rolesAndOdfDisksComeFromTheStoredHosts() {
    OperatorManifests.Target t = OperatorTargets.of(cluster("lso", "odf"), List.of(host("auto-assign", "worker", 2),
        host("master", null, 1), host("worker", null, 0)));
    assertEquals(List.of("lso", "odf"), t.operators());
    assertEquals(List.of(new OperatorManifests.Host(HostRole.WORKER, 2), new OperatorManifests.Host(HostRole.MASTER, 1),
        new OperatorManifests.Host(HostRole.WORKER, 0)), t.hosts(), "installation disk and small disks not counted");
    assertTrue(OperatorTargets.of(cluster(), List.of(host("master", null, 1))).operators().isEmpty());
  }

  @Test
  void theOperatorsManifestsFollowTheUsersAndReplaceOneOfTheSamePath() {
    OperatorManifests.Rendered lvm = OperatorManifests.render(new OperatorManifests.Target("4.18", List.of("lvm"), List.of()));
    List<ManifestRepository.Manifest> user = List.of(
        new ManifestRepository.Manifest("manifests", "mine.yaml", "kind: ConfigMap\n", null, null),
        new ManifestRepository.Manifest("openshift", "50_openshift-lvm_ns.yaml", "kind: Secret\n", null, null));
    List<GenerationRequest.Manifest> all = ClusterPreparation.withOperators(user, lvm);
    assertEquals("mine.yaml", all.get(0).fileName());
    assertEquals(1 + lvm.files().size(), all.size());
    GenerationRequest.Manifest ns = all.stream().filter(m -> m.fileName().equals("50_openshift-lvm_ns.yaml")).findFirst()
        .orElseThrow();
    assertTrue(ns.content().contains("kind: Namespace"), ns.content());
  }

  @Test
  void theStoredFilesAddTheSystemManifestsAndTheControllersFile() {
    ClusterArtifacts generated = new ClusterArtifacts(Map.of(ClusterArtifacts.MASTER, new byte[] {'{', '}'}), "built-in", false);
    OperatorManifests.Rendered lvm = OperatorManifests.render(new OperatorManifests.Target("4.18", List.of("lvm"), List.of()));
    ClusterArtifacts stored = ClusterPreparation.stored(lvm, java.util.Map.of(), generated);
    assertTrue(stored.files().containsKey(ClusterArtifacts.MASTER));
    assertTrue(new String(stored.files().get("manifests/openshift/50_openshift-lvm_subscription.yaml"), StandardCharsets.UTF_8)
        .contains("lvms-operator"));
    assertTrue(new String(stored.files().get(ClusterArtifacts.CONTROLLER_MANIFESTS), StandardCharsets.UTF_8)
        .contains("\"Name\":\"lvm\""));
    OperatorManifests.Rendered none = OperatorManifests.render(new OperatorManifests.Target("4.18", List.of(), List.of()));
    assertFalse(ClusterPreparation.stored(none, java.util.Map.of(), generated).files().containsKey(ClusterArtifacts.CONTROLLER_MANIFESTS));
  }
}
