package dev.rendezvous.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.rendezvous.service.auth.TokenStore;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class TenantIsolationTest {
  @Test
  void aTenantSeesAndChangesOnlyItsOwn() throws Exception {
    Rendezvous system = TestSystem.shared();
    TokenStore tokens = new TokenStore(system.pool());
    Api acme = new Api(system.config().apiPort(), tokens.create("acme", "test", false).await(10, TimeUnit.SECONDS));
    Api globex = new Api(system.config().apiPort(), tokens.create("globex", "test", false).await(10, TimeUnit.SECONDS));

    String clusterId = acme.post("/clusters", Api.cluster("acme-one")).json().getString("id");
    String infraEnvId = acme.post("/infra-envs", Api.infraEnv("acme-ie", clusterId)).json().getString("id");

    assertEquals(404, globex.get("/clusters/" + clusterId).status());
    assertEquals(404, globex.patch("/clusters/" + clusterId, new JsonObject().put("name", "stolen")).status());
    assertEquals(404, globex.delete("/clusters/" + clusterId).status());
    assertEquals(404, globex.get("/infra-envs/" + infraEnvId).status());
    assertEquals(404, globex.delete("/infra-envs/" + infraEnvId).status());
    assertEquals(404, globex.get("/infra-envs/" + infraEnvId + "/hosts").status());
    assertEquals(404, globex.post("/infra-envs", Api.infraEnv("bind-foreign", clusterId)).status(),
        "binding to another tenant's cluster looks like an unknown cluster");
    JsonArray theirs = globex.get("/clusters").array();
    assertFalse(theirs.stream().anyMatch(o -> ((JsonObject) o).getString("id").equals(clusterId)));
    assertEquals(0, globex.get("/events?cluster_id=" + clusterId).array().size());

    assertEquals("acme-one", acme.get("/clusters/" + clusterId).json().getString("name"));
    assertEquals(401, new Api(system.config().apiPort(), "rdv_not-a-token").get("/clusters").status());
    assertEquals(401, new Api(system.config().apiPort(), null).get("/clusters").status());
  }
}
