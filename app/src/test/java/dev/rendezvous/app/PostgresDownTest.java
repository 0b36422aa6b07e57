package dev.rendezvous.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedded PostgreSQL killed (-9) under a running system: user requests are answered 503 with Retry-After
 * at once (never a hang or a 500), /ready says the database is down, agents keep being answered by the gateway
 * (the bus holds what they send), and the system starts the server again by itself; then everything continues
 * and what an agent was acknowledged during the outage is there.
 */
class PostgresDownTest {
  @TempDir Path dataDir;

  @Test
  void aKilledDatabaseIsRestartedAndNothingAcknowledgedIsLost() throws Exception {
    try (Rendezvous system = TestSystem.start(dataDir, Map.of())) {
      Api api = new Api(system.config().apiPort(), Files.readString(system.adminTokenFile()).strip());
      String clusterId = api.post("/clusters", Api.cluster("outage")).json().getString("id");
      String infraEnvId = api.post("/infra-envs", Api.infraEnv("outage-ie", clusterId)).json().getString("id");
      Api agent = Api.agent(system.config().apiPort(), system.agentToken(infraEnvId, clusterId));

      long postmaster = system.embeddedPostgres().orElseThrow().postmasterPid().orElseThrow();
      new ProcessBuilder("kill", "-9", Long.toString(postmaster)).start().waitFor();

      // user paths: 503 with Retry-After, fast; every answer during the outage is a 200 or that 503, never a 500
      // (an orphaned backend may still answer a query or two until it notices its postmaster is gone: 200)
      List<Api.Reply> during = new ArrayList<>();
      Api.Reply first;
      long firstMillis;
      long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
      do {
        long t0 = System.nanoTime();
        first = api.get("/clusters/" + clusterId);
        firstMillis = (System.nanoTime() - t0) / 1_000_000;
        during.add(first);
      } while (first.status() == 200 && System.nanoTime() < deadline);
      assertEquals(503, first.status(), "the first failed request after the kill: " + first);
      assertTrue(firstMillis < 1000, "answered in " + firstMillis + " ms");
      assertTrue(first.headers().firstValue("Retry-After").isPresent(), "Retry-After is set");
      assertEquals("503", first.json().getString("code"), "upstream's error shape");
      Api.Reply ready = api.get("/ready");
      if (ready.status() == 503) {
        assertFalse(ready.json().getBoolean("database"), "/ready names the database: " + ready);
      }

      // the agent edge does not depend on the database: a registration made now is acknowledged and kept
      String hostId = UUID.randomUUID().toString();
      Api.Reply registered = agent.post("/infra-envs/" + infraEnvId + "/hosts",
          new JsonObject().put("host_id", hostId).put("discovery_agent_version", "outage-test"));
      assertEquals(201, registered.status(), registered.toString());

      // the system brings the server back by itself
      Api.Reply back = Await.until("the database back", Duration.ofSeconds(60), () -> {
        Api.Reply r = api.get("/clusters/" + clusterId);
        during.add(r);
        return r.status() == 200 ? r : null;
      });
      assertEquals("outage", back.json().getString("name"));
      for (Api.Reply r : during) {
        assertTrue(r.status() == 200 || r.status() == 503 && r.headers().firstValue("Retry-After").isPresent(),
            "during the outage: " + r);
      }
      assertTrue(system.embeddedPostgres().orElseThrow().postmasterPid().orElseThrow() != postmaster,
          "a new server process");
      Await.until("/ready green", Duration.ofSeconds(30), () -> api.get("/ready").status() == 200);
      Await.until("the host registered during the outage", Duration.ofSeconds(60),
          () -> api.get("/infra-envs/" + infraEnvId + "/hosts/" + hostId).status() == 200);
      assertEquals(201, api.post("/clusters", Api.cluster("after-outage")).status(), "writes work again");
    }
  }
}
