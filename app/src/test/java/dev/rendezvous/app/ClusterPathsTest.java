package dev.rendezvous.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.service.auth.TokenStore;
import dev.rendezvous.service.brain.WorkKey;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Tuple;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The cluster paths of issue 14: ignored validations, allow-add-hosts / allow-add-workers, day-2 import,
 * disconnected clusters and supported platforms, each with its success, 400 (field named), 404, 409 and another
 * tenant's token refused.
 */
class ClusterPathsTest {
  private static final String MISSING = "/clusters/00000000-0000-0000-0000-000000000000";
  private final Rendezvous system = TestSystem.shared();
  private final Api api = TestSystem.admin();

  private Api otherTenant(String name) throws Exception {
    return new Api(system.config().apiPort(),
        new TokenStore(system.pool()).create(name, "test", false).await(10, TimeUnit.SECONDS));
  }

  @Test
  void ignoredValidationsAreValidatedStoredAndCountAsPassing() throws Exception {
    // a single-node cluster without a base domain or hosts waits for input: dns-domain-defined fails,
    // machine-cidr-defined is pending
    JsonObject create = Api.cluster("ignored").put("control_plane_count", 1).put("high_availability_mode", "None");
    create.remove("base_dns_domain");
    String id = api.post("/clusters", create).json().getString("id");
    String path = "/clusters/" + id + "/ignored-validations";
    BrainFlowTest.awaitCluster(api, id, "pending-for-input");

    JsonObject empty = api.get(path).json();
    assertEquals("[]", empty.getString("host-validation-ids"));
    assertEquals("[]", empty.getString("cluster-validation-ids"));

    Api.Reply set = api.put(path, new JsonObject().put("cluster-validation-ids", "[\"machine-cidr-defined\",\"dns-domain-defined\"]")
        .put("host-validation-ids", "[\"has-min-cpu-cores\",\"ntp-synced\"]"));
    assertEquals(201, set.status(), set.body());
    assertEquals("[\"dns-domain-defined\",\"machine-cidr-defined\"]", set.json().getString("cluster-validation-ids"));
    assertEquals("[\"has-min-cpu-cores\",\"ntp-synced\"]", set.json().getString("host-validation-ids"));
    assertEquals(set.json(), api.get(path).json(), "stored");
    JsonObject cluster = api.get("/clusters/" + id).json();
    assertEquals("[\"dns-domain-defined\",\"machine-cidr-defined\"]", cluster.getString("ignored_cluster_validations"));
    // the ignored validations no longer holds the cluster back: it waits for hosts now, not for input
    BrainFlowTest.awaitCluster(api, id, "insufficient");

    // "all", and the cluster model's field names, are taken too
    Api.Reply all = api.put(path, new JsonObject().put("ignored_host_validations", "[\"all\"]"));
    assertEquals(201, all.status(), all.body());
    assertEquals("[\"all\"]", all.json().getString("host-validation-ids"));
    assertEquals("[\"dns-domain-defined\",\"machine-cidr-defined\"]", all.json().getString("cluster-validation-ids"),
        "the other list stays");

    Api.Reply unknown = api.put(path, new JsonObject().put("host-validation-ids", "[\"no-such-validation\"]"));
    assertEquals(400, unknown.status());
    assertEquals("host-validation-ids", unknown.json().getString("field"));
    assertTrue(unknown.json().getString("reason").contains("no-such-validation"), unknown.body());
    Api.Reply fixed = api.put(path, new JsonObject().put("cluster-validation-ids", "[\"pull-secret-set\"]"));
    assertEquals(400, fixed.status(), "pull-secret-set may not be ignored");
    assertEquals("cluster-validation-ids", fixed.json().getString("field"));
    Api.Reply notList = api.put(path, new JsonObject().put("cluster-validation-ids", "dns-domain-defined"));
    assertEquals(400, notList.status());
    assertEquals("cluster-validation-ids", notList.json().getString("field"));
    assertEquals("[\"all\"]", api.get(path).json().getString("host-validation-ids"), "refused requests changed nothing");

    assertEquals(404, api.get(MISSING + "/ignored-validations").status());
    assertEquals(404, api.put(MISSING + "/ignored-validations", new JsonObject().put("host-validation-ids", "[]")).status());
    Api other = otherTenant("ignored-other");
    assertEquals(404, other.get(path).status());
    assertEquals(404, other.put(path, new JsonObject().put("host-validation-ids", "[]")).status());
  }

  @Test
  void allowAddHostsTakesAnInstalledClusterToAddingHosts() throws Exception {
    String id = api.post("/clusters", Api.cluster("day2-allow")).json().getString("id");
    for (String action : new String[] {"allow-add-hosts", "allow-add-workers"}) {
      Api.Reply early = api.post("/clusters/" + id + "/actions/" + action, null);
      assertEquals(409, early.status(), action + " before installation: " + early.body());
    }
    Api other = otherTenant("day2-other");
    // installed as the state machine leaves it (the install flow itself is InstallApiTest's)
    installedByFixture(id);
    assertEquals(404, other.post("/clusters/" + id + "/actions/allow-add-hosts", null).status());
    assertEquals("installed", api.get("/clusters/" + id).json().getString("status"));

    Api.Reply ok = api.post("/clusters/" + id + "/actions/allow-add-workers", null);
    assertEquals(202, ok.status(), ok.body());
    assertEquals("adding-hosts", ok.json().getString("status"));
    assertEquals("AddHostsCluster", ok.json().getString("kind"));
    assertEquals(409, api.post("/clusters/" + id + "/actions/allow-add-hosts", null).status(), "already adding hosts");
    assertEquals(404, api.post(MISSING + "/actions/allow-add-hosts", null).status());
    Api.Reply badId = api.post("/clusters/not-a-uuid/actions/allow-add-hosts", null);
    assertEquals(400, badId.status());
    assertEquals("cluster_id", badId.json().getString("field"));
  }

  /** Sets a cluster installed as a finished installation would (status and row version), then lets the brain re-read it. */
  private void installedByFixture(String id) throws Exception {
    system.pool().preparedQuery("UPDATE clusters SET status = 'installed', status_info = 'Cluster is installed',"
            + " row_version = row_version + 1 WHERE id = $1")
        .execute(Tuple.of(UUID.fromString(id))).await(10, TimeUnit.SECONDS);
    system.brain().refresh(WorkKey.cluster(UUID.fromString(id))).toCompletionStage().toCompletableFuture()
        .get(10, TimeUnit.SECONDS);
  }

  @Test
  void importAndDisconnectedRegisterClustersInTheirOwnStatus() throws Exception {
    String ocpId = UUID.randomUUID().toString();
    Api.Reply imported = api.post("/clusters/import", new JsonObject().put("name", "scale-up-ignored")
        .put("api_vip_dnsname", "api.prod.example.com").put("openshift_cluster_id", ocpId).put("openshift_version", "4.18"));
    assertEquals(201, imported.status(), imported.body());
    JsonObject c = imported.json();
    assertEquals("adding-hosts", c.getString("status"));
    assertEquals("AddHostsCluster", c.getString("kind"));
    assertEquals("prod", c.getString("name"), "upstream takes the name from api.<name>.<base domain>");
    assertEquals("example.com", c.getString("base_dns_domain"));
    assertEquals(ocpId, c.getString("openshift_cluster_id"));
    assertEquals(true, c.getBoolean("imported"));
    assertEquals(c.getString("status"), api.get("/clusters/" + c.getString("id")).json().getString("status"));
    Await.until("the imported cluster still adding hosts after a refresh", Duration.ofSeconds(5), () ->
        "adding-hosts".equals(api.get("/clusters/" + c.getString("id")).json().getString("status")) ? true : null);
    Api.Reply noName = api.post("/clusters/import", new JsonObject().put("api_vip_dnsname", "api.a.example.com")
        .put("openshift_cluster_id", ocpId));
    assertEquals(400, noName.status());
    assertEquals("name", noName.json().getString("field"));
    Api.Reply badOcpId = api.post("/clusters/import", new JsonObject().put("name", "x")
        .put("api_vip_dnsname", "api.a.example.com").put("openshift_cluster_id", "nope"));
    assertEquals("openshift_cluster_id", badOcpId.json().getString("field"));

    Api.Reply offline = api.post("/clusters/disconnected", new JsonObject().put("name", "offline")
        .put("openshift_version", "4.18"));
    assertEquals(201, offline.status(), offline.body());
    assertEquals("unmonitored", offline.json().getString("status"));
    assertEquals("DisconnectedCluster", offline.json().getString("kind"));
    Api.Reply noVersion = api.post("/clusters/disconnected", new JsonObject().put("name", "offline"));
    assertEquals(400, noVersion.status());
    assertEquals("openshift_version", noVersion.json().getString("field"));

    Api other = otherTenant("import-other");
    assertEquals(404, other.get("/clusters/" + c.getString("id")).status());
    assertEquals(404, other.get("/clusters/" + offline.json().getString("id")).status());
  }

  @Test
  void supportedPlatformsFollowTheClusterShape() throws Exception {
    String id = api.post("/clusters", Api.cluster("platforms")).json().getString("id");
    assertEquals(new JsonArray().add("none"), api.get("/clusters/" + id + "/supported-platforms").array(),
        "no hosts yet");
    assertEquals(404, api.get(MISSING + "/supported-platforms").status());
    assertEquals(404, otherTenant("platforms-other").get("/clusters/" + id + "/supported-platforms").status());
  }
}
