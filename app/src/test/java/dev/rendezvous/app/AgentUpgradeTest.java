package dev.rendezvous.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.agent.AgentConfig;
import dev.rendezvous.agent.AgentSwarm;
import dev.rendezvous.agent.AgentVersion;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Agent upgrade through the whole program: the service serves its agent jar and reads that jar's version; a dry-run
 * agent that reports an older version is given one upgrade-agent step, answers it, starts again as the service's
 * version and registers; its host then passes compatible-agent and goes on to known. The events say it started and
 * finished. (A real agent replaces the jar its launcher fetched: UpgradeAgentExecutorTest.)
 */
class AgentUpgradeTest {
  @TempDir Path dir;

  @Test
  void anAgentOfAnotherVersionIsUpgradedToTheServicesAndItsHostGoesOn() throws Exception {
    try (Rendezvous system = TestSystem.start(dir, Map.of())) {
      Api api = new Api(system.config().apiPort(), Files.readString(system.adminTokenFile()).strip());
      String infraEnv = api.post("/infra-envs", Api.infraEnv("upgrade-pool", null)).json().getString("id");
      Vertx vertx = Vertx.vertx();
      AgentSwarm swarm = null;
      try {
        AgentConfig old = AgentConfig.parse(new String[] {"--url", "http://127.0.0.1:" + system.config().apiPort(),
            "--infra-env-id", infraEnv, "--dry-run", "--swarm", "1", "--agent-version", "0.0.9",
            "--backoff-cap-ms", "2000"}, Map.of("RDV_AGENT_TOKEN", CrashDuringInstallTest.agentToken(api, infraEnv)));
        swarm = AgentSwarm.start(vertx, old, 1);
        String hostId = AgentSwarm.memberHostId(infraEnv, 0);
        String hostPath = "/infra-envs/" + infraEnv + "/hosts/" + hostId;

        JsonObject host = Await.until("the host known with the service's agent", Duration.ofSeconds(60), () -> {
          Api.Reply r = api.get(hostPath);
          JsonObject h = r.status() == 200 ? r.json() : null;
          return h != null && AgentVersion.VERSION.equals(h.getString("discovery_agent_version"))
              && "known-unbound".equals(h.getString("status")) ? h : null;
        });
        JsonObject compatible = Api.validation(host, "compatible-agent");
        assertEquals("success", compatible.getString("status"), host.encodePrettily());
        assertEquals("Host agent is compatible with the service", compatible.getString("message"));

        String events = api.get("/events?host_id=" + hostId + "&infra_env_id=" + infraEnv).body();
        assertTrue(events.contains("the agent 0.0.9 is being upgraded to " + AgentVersion.VERSION), events);
        assertTrue(events.contains("the agent was upgraded to " + AgentVersion.VERSION + " and starts again as it"),
            events);
        JsonArray list = new JsonArray(events);
        long started = list.stream().map(JsonObject.class::cast)
            .filter(e -> "upgrade_agent_started".equals(e.getString("name"))).count();
        assertEquals(1, started, "one upgrade, one event: " + events);
      } finally {
        if (swarm != null) {
          swarm.stop().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        }
        vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      }
    }
  }
}
