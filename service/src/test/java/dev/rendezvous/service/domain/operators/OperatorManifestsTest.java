package dev.rendezvous.service.domain.operators;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rendezvous.service.domain.host.HostRole;
import dev.rendezvous.service.domain.operators.OperatorManifests.File;
import dev.rendezvous.service.domain.operators.OperatorManifests.Host;
import dev.rendezvous.service.domain.operators.OperatorManifests.PostInstall;
import dev.rendezvous.service.domain.operators.OperatorManifests.Rendered;
import dev.rendezvous.service.domain.operators.OperatorManifests.Target;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class OperatorManifestsTest {
  static final List<Host> THREE_MASTERS = List.of(new Host(HostRole.MASTER, 1), new Host(HostRole.MASTER, 2),
      new Host(HostRole.BOOTSTRAP, 1));

  static Rendered render(String version, List<Host> hosts, String... operators) {
    return OperatorManifests.render(new Target(version, OlmOperator.withDependencies(List.of(operators)), hosts));
  }

  /** Every file parsed back, by file name. */
  static Map<String, JsonNode> byName(Rendered r) {
    return r.files().stream().collect(Collectors.toMap(File::fileName, f -> single(f.content())));
  }

  static JsonNode single(String yaml) {
    List<JsonNode> docs = OperatorManifests.documents(yaml);
    assertEquals(1, docs.size(), yaml);
    return docs.get(0);
  }

  static String post(Rendered r, String operator) {
    return r.postInstall().stream().filter(p -> p.operator().equals(operator)).map(PostInstall::content)
        .reduce((a, b) -> a + "---\n" + b).orElseThrow();
  }

  @Test
  void aClusterWithoutOperatorsGetsNothing() {
    Rendered r = render("4.18", THREE_MASTERS);
    assertTrue(r.isEmpty());
    assertNull(r.controllerFile());
    assertTrue(OperatorManifests.render(new Target("4.18", List.of("ghost"), THREE_MASTERS)).isEmpty(),
        "a name no operator has is skipped");
  }

  @Test
  void lvmGetsItsNamespaceGroupAndSubscriptionThenAnLvmClusterAfterItsCsv() {
    Rendered r = render("4.18", THREE_MASTERS, "lvm");
    Map<String, JsonNode> files = byName(r);
    assertEquals(List.of("50_openshift-lvm_ns.yaml", "50_openshift-lvm_operator_group.yaml",
        "50_openshift-lvm_subscription.yaml", "olm_operator_manifests.yaml"), r.files().stream().map(File::fileName).toList());
    assertTrue(r.files().stream().allMatch(f -> f.folder().equals("openshift")));

    JsonNode ns = files.get("50_openshift-lvm_ns.yaml");
    assertEquals("Namespace", ns.path("kind").asText());
    assertEquals("openshift-storage", ns.path("metadata").path("name").asText());
    assertEquals("true", ns.path("metadata").path("labels").path("openshift.io/cluster-monitoring").asText());
    JsonNode og = files.get("50_openshift-lvm_operator_group.yaml");
    assertEquals("OperatorGroup", og.path("kind").asText());
    assertEquals("operators.coreos.com/v1", og.path("apiVersion").asText());
    assertEquals("openshift-storage", og.path("spec").path("targetNamespaces").get(0).asText());
    JsonNode sub = files.get("50_openshift-lvm_subscription.yaml");
    assertEquals("Subscription", sub.path("kind").asText());
    assertEquals("lvms-operator", sub.path("metadata").path("name").asText());
    assertEquals("openshift-storage", sub.path("metadata").path("namespace").asText());
    assertEquals("lvms-operator", sub.path("spec").path("name").asText());
    assertEquals("redhat-operators", sub.path("spec").path("source").asText());
    assertEquals("openshift-marketplace", sub.path("spec").path("sourceNamespace").asText());
    assertEquals("Automatic", sub.path("spec").path("installPlanApproval").asText());
    assertTrue(sub.path("spec").path("channel").isMissingNode(), "the package's default channel, as upstream");

    JsonNode lvmCluster = single(post(r, "lvm"));
    assertEquals("LVMCluster", lvmCluster.path("kind").asText());
    assertEquals("vg1", lvmCluster.at("/spec/storage/deviceClasses/0/name").asText());
    assertEquals(90, lvmCluster.at("/spec/storage/deviceClasses/0/thinPoolConfig/sizePercent").asInt());
  }

  @Test
  void theControllerFileNamesEachResourceAfterItsOperator() throws Exception {
    Rendered r = render("4.18", THREE_MASTERS, "nmstate");
    JsonNode file = new ObjectMapper().readTree(r.controllerFile());
    assertEquals(1, file.size());
    assertEquals("nmstate", file.get(0).path("Name").asText());
    String cr = new String(Base64.getDecoder().decode(file.get(0).path("Content").asText()), StandardCharsets.UTF_8);
    assertEquals("NMState", single(cr).path("kind").asText());
    JsonNode nmstateSub = byName(r).get("50_openshift-nmstate_subscription.yaml");
    assertEquals("stable", nmstateSub.path("spec").path("channel").asText(), "upstream pins nmstate's channel");
    assertEquals("kubernetes", byName(r).get("50_openshift-nmstate_ns.yaml").at("/spec/finalizers/0").asText());
  }

  @Test
  void odfBringsLsoAndCountsTheDisksOfTheHostsThatRunIt() {
    List<Host> standard = List.of(new Host(HostRole.MASTER, 4), new Host(HostRole.MASTER, 4),
        new Host(HostRole.MASTER, 4), new Host(HostRole.WORKER, 1), new Host(HostRole.WORKER, 2),
        new Host(HostRole.WORKER, 1));
    Rendered r = render("4.18", standard, "odf");
    Map<String, JsonNode> files = byName(r);
    assertTrue(files.containsKey("50_openshift-lso_subscription.yaml"), "the dependency's manifests too");
    assertTrue(files.containsKey("50_openshift-lso_prometheus-rolebinding.yaml"));
    assertEquals("local-storage-operator", files.get("50_openshift-lso_subscription.yaml").at("/spec/name").asText());
    assertEquals("openshift-local-storage", files.get("50_openshift-lso_subscription.yaml").at("/metadata/namespace").asText());
    assertEquals("odf-operator", files.get("50_openshift-odf_subscription.yaml").at("/spec/name").asText());
    assertEquals(List.of("lso", "odf"), r.postInstall().stream().map(PostInstall::operator).toList(),
        "dependencies first");
    assertEquals("LocalVolumeSet", single(post(r, "lso")).path("kind").asText());

    List<JsonNode> odf = OperatorManifests.documents(post(r, "odf"));
    assertEquals(List.of("StorageSystem", "StorageCluster"), odf.stream().map(d -> d.path("kind").asText()).toList(),
        "before 4.19 the StorageSystem comes first");
    JsonNode sc = odf.get(1);
    assertEquals(4, sc.at("/spec/storageDeviceSets/0/count").asInt(), "the workers' disks only");
    assertEquals("localblock-sc", sc.at("/spec/storageDeviceSets/0/dataPVCTemplate/spec/storageClassName").asText());
    assertTrue(sc.at("/spec/resources").isMissingNode(), "standard mode keeps ODF's own resource settings");
    assertEquals("rook-ceph-osd-prepare",
        sc.at("/spec/storageDeviceSets/0/preparePlacement/podAntiAffinity/preferredDuringSchedulingIgnoredDuringExecution/0"
            + "/podAffinityTerm/labelSelector/matchExpressions/0/values/0").asText());

    List<JsonNode> compact = OperatorManifests.documents(post(render("4.19", THREE_MASTERS, "odf"), "odf"));
    assertEquals(1, compact.size(), "no StorageSystem from 4.19 on");
    assertEquals(4, compact.get(0).at("/spec/storageDeviceSets/0/count").asInt(), "the masters' disks");
    assertEquals("8Gi", compact.get(0).at("/spec/resources/mds/limits/memory").asText());
    assertEquals("5Gi", compact.get(0).at("/spec/storageDeviceSets/0/resources/requests/memory").asText());
  }

  @Test
  void cnvAndMtvGetTheirSubscriptionsAndCustomResources() {
    Rendered r = render("4.20", THREE_MASTERS, "mtv");
    Map<String, JsonNode> files = byName(r);
    JsonNode cnv = files.get("50_openshift-cnv_subscription.yaml");
    assertEquals("hco-operatorhub", cnv.at("/metadata/name").asText());
    assertEquals("openshift-cnv", cnv.at("/metadata/namespace").asText());
    assertEquals("kubevirt-hyperconverged", cnv.at("/spec/name").asText());
    assertEquals("stable", cnv.at("/spec/channel").asText());
    assertEquals("schedstats=enable", files.get("50_openshift-cnv_masters_schedstats.yaml").at("/spec/kernelArguments/0").asText());
    assertEquals("worker", files.get("50_openshift-cnv_workers_schedstats.yaml")
        .at("/metadata/labels/machineconfiguration.openshift.io~1role").asText());
    assertEquals("mtv-operator", files.get("50_openshift-mtv_subscription.yaml").at("/spec/name").asText());
    assertEquals("migration", files.get("50_openshift-mtv_operator_group.yaml").at("/metadata/name").asText());
    assertEquals(List.of("cnv", "mtv"), r.postInstall().stream().map(PostInstall::operator).toList());
    assertEquals("HyperConverged", single(post(r, "cnv")).path("kind").asText());
    assertEquals("ForkliftController", single(post(r, "mtv")).path("kind").asText());
  }

  @Test
  void mceWithStorageAlsoGetsAnAgentServiceConfigOnThatStorage() {
    Rendered r = render("4.18", THREE_MASTERS, "mce", "lvm");
    assertTrue(byName(r).containsKey("50_openshift-mce_operator_subscription.yaml"));
    assertEquals("MultiClusterEngine", single(post(r, "mce")).path("kind").asText());
    List<JsonNode> lvm = OperatorManifests.documents(post(r, "lvm"));
    assertEquals(List.of("LVMCluster", "AgentServiceConfig"), lvm.stream().map(d -> d.path("kind").asText()).toList(),
        "applied once the storage operator is ready");
    assertEquals("lvms-vg1", lvm.get(1).at("/spec/imageStorage/storageClassName").asText());
    assertEquals("50Gi", lvm.get(1).at("/spec/imageStorage/resources/requests/storage").asText());
    assertFalse(render("4.18", THREE_MASTERS, "mce").postInstall().stream()
        .anyMatch(p -> p.content().contains("AgentServiceConfig")), "no storage, no AgentServiceConfig");
  }

  @Test
  void theConfigMapCarriesEachResourceAndWhereItsOperatorLives() {
    Rendered r = render("4.18", THREE_MASTERS, "odf");
    JsonNode cm = byName(r).get("olm_operator_manifests.yaml");
    assertEquals("ConfigMap", cm.path("kind").asText());
    assertEquals("assisted-installer", cm.at("/metadata/namespace").asText());
    JsonNode data = cm.path("data");
    String second = new String(Base64.getDecoder().decode(data.path("odf-02.yaml").asText()), StandardCharsets.UTF_8);
    assertEquals("StorageCluster", single(second).path("kind").asText());
    assertTrue(single(second).at("/spec/resources/mds/limits/cpu").isTextual(), "a quantity stays a string: " + second);
    JsonNode meta = single(data.path("odf.metadata.yaml").asText());
    assertEquals("openshift-storage", meta.path("namespace").asText());
    assertEquals("odf-operator", meta.path("subscriptionName").asText());
    assertEquals("[\"odf-01.yaml\",\"odf-02.yaml\"]", meta.path("manifests").toString());
    assertEquals("lso-01.yaml", single(data.path("lso.metadata.yaml").asText()).at("/manifests/0").asText());
  }

  @Test
  void everyOperatorRendersForEveryOfferedRelease() {
    for (String v : List.of("4.14", "4.16", "4.17", "4.18", "4.19", "4.20", "4.21", "4.22")) {
      Rendered r = render(v, THREE_MASTERS, OlmOperator.names().toArray(String[]::new));
      for (File f : r.files()) {
        JsonNode doc = single(f.content());
        assertFalse(doc.path("kind").asText().isEmpty(), f.fileName());
      }
      for (PostInstall p : r.postInstall()) {
        assertFalse(OperatorManifests.documents(p.content()).isEmpty(), p.operator());
      }
      for (OlmOperator op : OlmOperator.values()) {
        long subs = r.files().stream().filter(f -> f.fileName().startsWith("50_openshift-" + op.wire() + "_")
            && single(f.content()).path("kind").asText().equals("Subscription")).count();
        assertEquals(1, subs, op + " on " + v);
      }
    }
  }
}
