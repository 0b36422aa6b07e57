package dev.rendezvous.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

class ClusterApiTest {
  private final Api api = TestSystem.admin();

  @Test
  void createGetUpdateListDelete() {
    Api.Reply created = api.post("/clusters", Api.cluster("crud-one").put("ssh_public_key", Api.SSH_KEY));
    assertEquals(201, created.status(), created.body());
    JsonObject c = created.json();
    String id = c.getString("id");
    assertEquals("Cluster", c.getString("kind"));
    assertEquals("insufficient", c.getString("status"));
    assertEquals("/api/assisted-install/v2/clusters/" + id, c.getString("href"));
    assertEquals("10.128.0.0/14", c.getString("cluster_network_cidr"));
    assertEquals(23, c.getInteger("cluster_network_host_prefix"));
    assertEquals("172.30.0.0/16", c.getString("service_network_cidr"));
    assertEquals(true, c.getBoolean("pull_secret_set"));
    assertFalse(c.containsKey("pull_secret"), "the pull secret is never returned");
    assertEquals(3, c.getInteger("control_plane_count"));

    // the brain's first evaluation moves the new cluster on (pending-for-input: no hosts, no VIPs) a moment after its
    // registration: the views compared below are read once it has (CI saw a GET on either side of it, 7 ms apart)
    JsonObject got = Await.until(id + " evaluated", java.time.Duration.ofSeconds(20), () -> {
      JsonObject g = api.get("/clusters/" + id).json();
      return "pending-for-input".equals(g.getString("status")) ? g : null;
    });
    assertEquals("crud-one", got.getString("name"));
    assertEquals(new JsonArray(), got.getJsonArray("hosts"));
    // without its hosts it is kept encoded per row version and host counts (what controllers poll): got once here, it
    // must follow the changes below
    assertEquals(withoutHosts(got), api.get("/clusters/" + id + "?exclude-hosts=true").json());
    // the list keeps each cluster's encoded view per row version: listed once here, it must follow the changes below
    assertEquals("crud-one", listed(id).getString("name"));

    Api.Reply patched = api.patch("/clusters/" + id, new JsonObject().put("base_dns_domain", "edge.example.org")
        .put("api_vips", new JsonArray().add(new JsonObject().put("ip", "192.168.10.5"))));
    assertEquals(201, patched.status(), patched.body());
    assertEquals("edge.example.org", patched.json().getString("base_dns_domain"));
    assertEquals("192.168.10.5", patched.json().getJsonArray("api_vips").getJsonObject(0).getString("ip"));
    assertEquals("edge.example.org", api.get("/clusters/" + id).json().getString("base_dns_domain"));
    assertEquals("edge.example.org", api.get("/clusters/" + id + "?exclude-hosts=true").json()
        .getString("base_dns_domain"));
    // upstream's UI sends an empty key when none was given: it clears the key, as upstream's update does
    Api.Reply cleared = api.patch("/clusters/" + id, new JsonObject().put("ssh_public_key", "").put("http_proxy", ""));
    assertEquals(201, cleared.status(), cleared.body());
    assertEquals("", cleared.json().getString("ssh_public_key", ""));
    assertEquals(400, api.patch("/clusters/" + id, new JsonObject().put("ssh_public_key", "not a key")).status());
    // VIPs by DHCP: the server's to lease, so setting them is refused (naming the field) and the user's are dropped
    Api.Reply refused = api.patch("/clusters/" + id, new JsonObject().put("vip_dhcp_allocation", true)
        .put("api_vips", new JsonArray().add(new JsonObject().put("ip", "192.168.10.9"))));
    assertEquals(400, refused.status(), refused.body());
    assertTrue(refused.body().contains("api_vips") && refused.body().contains("vip-dhcp-allocation mode"), refused.body());
    Api.Reply dhcp = api.patch("/clusters/" + id, new JsonObject().put("vip_dhcp_allocation", true));
    assertEquals(201, dhcp.status(), dhcp.body());
    assertEquals(new JsonArray(), dhcp.json().getJsonArray("api_vips"));
    assertEquals(new JsonArray(), dhcp.json().getJsonArray("ingress_vips"));

    // the list shows the cluster as it is now, as its own GET does (asked again if the brain wrote it in between)
    JsonObject inList = Await.until("the listed view equal to the cluster's own", java.time.Duration.ofSeconds(10), () -> {
      JsonObject l = listed(id);
      JsonObject own = api.get("/clusters/" + id).json();
      return l.equals(withoutHosts(own)) && l.equals(api.get("/clusters/" + id + "?exclude-hosts=true").json()) ? l : null;
    });
    assertEquals(true, inList.getBoolean("vip_dhcp_allocation"));
    assertEquals(0, inList.getInteger("total_host_count"));

    assertEquals(204, api.delete("/clusters/" + id).status());
    assertTrue(api.get("/clusters").array().stream().noneMatch(o -> ((JsonObject) o).getString("id").equals(id)),
        "a deleted cluster leaves the list");
    assertEquals(404, api.get("/clusters/" + id).status());
    Api.Reply gone = api.get("/clusters/" + id + "?exclude-hosts=true");
    assertEquals(404, gone.status(), gone.body());
    assertTrue(gone.body().contains(id), gone.body());
    assertEquals(404, api.delete("/clusters/" + id).status());
  }

  /** A cluster's own view as its GET without hosts answers it: the same, without its hosts and their networks. */
  private static JsonObject withoutHosts(JsonObject cluster) {
    JsonObject c = cluster.copy();
    c.remove("hosts");
    c.remove("host_networks");
    return c;
  }

  private JsonObject listed(String id) {
    return api.get("/clusters").array().stream().map(JsonObject.class::cast)
        .filter(o -> o.getString("id").equals(id)).findFirst().orElseThrow();
  }

  /** "status: message" of one of the cluster's validations, once the brain evaluated the cluster. */
  private String validation(String cluster, String id) {
    return Await.until(id + " evaluated", java.time.Duration.ofSeconds(20), () -> {
      JsonObject v = Api.validation(api.get("/clusters/" + cluster).json(), id);
      return v == null ? null : v.getString("status") + ": " + v.getString("message");
    });
  }

  private String validationBecomes(String cluster, String id, String expected) {
    return Await.until(id + " to be " + expected, java.time.Duration.ofSeconds(20),
        () -> expected.equals(validation(cluster, id)) ? expected : null);
  }

  /**
   * A third-party CNI needs the user's manifests, as upstream's check says; uploading one satisfies it, deleting the
   * last one does not; OCI's external platform integration likewise needs its custom manifest.
   */
  @Test
  void aThirdPartyCniOrOciNeedsTheUsersManifests() {
    String id = api.post("/clusters", Api.cluster("cilium-one").put("network_type", "Cilium")).json().getString("id");
    String c = "/clusters/" + id;
    validationBecomes(id, "custom-manifests-requirements-satisfied", "failure: Custom manifests are required for: Cilium"
        + " network type. Please upload manifests via the custom manifests API.");
    String content = java.util.Base64.getEncoder().encodeToString(
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: cilium\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    Api.Reply uploaded = api.post(c + "/manifests", new JsonObject().put("folder", "manifests")
        .put("file_name", "cilium-ns.yaml").put("content", content));
    assertEquals(201, uploaded.status(), uploaded.body());
    validationBecomes(id, "custom-manifests-requirements-satisfied", "success: Custom manifests are uploaded");
    assertEquals(200, api.delete(c + "/manifests?folder=manifests&file_name=cilium-ns.yaml").status());
    validationBecomes(id, "custom-manifests-requirements-satisfied", "failure: Custom manifests are required for: Cilium"
        + " network type. Please upload manifests via the custom manifests API.");
    assertEquals(201, api.patch(c, new JsonObject().put("network_type", "OVNKubernetes")).status());
    validationBecomes(id, "custom-manifests-requirements-satisfied", "success: No custom manifests are required");

    String oci = api.post("/clusters", Api.cluster("oci-one").put("user_managed_networking", true).put("platform",
        new JsonObject().put("type", "external").put("external", new JsonObject().put("platform_name", "oci")
            .put("cloud_controller_manager", "External")))).json().getString("id");
    validationBecomes(oci, "platform-requirements-satisfied", "failure: The custom manifest required for Oracle Cloud"
        + " Infrastructure platform integration has not been added. Add a custom manifest to continue.");
    assertEquals(201, api.post("/clusters/" + oci + "/manifests", new JsonObject().put("folder", "openshift")
        .put("file_name", "oci-ccm.yaml").put("content", content)).status());
    validationBecomes(oci, "platform-requirements-satisfied", "success: Platform requirements satisfied");
  }

  @Test
  void singleNodeClusterGetsUpstreamDefaults() {
    JsonObject c = api.post("/clusters", Api.cluster("sno-one").put("control_plane_count", 1)).json();
    assertEquals("None", c.getString("high_availability_mode"));
    assertEquals(true, c.getBoolean("user_managed_networking"));
    assertEquals("none", c.getJsonObject("platform").getString("type"));
    // upstream's feature usage, which its UI needs to show a cluster: SNO, the network type, hyperthreading
    JsonObject usage = new JsonObject(c.getString("feature_usage"));
    assertEquals(new JsonObject().put("id", "SNO").put("name", "SNO"), usage.getJsonObject("SNO"));
    assertEquals("OVN_NETWORK_TYPE", usage.getJsonObject("OVN network type").getString("id"));
    assertEquals("all", usage.getJsonObject("Hyperthreading").getJsonObject("data").getString("hyperthreading_enabled"));
    JsonObject ha = new JsonObject(api.post("/clusters", Api.cluster("ha-usage").put("http_proxy", "http://proxy:3128"))
        .json().getString("feature_usage"));
    assertFalse(ha.containsKey("SNO"), ha.encode());
    assertEquals(new JsonObject().put("http_proxy", 1), ha.getJsonObject("Proxy").getJsonObject("data"));
  }

  @Test
  void sloppyPathsAreCleanedNotRefused() {
    String id = api.post("/clusters/", Api.cluster("slash-one")).json().getString("id");
    assertEquals(200, api.get("/clusters//" + id + "/").status());
    assertEquals(200, api.get("/clusters//default-config").status());
    assertEquals(200, api.get("/api/assisted-install//v2/clusters?with_hosts=true").status());
  }

  @Test
  void registrationIsRecordedAsAnEvent() {
    String id = api.post("/clusters", Api.cluster("evented")).json().getString("id");
    Api.Reply events = api.get("/events?cluster_id=" + id);
    assertEquals(200, events.status());
    JsonArray list = events.array();
    // the monitor may already have moved the new cluster on to pending-for-input (CI saw it 58 ms after the
    // registration): that status change is an event of its own
    java.util.List<String> names = list.stream().map(e -> ((JsonObject) e).getString("name")).toList();
    assertEquals("cluster_registration_succeeded", names.get(0), events.body());
    assertEquals(1, java.util.Collections.frequency(names, "cluster_registration_succeeded"), events.body());
    assertTrue(names.stream().skip(1).allMatch("cluster_status_updated"::equals), events.body());
    assertEquals(String.valueOf(list.size()), events.headers().firstValue("Event-Count").orElseThrow());
    assertEquals(String.valueOf(list.size()), events.headers().firstValue("Severity-Count-Info").orElseThrow());
  }

  @Test
  void actionsAreRefusedFromTheWrongStatus() {
    String id = api.post("/clusters", Api.cluster("not-ready")).json().getString("id");
    for (String action : new String[] {"install", "cancel", "reset"}) {
      Api.Reply r = api.post("/clusters/" + id + "/actions/" + action, null);
      assertEquals(409, r.status(), action + ": " + r.body());
      // the monitor may already have moved the new cluster on to pending-for-input (no VIPs yet)
      assertTrue(r.json().getString("reason").matches(".* is (insufficient|pending-for-input); .*"), r.body());
    }
    assertEquals(404, api.post("/clusters/" + java.util.UUID.randomUUID() + "/actions/install", null).status());
  }

  @Test
  void catalogueEndpoints() {
    JsonObject versions = api.get("/openshift-versions").json();
    // upstream's current list: 4.14 and 4.16 to 4.22, 4.22 the default
    for (String v : java.util.List.of("4.14", "4.16", "4.17", "4.18", "4.19", "4.20", "4.21", "4.22")) {
      assertTrue(versions.containsKey(v), v + " in " + versions.fieldNames());
    }
    assertEquals(true, versions.getJsonObject("4.22").getBoolean("default"));
    assertEquals(false, versions.getJsonObject("4.18").getBoolean("default"));
    assertTrue(versions.getJsonObject("4.22").getString("display_name").startsWith("4.22."));
    JsonObject arm = api.post("/clusters", Api.cluster("release-arm").put("cpu_architecture", "arm64")).json();
    assertTrue(arm.getString("ocp_release_image").endsWith("-aarch64"), arm.getString("ocp_release_image"));
    JsonObject dflt = api.get("/clusters/default-config").json();
    assertEquals("10.128.0.0/14", dflt.getString("cluster_network_cidr"));
  }

  @Test
  void answersUnderAKilobyteGoAsTheyAreAndLargerOnesCompressedForAClientThatAsks() throws Exception {
    // HTTP/1.1, as Go's clients (upstream's agent) and curl speak to it (Java's client would upgrade to h2c, where
    // Vert.x compresses whatever the size)
    java.net.http.HttpClient http = java.net.http.HttpClient.newBuilder()
        .version(java.net.http.HttpClient.Version.HTTP_1_1).build();
    java.util.function.Function<String, java.net.http.HttpResponse<byte[]>> gzipGet = path -> {
      try {
        java.net.URI uri = java.net.URI.create("http://127.0.0.1:" + api.port + path);
        return http.send(java.net.http.HttpRequest.newBuilder(uri).header("Accept-Encoding", "gzip").header("Authorization", "Bearer " + api.token).build(),
            java.net.http.HttpResponse.BodyHandlers.ofByteArray());
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    };
    // {"status":"ok"}: gzip would make it 41 bytes, and costs a deflater per answer (an agent's poll, a probe)
    java.net.http.HttpResponse<byte[]> small = gzipGet.apply("/health");
    assertEquals(200, small.statusCode());
    assertTrue(small.headers().firstValue("content-encoding").isEmpty(), small.headers().map().toString());
    assertEquals("ok", new JsonObject(new String(small.body(), java.nio.charset.StandardCharsets.UTF_8))
        .getString("status"));
    java.net.http.HttpResponse<byte[]> large = gzipGet.apply("/api/assisted-install/v2/openshift-versions");
    assertEquals(200, large.statusCode());
    assertEquals("gzip", large.headers().firstValue("content-encoding").orElse(""));
    byte[] plain = new java.util.zip.GZIPInputStream(new java.io.ByteArrayInputStream(large.body())).readAllBytes();
    assertTrue(plain.length >= ApiVerticle.COMPRESSION_THRESHOLD_BYTES && large.body().length < plain.length,
        large.body().length + " of " + plain.length + " bytes");
    assertEquals(api.get("/openshift-versions").json(), new JsonObject(io.vertx.core.buffer.Buffer.buffer(plain)));
  }

  @Test
  void healthReadyAndMetrics() {
    assertEquals(200, api.get("/health").status());
    Api.Reply ready = api.get("/ready");
    assertEquals(200, ready.status(), ready.body());
    assertEquals(true, ready.json().getBoolean("kafka"));
    assertEquals(true, ready.json().getBoolean("database"));
    String unknown = java.util.UUID.randomUUID().toString();
    assertEquals(404, api.get("/clusters/" + unknown).status());
    String metrics = api.get("/metrics").body();
    assertTrue(metrics.contains("vertx_http_server_requests_total"), "Vert.x HTTP metrics are exported");
    // requests counted per operation: the templates of the routes that handled it (joined by '>'), never the id
    assertTrue(java.util.regex.Pattern.compile("vertx_http_server_requests_total\\{[^}]*code=\"404\"[^}]*"
        + "route=\"[^\"]*/api/assisted-install/v2/clusters/:cluster_id[>\"]").matcher(metrics).find(),
        () -> metrics.lines().filter(l -> l.startsWith("vertx_http_server_requests_total")).toList().toString());
    assertFalse(metrics.contains(unknown), "no id in a label");
    assertTrue(metrics.contains("jvm_memory_used_bytes"), "JVM metrics are exported");
    assertTrue(metrics.contains("rdv_gateway_agents_connected"), "the gateway's metrics are exported");
    // only the series asked for (by family or exposed name): what a script polling one gauge often reads
    String some = api.get("/metrics?name%5B%5D=rdv_gateway_agents_connected&name%5B%5D=vertx_http_server_requests_total").body();
    assertEquals(java.util.Set.of("rdv_gateway_agents_connected", "vertx_http_server_requests_total"),
        some.lines().filter(l -> !l.startsWith("#") && !l.isBlank()).map(l -> l.split("[ {]")[0])
            .collect(java.util.stream.Collectors.toSet()), some);
  }
}
