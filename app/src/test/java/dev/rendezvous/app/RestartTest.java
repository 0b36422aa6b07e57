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
      assertEquals(2, api.get("/events?cluster_id=" + clusterId).array().size());
    }
  }
}
