package dev.rendezvous.app;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A stopped and restarted program (same data directory) keeps clusters, infra-envs, events and tokens. */
class RestartTest {
  @TempDir Path dataDir;

  @Test
  void dataSurvivesARestart() throws Exception {
    String clusterId;
    String infraEnvId;
    String token;
    try (Rendezvous first = TestSystem.start(dataDir, Map.of())) {
      token = Files.readString(first.adminTokenFile()).strip();
      Api api = new Api(first.config().apiPort(), token);
      clusterId = api.post("/clusters", Api.cluster("durable")).json().getString("id");
      infraEnvId = api.post("/infra-envs", Api.infraEnv("durable-ie", clusterId)).json().getString("id");
    }
    try (Rendezvous second = TestSystem.start(dataDir, Map.of())) {
      assertEquals(token, Files.readString(second.adminTokenFile()).strip(), "the admin token is kept");
      Api api = new Api(second.config().apiPort(), token);
      assertEquals("durable", api.get("/clusters/" + clusterId).json().getString("name"));
      assertEquals(clusterId, api.get("/infra-envs/" + infraEnvId).json().getString("cluster_id"));
      // the two registrations survive, once each (the brain may also have judged the new cluster before the
      // restart, or after it: a status event either way, never twice)
      var messages = api.get("/events?cluster_id=" + clusterId).array().stream()
          .map(o -> ((io.vertx.core.json.JsonObject) o).getString("message")).toList();
      assertEquals(1, messages.stream().filter("Successfully registered cluster durable"::equals).count(), messages.toString());
      assertEquals(1, messages.stream().filter("Registered infra env durable-ie"::equals).count(), messages.toString());
      assertEquals(messages.size(), new java.util.HashSet<>(messages).size(), "no event twice: " + messages);
    }
  }
}
