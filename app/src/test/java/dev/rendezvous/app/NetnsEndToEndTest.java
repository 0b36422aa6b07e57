package dev.rendezvous.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.bus.BusConsumer;
import dev.rendezvous.bus.Topics;
import dev.rendezvous.bus.event.StepReplyReceived;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The proof of the discovery flow: the whole system on its embedded servers, a cluster and an
 * infra-env made through the API, and three real agents in three network namespaces on one bridge.
 * Skips, saying why, where network namespaces are unavailable (not root, no iproute2).
 */
class NetnsEndToEndTest {
  @TempDir Path dataDir;
  @TempDir Path logs;

  @Test
  void threeAgentsInNamespacesRegisterAndReportRealInventories() throws Exception {
    String why = NetnsAgents.unavailable();
    Assumptions.assumeTrue(why == null, () -> "skipped: " + why);
    try (Rendezvous system = TestSystem.start(dataDir, Map.of());
        NetnsAgents hosts = NetnsAgents.up(3, logs)) {
      Api api = new Api(system.config().apiPort(), Files.readString(system.adminTokenFile()).strip());
      String clusterId = api.post("/clusters", Api.cluster("netns").put("ssh_public_key", Api.SSH_KEY)).json().getString("id");
      String infraEnvId = api.post("/infra-envs", Api.infraEnv("netns-ie", clusterId)).json().getString("id");
      String token = system.agentToken(infraEnvId, clusterId);
      String[] ids = new String[4];

      Map<String, JsonObject> inventories = new ConcurrentHashMap<>();
      try (BusConsumer replies = BusConsumer.fanOut(system.kafkaBootstrap(), List.of(Topics.STEP_REPLIES),
          BusConsumer.StartFrom.EARLIEST, e -> {
            if (e.payload() instanceof StepReplyReceived r && "inventory".equals(r.stepType()) && r.exitCode() == 0) {
              inventories.put(e.hostId(), new JsonObject(r.output()));
            }
            return CompletableFuture.completedFuture(null);
          })) {
        for (int i = 1; i <= 3; i++) {
          ids[i] = UUID.randomUUID().toString();
          hosts.start(i, Integer.toString(system.config().apiPort()), infraEnvId, ids[i], token);
        }
        Await.until("three registered hosts", Duration.ofSeconds(90),
            () -> api.get("/clusters/" + clusterId + "/hosts").array().size() == 3);
        Await.until("three inventories from the agents", Duration.ofSeconds(90), () -> inventories.size() == 3);
      }
      for (int i = 1; i <= 3; i++) {
        JsonObject inventory = inventories.get(ids[i]);
        assertEquals("host-" + i, inventory.getString("hostname"));
        String address = hosts.address(i);
        assertTrue(inventory.getJsonArray("interfaces").stream()
            .anyMatch(n -> ((JsonObject) n).getJsonArray("ipv4_addresses", new JsonArray()).encode().contains(address + "/")),
            "host " + i + " reports its namespace address " + address + ": " + inventory.getJsonArray("interfaces"));
        assertTrue(inventory.getJsonObject("cpu").getInteger("count") > 0);
        assertTrue(inventory.getJsonObject("memory").getLong("physical_bytes") > 0);
      }
    }
  }

  private static JsonObject find(JsonArray hosts, String id) {
    return hosts.stream().map(JsonObject.class::cast).filter(h -> id.equals(h.getString("id"))).findFirst()
        .orElseThrow(() -> new AssertionError("host " + id + " not listed"));
  }
}
