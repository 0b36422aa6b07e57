package dev.rendezvous.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.service.auth.TokenStore;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The calls upstream's UI makes before its first screens (they answered 404 before), with upstream's shapes:
 * supported operators, component versions, managed domains, support levels, the ISO's image URL, a cluster's
 * preflight requirements, and its UI settings (kept per cluster and tenant).
 */
class UiPathsTest {
  private final Rendezvous system = TestSystem.shared();
  private final Api api = TestSystem.admin();

  @Test
  void referenceEndpointsAnswerWithUpstreamsShapes() {
    JsonArray operators = api.get("/supported-operators").array();
    assertTrue(operators.contains("lvm") && operators.contains("odf") && operators.contains("cnv"), operators.encode());
    assertEquals(200, api.get("/supported-operators/lso").status());
    Api.Reply unknown = api.get("/supported-operators/no-such-operator");
    assertEquals(404, unknown.status());
    assertEquals("operator_name", unknown.json().getString("field"));

    JsonObject versions = api.get("/component-versions").json();
    assertTrue(versions.getJsonObject("versions").containsKey("assisted-installation-service"), versions.encode());
    assertEquals(new JsonArray(), api.get("/domains").array(), "no managed domains unless configured");
    assertEquals(new JsonArray(), api.get("/operators/bundles").array());
    assertTrue(api.get("/release-sources").array().size() >= 1);

    JsonObject features = api.get("/support-levels/features?openshift_version=4.18").json().getJsonObject("features");
    assertEquals("supported", features.getString("SNO"));
    assertEquals("supported", features.getString("LVM"), "as upstream's: its subscription is rendered");
    // the UI takes a missing id for supported: what this build does not do is listed as such
    assertEquals("unavailable", features.getString("NVIDIA_GPU"), "an operator upstream offers and this build does not");
    assertEquals("unavailable", features.getString("DUAL_STACK_VIPS"));
    assertEquals("supported", features.getString("OVN_NETWORK_TYPE"));
    assertEquals("unavailable", features.getString("SDN_NETWORK_TYPE"), "gone from 4.15 on");
    assertEquals("supported", api.get("/support-levels/features?openshift_version=4.14").json().getJsonObject("features")
        .getString("SDN_NETWORK_TYPE"));
    assertEquals("supported", features.getString("NON_STANDARD_HA_CONTROL_PLANE"));
    JsonObject arm = api.get("/support-levels/features?openshift_version=4.18&cpu_architecture=arm64").json()
        .getJsonObject("features");
    assertEquals("unavailable", arm.getString("ODF"), "upstream's ODF is incompatible with arm64");
    assertEquals("dev-preview", arm.getString("CNV"));
    Api.Reply noVersion = api.get("/support-levels/features");
    assertEquals(400, noVersion.status());
    assertEquals("openshift_version", noVersion.json().getString("field"));
    assertEquals(400, api.get("/support-levels/architectures?openshift_version=1.0").status());
    JsonObject arch = api.get("/support-levels/architectures?openshift_version=4.18").json().getJsonObject("architectures");
    // keyed by upstream's architecture-support-level-id, as the UI looks them up
    assertEquals("supported", arch.getString("X86_64_ARCHITECTURE"));
    assertEquals("unavailable", arch.getString("MULTIARCH_RELEASE_IMAGE"));
    for (Object source : api.get("/release-sources").array()) {
      assertTrue(((JsonObject) source).containsKey("multi_cpu_architectures"), "required by upstream's release-source");
    }
  }

  @Test
  void preflightRequirementsFollowTheClusterShape() {
    String ha = api.post("/clusters", Api.cluster("preflight-ha")).json().getString("id");
    String sno = api.post("/clusters", Api.cluster("preflight-sno").put("high_availability_mode", "None")).json()
        .getString("id");
    JsonObject haOcp = api.get("/clusters/" + ha + "/preflight-requirements").json().getJsonObject("ocp");
    JsonObject snoOcp = api.get("/clusters/" + sno + "/preflight-requirements").json().getJsonObject("ocp");
    JsonObject haMaster = haOcp.getJsonObject("master").getJsonObject("quantitative");
    assertTrue(haMaster.getInteger("cpu_cores") > 0 && haMaster.getLong("ram_mib") > 0 && haMaster.getLong("disk_size_gb") > 0,
        haMaster.encode());
    assertTrue(haMaster.containsKey("network_latency_threshold_ms"), "HA masters have a latency bound");
    assertTrue(!snoOcp.getJsonObject("master").getJsonObject("quantitative").containsKey("network_latency_threshold_ms"),
        "a single node has no peers to measure: " + snoOcp.encode());
    assertTrue(haOcp.containsKey("arbiter") && !snoOcp.containsKey("arbiter"));
    assertEquals(404, api.get("/clusters/00000000-0000-0000-0000-000000000000/preflight-requirements").status());
  }

  @Test
  void operatorsBringTheirDependenciesAndRequirements() {
    JsonObject created = api.post("/clusters", Api.cluster("operators").put("olm_operators",
        new JsonArray().add(new JsonObject().put("name", "mtv")))).json();
    String id = created.getString("id");
    // MTV needs CNV (which, as upstream's current operator, needs nothing): both are monitored from the start
    java.util.List<String> monitored = created.getJsonArray("monitored_operators").stream()
        .map(o -> ((JsonObject) o).getString("name")).toList();
    assertEquals(java.util.List.of("console", "cnv", "mtv"), monitored);
    JsonArray preflight = api.get("/clusters/" + id + "/preflight-requirements").json().getJsonArray("operators");
    JsonObject cnv = preflight.stream().map(JsonObject.class::cast)
        .filter(o -> "cnv".equals(o.getString("operator_name"))).findFirst().orElseThrow();
    assertEquals(new JsonArray(), cnv.getJsonArray("dependencies"));
    assertEquals(4, cnv.getJsonObject("requirements").getJsonObject("master").getJsonObject("quantitative")
        .getInteger("cpu_cores"));
    assertEquals(2, preflight.size(), preflight.encode());

    Api.Reply unknown = api.patch("/clusters/" + id, new JsonObject().put("olm_operators",
        new JsonArray().add(new JsonObject().put("name", "odf")).add(new JsonObject().put("name", "no-such"))));
    assertEquals(400, unknown.status(), unknown.toString());
    assertEquals("olm_operators[1].name", unknown.json().getString("field"));
    assertEquals(2, api.get("/clusters/" + id).json().getJsonArray("monitored_operators").size() - 1,
        "a refused update changes nothing");
    JsonObject odf = api.patch("/clusters/" + id, new JsonObject().put("olm_operators",
        new JsonArray().add(new JsonObject().put("name", "odf")))).json();
    assertEquals(java.util.List.of("console", "lso", "odf"), odf.getJsonArray("monitored_operators").stream()
        .map(o -> ((JsonObject) o).getString("name")).toList());
  }

  @Test
  void uiSettingsAreKeptPerClusterAndTenant() throws Exception {
    String id = api.post("/clusters", Api.cluster("ui-settings")).json().getString("id");
    assertEquals("\"\"", api.get("/clusters/" + id + "/ui-settings").body(), "empty until set");
    String settings = "{\"addCustomManifests\":true}";
    Api.Reply put = api.put("/clusters/" + id + "/ui-settings", io.vertx.core.json.Json.encode(settings));
    assertEquals(200, put.status(), put.toString());
    assertEquals(settings, io.vertx.core.json.Json.decodeValue(api.get("/clusters/" + id + "/ui-settings").body()));
    // a UI that sends an object gets its text back
    assertEquals(200, api.put("/clusters/" + id + "/ui-settings", new JsonObject().put("a", 1)).status());
    assertEquals("{\"a\":1}", io.vertx.core.json.Json.decodeValue(api.get("/clusters/" + id + "/ui-settings").body()));
    assertEquals(400, api.call("PUT", "/clusters/" + id + "/ui-settings", "{not json").status());

    Api other = new Api(system.config().apiPort(),
        new TokenStore(system.pool()).create("ui-other", "test", false).await(10, TimeUnit.SECONDS));
    assertEquals(404, other.get("/clusters/" + id + "/ui-settings").status());
    assertEquals(404, other.put("/clusters/" + id + "/ui-settings", "\"stolen\"").status());
  }

  @Test
  void theImageUrlOfAnInfraEnvIsItsDownloadUrl() {
    JsonObject ie = api.post("/infra-envs", Api.infraEnv("image-url", null)).json();
    JsonObject url = api.get("/infra-envs/" + ie.getString("id") + "/downloads/image-url").json();
    assertEquals(ie.getString("download_url"), url.getString("url"));
    assertTrue(url.containsKey("expires_at"));
  }
}
