package dev.rendezvous.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.bus.BusConsumer;
import dev.rendezvous.bus.BusEvent;
import dev.rendezvous.bus.Topics;
import dev.rendezvous.bus.event.StepReplyReceived;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The agent-facing path of the whole program: an infra-env's token registers a host at the gateway,
 * the service creates the row from the bus and plans steps, the gateway delivers them (long poll and
 * websocket), and a reply lands on the bus.
 */
class AgentPathTest {
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private final Rendezvous system = TestSystem.shared();
  private final Api api = TestSystem.admin();

  private HttpResponse<String> agentCall(String method, String path, String token, String body) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + system.config().apiPort() + path))
        .timeout(Duration.ofSeconds(40)).header("X-Secret-Key", token)
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      b.header("Content-Type", "application/json");
    }
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void theAgentJarIsServedForDiscoveryHosts() throws Exception {
    HttpResponse<byte[]> jar = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + system.config().apiPort()
        + "/api/rendezvous/v1/agent/rendezvous-agent.jar")).build(), HttpResponse.BodyHandlers.ofByteArray());
    if (java.nio.file.Files.exists(system.config().agentJar())) {
      assertEquals(200, jar.statusCode());
      assertEquals(java.nio.file.Files.size(system.config().agentJar()), jar.body().length);
      assertEquals('P', (char) jar.body()[0], "a zip (jar) file");
    } else {
      assertEquals(404, jar.statusCode());
    }
  }

  @Test
  void registerPollReplyAndWebsocketPush() throws Exception {
    String clusterId = api.post("/clusters", Api.cluster("agent-path")).json().getString("id");
    String infraEnvId = api.post("/infra-envs", Api.infraEnv("agent-path-ie", clusterId)).json().getString("id");
    String token = system.agentToken(infraEnvId, clusterId);
    String hostId = UUID.randomUUID().toString();
    String hosts = Api.BASE + "/infra-envs/" + infraEnvId + "/hosts";

    String otherInfraEnv = api.post("/infra-envs", Api.infraEnv("other-ie", null)).json().getString("id");
    assertEquals(403, agentCall("POST", Api.BASE + "/infra-envs/" + otherInfraEnv + "/hosts", token,
        new JsonObject().put("host_id", hostId).encode()).statusCode(), "a token works only for its own infra-env");

    HttpResponse<String> reg = agentCall("POST", hosts, token,
        new JsonObject().put("host_id", hostId).put("discovery_agent_version", "test-agent").encode());
    assertEquals(201, reg.statusCode(), reg.body());
    JsonObject runner = new JsonObject(reg.body()).getJsonObject("next_step_runner_command");
    assertEquals(infraEnvId, new JsonObject(runner.getJsonArray("args").getString(0)).getString("infra_env_id"));

    Await.until("host row from the registration", Duration.ofSeconds(20),
        () -> api.get("/infra-envs/" + infraEnvId + "/hosts/" + hostId).status() == 200);

    HttpResponse<String> poll = agentCall("GET", hosts + "/" + hostId + "/instructions?wait_seconds=20", token, null);
    assertEquals(200, poll.statusCode(), poll.body());
    JsonArray steps = new JsonObject(poll.body()).getJsonArray("instructions");
    assertEquals("inventory", steps.getJsonObject(0).getString("step_type"), poll.body());

    ConcurrentLinkedQueue<StepReplyReceived> replies = new ConcurrentLinkedQueue<>();
    try (BusConsumer reader = BusConsumer.fanOut(system.kafkaBootstrap(), List.of(Topics.STEP_REPLIES),
        BusConsumer.StartFrom.LATEST, e -> {
          if (hostId.equals(e.hostId()) && e.payload() instanceof StepReplyReceived r) {
            replies.add(r);
          }
          return CompletableFuture.completedFuture(null);
        })) {
      reader.started().get(30, TimeUnit.SECONDS);
      String stepId = steps.getJsonObject(0).getString("step_id");
      HttpResponse<String> reply = agentCall("POST", hosts + "/" + hostId + "/instructions", token,
          new JsonObject().put("step_type", "inventory").put("step_id", stepId).put("exit_code", 0)
              .put("output", "{\"hostname\":\"h1\"}").encode());
      assertEquals(204, reply.statusCode(), reply.body());
      StepReplyReceived got = Await.until("reply on the bus", Duration.ofSeconds(20), replies::peek);
      assertEquals(stepId, got.stepId());

      // Our websocket transport: hello/welcome, then a (re)connect makes the service plan again and push.
      LinkedBlockingQueue<JsonObject> frames = new LinkedBlockingQueue<>();
      WebSocket ws = HTTP.newWebSocketBuilder().header("X-Secret-Key", token)
          .buildAsync(URI.create("ws://127.0.0.1:" + system.config().apiPort()
              + "/api/rendezvous/v1/infra-envs/" + infraEnvId + "/hosts/" + hostId + "/ws"), new WebSocket.Listener() {
                StringBuilder text = new StringBuilder();

                @Override
                public CompletionStage<?> onText(WebSocket w, CharSequence data, boolean last) {
                  text.append(data);
                  if (last) {
                    frames.add(new JsonObject(text.toString()));
                    text = new StringBuilder();
                  }
                  w.request(1);
                  return null;
                }
              }).get(10, TimeUnit.SECONDS);
      ws.sendText(new JsonObject().put("type", "hello").put("versions", new JsonArray().add(1))
          .put("agent_version", "test").encode(), true).get(5, TimeUnit.SECONDS);
      JsonObject welcome = frames.poll(10, TimeUnit.SECONDS);
      assertEquals("welcome", welcome.getString("type"), String.valueOf(welcome));
      JsonObject pushed = null;
      for (int i = 0; i < 10 && pushed == null; i++) {
        JsonObject f = frames.poll(20, TimeUnit.SECONDS);
        if (f != null && "steps".equals(f.getString("type"))) {
          pushed = f;
        }
      }
      assertTrue(pushed != null, "steps were pushed on the websocket after the reconnect");
      assertEquals("inventory", pushed.getJsonObject("steps").getJsonArray("instructions").getJsonObject(0)
          .getString("step_type"));
      ws.sendClose(WebSocket.NORMAL_CLOSURE, "done").get(5, TimeUnit.SECONDS);
    }
  }
}
