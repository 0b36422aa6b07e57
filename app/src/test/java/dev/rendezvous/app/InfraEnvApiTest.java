package dev.rendezvous.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

class InfraEnvApiTest {
  private final Api api = TestSystem.admin();

  @Test
  void createGetUpdateListDelete() {
    String clusterId = api.post("/clusters", Api.cluster("ie-owner")).json().getString("id");
    JsonObject body = Api.infraEnv("ie-crud", clusterId).put("ssh_authorized_key", Api.SSH_KEY)
        .put("proxy", new JsonObject().put("http_proxy", "http://proxy.example.com:3128").put("no_proxy", ".example.com,10.0.0.0/8"));
    Api.Reply created = api.post("/infra-envs", body);
    assertEquals(201, created.status(), created.body());
    JsonObject ie = created.json();
    String id = ie.getString("id");
    assertEquals("InfraEnv", ie.getString("kind"));
    assertEquals(clusterId, ie.getString("cluster_id"));
    assertEquals("full-iso", ie.getString("type"));
    assertEquals("x86_64", ie.getString("cpu_architecture"));
    assertEquals("4.18", ie.getString("openshift_version"), "inherits the cluster's version");
    assertTrue(ie.getString("download_url").contains("/images/" + id), ie.getString("download_url"));

    assertEquals("ie-crud", api.get("/infra-envs/" + id).json().getString("name"));
    Api.Reply patched = api.patch("/infra-envs/" + id, new JsonObject().put("image_type", "minimal-iso")
        .put("additional_ntp_sources", "ntp.example.com,10.0.0.1"));
    assertEquals(201, patched.status(), patched.body());
    assertEquals("minimal-iso", patched.json().getString("type"));
    assertEquals("ntp.example.com,10.0.0.1", api.get("/infra-envs/" + id).json().getString("additional_ntp_sources"));

    JsonArray byCluster = api.get("/infra-envs?cluster_id=" + clusterId).array();
    assertEquals(1, byCluster.size());
    assertEquals(id, byCluster.getJsonObject(0).getString("id"));
    assertEquals(new JsonArray(), api.get("/infra-envs/" + id + "/hosts").array());

    assertEquals(204, api.delete("/infra-envs/" + id).status());
    assertEquals(404, api.get("/infra-envs/" + id).status());
  }

  @Test
  void unboundInfraEnvUsesTheDefaultRelease() {
    JsonObject ie = api.post("/infra-envs", Api.infraEnv("late-binding", null)).json();
    assertEquals(null, ie.getString("cluster_id"));
    assertEquals("4.22", ie.getString("openshift_version"), "the catalog's default, as upstream's");
  }

  @Test
  void deletingAClusterUnbindsItsInfraEnvs() {
    String clusterId = api.post("/clusters", Api.cluster("short-lived")).json().getString("id");
    String id = api.post("/infra-envs", Api.infraEnv("survivor", clusterId)).json().getString("id");
    assertEquals(204, api.delete("/clusters/" + clusterId).status());
    JsonObject ie = api.get("/infra-envs/" + id).json();
    assertEquals(null, ie.getString("cluster_id"));
  }
}
