package dev.rendezvous.app;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A host the service does not have gets upstream's 404 from the gateway of the whole program: one the user deleted,
 * and one that never registered; a registration lifts it. The gateway confirms its hosts against the hosts table every
 * second here ({@code gateway-host-recheck-seconds=1}; 30 s by default).
 */
class DeletedHostTest {
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @TempDir
  Path dataDir;

  private static HttpResponse<String> agentCall(int port, String method, String path, String token, String body)
      throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(20)).header("X-Secret-Key", token)
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      b.header("Content-Type", "application/json");
    }
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** The status of a GET, for polling conditions. */
  private static int getStatus(int port, String path, String token) {
    try {
      return agentCall(port, "GET", path, token, null).statusCode();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void deletedAndUnknownHostsAreAnswered404AndARegistrationLiftsIt() throws Exception {
    try (Rendezvous system = TestSystem.start(dataDir, Map.of("gateway-host-recheck-seconds", "1"))) {
      int port = system.config().apiPort();
      Api api = new Api(port, Files.readString(system.adminTokenFile()).strip());
      String clusterId = api.post("/clusters", Api.cluster("deleted-host")).json().getString("id");
      String infraEnvId = api.post("/infra-envs", Api.infraEnv("deleted-host-ie", clusterId)).json().getString("id");
      String token = system.agentToken(infraEnvId, clusterId);
      String hosts = Api.BASE + "/infra-envs/" + infraEnvId + "/hosts";
      String host = UUID.randomUUID().toString();
      String stranger = UUID.randomUUID().toString();
      String registration = new JsonObject().put("host_id", host).put("discovery_agent_version", "test").encode();

      assertEquals(201, agentCall(port, "POST", hosts, token, registration).statusCode());
      Await.until("the host's row", Duration.ofSeconds(20),
          () -> api.get("/infra-envs/" + infraEnvId + "/hosts/" + host).status() == 200);
      String poll = hosts + "/" + host + "/instructions?wait_seconds=0";
      String strangerPoll = hosts + "/" + stranger + "/instructions?wait_seconds=0";
      assertEquals(200, agentCall(port, "GET", poll, token, null).statusCode());
      assertEquals(200, agentCall(port, "GET", strangerPoll, token, null).statusCode(), "no verdict before a check");

      Await.until("a host never registered answered 404", Duration.ofSeconds(20),
          () -> getStatus(port, strangerPoll, token) == 404);
      assertEquals(200, agentCall(port, "GET", poll, token, null).statusCode(), "a registered host stays");

      assertEquals(204, api.delete("/infra-envs/" + infraEnvId + "/hosts/" + host).status());
      Await.until("the deleted host answered 404", Duration.ofSeconds(20),
          () -> getStatus(port, poll, token) == 404);
      HttpResponse<String> reply = agentCall(port, "POST", hosts + "/" + host + "/instructions", token,
          "{\"step_id\":\"inventory-0001\",\"step_type\":\"inventory\",\"exit_code\":0,\"output\":\"{}\"}");
      assertEquals(404, reply.statusCode(), reply.body());
      assertEquals("404", new JsonObject(reply.body()).getString("code"));

      // booted into discovery again, the host registers: it is a host again
      assertEquals(201, agentCall(port, "POST", hosts, token, registration).statusCode());
      assertEquals(200, agentCall(port, "GET", poll, token, null).statusCode());
      Await.until("the host's row again", Duration.ofSeconds(20),
          () -> api.get("/infra-envs/" + infraEnvId + "/hosts/" + host).status() == 200);

      // our own agent on a websocket: deleted, it is told (4404) and stops asking, as upstream's agent freezes
      String agentHost = UUID.randomUUID().toString();
      dev.rendezvous.agent.AgentConfig config = dev.rendezvous.agent.AgentConfig.parse(new String[] {
          "--url", "http://127.0.0.1:" + port, "--infra-env-id", infraEnvId, "--dry-run", "--host-id", agentHost,
          "--transport", "websocket"}, Map.of("RDV_AGENT_TOKEN", token));
      dev.rendezvous.agent.AgentRuntime runtime = dev.rendezvous.agent.AgentRuntime.create(system.vertx(), config, 1);
      try {
        dev.rendezvous.agent.transport.HostAgent agent = runtime.dryRunAgent(config);
        io.vertx.core.Future<Void> ended = agent.start();
        Await.until("the agent's host discovered", Duration.ofSeconds(30), () -> {
          Api.Reply r = api.get("/infra-envs/" + infraEnvId + "/hosts/" + agentHost);
          return r.status() == 200 && r.json().getString("inventory") != null;
        });
        assertEquals(true, agent.websocketOpen());
        assertEquals(204, api.delete("/infra-envs/" + infraEnvId + "/hosts/" + agentHost).status());
        Await.until("the agent frozen", Duration.ofSeconds(20), agent::frozen);
        assertEquals(false, agent.websocketOpen());
        Thread.sleep(1500);
        assertEquals(404, api.get("/infra-envs/" + infraEnvId + "/hosts/" + agentHost).status(),
            "the deletion holds: the agent did not register again");
        assertEquals(false, ended.isComplete(), "frozen, not ended");
      } finally {
        runtime.close();
      }
    }
  }

  @Test
  void agentsOfADeletedInfraEnvAreAnswered404AtRegistration() throws Exception {
    try (Rendezvous system = TestSystem.start(dataDir, Map.of())) {
      int port = system.config().apiPort();
      Api api = new Api(port, Files.readString(system.adminTokenFile()).strip());
      String clusterId = api.post("/clusters", Api.cluster("deleted-ie")).json().getString("id");
      String here = api.post("/infra-envs", Api.infraEnv("deleted-here", clusterId)).json().getString("id");
      String elsewhere = api.post("/infra-envs", Api.infraEnv("deleted-elsewhere", clusterId)).json().getString("id");
      String registration = new JsonObject().put("host_id", UUID.randomUUID().toString())
          .put("discovery_agent_version", "test").encode();
      String hereToken = system.agentToken(here, clusterId);
      String elsewhereToken = system.agentToken(elsewhere, clusterId);
      String elsewherePoll = Api.BASE + "/infra-envs/" + elsewhere + "/hosts/" + UUID.randomUUID()
          + "/instructions?wait_seconds=0";
      assertEquals(200, agentCall(port, "GET", elsewherePoll, elsewhereToken, null).statusCode(), "a live infra-env");

      // deleted through this instance's API: refused at once
      assertEquals(204, api.delete("/infra-envs/" + here).status());
      HttpResponse<String> refused = agentCall(port, "POST", Api.BASE + "/infra-envs/" + here + "/hosts", hereToken,
          registration);
      assertEquals(404, refused.statusCode(), refused.body());
      JsonObject error = new JsonObject(refused.body());
      assertEquals("404", error.getString("code"));
      assertEquals(404, error.getInteger("id"));
      assertEquals("Error", error.getString("kind"));
      assertEquals("", error.getString("href"));
      assertEquals("infra-env " + here + " not found", error.getString("reason"), refused.body());

      // deleted by another instance (its row gone under this one): refused once this instance has read the deletion
      system.pool().preparedQuery("DELETE FROM infra_envs WHERE id = $1")
          .execute(io.vertx.sqlclient.Tuple.of(UUID.fromString(elsewhere))).await(10, java.util.concurrent.TimeUnit.SECONDS);
      // (the poll's host never registered, so the host check would refuse it too, later: the reason tells them apart)
      Await.until("the other instance's deletion read", Duration.ofSeconds(30), () -> {
        try {
          HttpResponse<String> r = agentCall(port, "GET", elsewherePoll, elsewhereToken, null);
          return r.statusCode() == 404 && r.body().contains("infra-env " + elsewhere + " not found");
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      HttpResponse<String> again = agentCall(port, "POST", Api.BASE + "/infra-envs/" + elsewhere + "/hosts",
          elsewhereToken, registration);
      assertEquals(404, again.statusCode(), again.body());
      Thread.sleep(1000); // a registration the gateway had taken would be a row by now
      long rows = system.pool().preparedQuery("SELECT count(*) FROM hosts WHERE infra_env_id = ANY($1)")
          .execute(io.vertx.sqlclient.Tuple.of(new UUID[] {UUID.fromString(here), UUID.fromString(elsewhere)}))
          .await(10, java.util.concurrent.TimeUnit.SECONDS).iterator().next().getLong(0);
      assertEquals(0, rows, "no host landed in a deleted infra-env");
    }
  }
}
