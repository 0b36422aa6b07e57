package dev.rendezvous.agent.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rendezvous.agent.AgentConfig;
import dev.rendezvous.agent.AgentRuntime;
import dev.rendezvous.agent.AgentVersion;
import dev.rendezvous.agent.wire.Inventory;
import dev.rendezvous.agent.wire.PostStepAction;
import dev.rendezvous.agent.wire.Step;
import dev.rendezvous.agent.wire.StepReply;
import dev.rendezvous.agent.wire.Steps;
import dev.rendezvous.agent.wire.WireJson;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The agent's transport against {@link GatewayDouble} — a protocol double of docs/agent-protocol.md, to
 * be replaced by the real gateway in the end-to-end test. Dry-run executors keep the steps cheap.
 */
class HostAgentTest {
  static final String INFRA_ENV = "5f1a3c2e-7b9d-4e61-a0c4-2d8e6f1b9a70";
  static final String TOKEN = "test-token-of-infra-env";
  static final String HOST = "0b8a4c1e-2d3f-4a5b-8c6d-7e8f9a0b1c2d";

  Vertx vertx;
  GatewayDouble gateway;
  AgentRuntime runtime;
  final List<Future<Void>> agents = new ArrayList<>();

  @BeforeEach
  void setUp() throws Exception {
    vertx = Vertx.vertx();
    gateway = new GatewayDouble(vertx, INFRA_ENV, TOKEN).heartbeatSeconds(1).start();
  }

  @AfterEach
  void tearDown() throws Exception {
    if (runtime != null) {
      runtime.close();
    }
    gateway.close();
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  AgentConfig config(String transport, String token) {
    return AgentConfig.parse(new String[] {
        "--url", gateway.url(), "--infra-env-id", INFRA_ENV, "--dry-run", "--host-id", HOST, "--dry-run-index", "0",
        "--transport", transport, "--backoff-base-ms", "50", "--backoff-cap-ms", "400", "--long-poll-wait-seconds", "1"},
        Map.of("RDV_AGENT_TOKEN", token));
  }

  HostAgent startAgent(String transport) {
    return startAgent(config(transport, TOKEN));
  }

  HostAgent startAgent(AgentConfig config) {
    runtime = AgentRuntime.create(vertx, config, 1);
    HostAgent agent = runtime.dryRunAgent(config);
    agents.add(agent.start());
    return agent;
  }

  static Step step(String type, String id, String... args) {
    return new Step(type, id, List.of(args));
  }

  static Steps steps(Step... s) {
    return new Steps(0, PostStepAction.CONTINUE, List.of(s));
  }

  static StepReply reply(GatewayDouble g, String stepId) {
    return g.replies().stream().filter(r -> r.reply().stepId().equals(stepId)).map(GatewayDouble.Received::reply)
        .findFirst().orElseThrow();
  }

  static String transportOf(GatewayDouble g, String stepId) {
    return g.replies().stream().filter(r -> r.reply().stepId().equals(stepId)).map(GatewayDouble.Received::transport)
        .findFirst().orElseThrow();
  }

  @Test
  void registersThenRunsStepsOverTheWebsocketWithAcksAndHeartbeats() throws Exception {
    HostAgent agent = startAgent("auto");
    gateway.await("registration", 5000, g -> g.registrations().size() == 1);
    JsonNode reg = gateway.registrations().get(0);
    assertEquals(HOST, reg.path("host_id").asText());
    assertEquals(AgentVersion.VERSION, reg.path("discovery_agent_version").asText());
    Map<String, String> headers = gateway.registrationHeaders().get(0);
    assertEquals(TOKEN, headers.get("x-secret-key"));
    assertFalse(headers.getOrDefault("x-request-id", "").isEmpty());
    assertEquals(AgentVersion.VERSION, headers.get("discovery_agent_version"));

    gateway.await("websocket session", 5000, g -> g.connected(HOST));
    JsonNode hello = gateway.hellos().get(0);
    assertEquals(1, hello.path("versions").get(0).asInt());
    assertEquals(AgentVersion.VERSION, hello.path("agent_version").asText());

    gateway.queueSteps(HOST, steps(step("inventory", "inventory-0001", HOST), step("dhcp-lease-allocate", "dhcp-lease-allocate-0001", "{}")));
    gateway.await("two replies", 5000, g -> g.replies().size() == 2);
    StepReply inv = reply(gateway, "inventory-0001");
    assertEquals("ws", transportOf(gateway, "inventory-0001"));
    assertEquals(0, inv.exitCode());
    Inventory inventory = WireJson.read(inv.output(), Inventory.class);
    assertEquals("rdv-dry-0", inventory.hostname());
    assertEquals(8, inventory.cpu().count());
    StepReply unknown = reply(gateway, "dhcp-lease-allocate-0001");
    assertEquals(-1, unknown.exitCode());
    assertTrue(unknown.error().contains("'dhcp-lease-allocate' is not supported"), unknown.error());

    gateway.await("agent heartbeat", 4000, g -> g.heartbeatsFromAgents() >= 1);
    long deadline = System.currentTimeMillis() + 3000;
    while (runtime.stats().repliesDelivered.sum() < 2 && System.currentTimeMillis() < deadline) {
      Thread.sleep(20);
    }
    assertEquals(2, runtime.stats().repliesDelivered.sum(), "both replies acked");
    assertTrue(runtime.stats().heartbeatsReceived.sum() >= 1, "gateway heartbeats seen");
    assertTrue(agent.websocketOpen());
    assertEquals(0, gateway.polls(), "no HTTP polling while the websocket is up");
  }

  @Test
  void sendsStepRepliesAsBinaryMessagesWhenWelcomedWithVersionTwo() throws Exception {
    gateway.welcomeVersion(2);
    startAgent("websocket");
    gateway.await("websocket session", 5000, g -> g.connected(HOST));
    assertEquals(List.of(1, 2), WireJson.MAPPER.convertValue(gateway.hellos().get(0).path("versions"),
        WireJson.MAPPER.getTypeFactory().constructCollectionType(List.class, Integer.class)));
    gateway.queueSteps(HOST, steps(step("inventory", "inventory-0002", HOST), step("dhcp-lease-allocate", "dhcp-lease-allocate-0002", "{}")));
    gateway.await("two replies", 5000, g -> g.replies().size() == 2);
    assertEquals("ws-binary", transportOf(gateway, "inventory-0002"), "the output after the header, not inside it");
    assertEquals("rdv-dry-0", WireJson.read(reply(gateway, "inventory-0002").output(), Inventory.class).hostname());
    StepReply unknown = reply(gateway, "dhcp-lease-allocate-0002");
    assertEquals(-1, unknown.exitCode());
    assertTrue(unknown.error().contains("'dhcp-lease-allocate' is not supported"), unknown.error());
    long deadline = System.currentTimeMillis() + 3000;
    while (runtime.stats().repliesDelivered.sum() < 2 && System.currentTimeMillis() < deadline) {
      Thread.sleep(20);
    }
    assertEquals(2, runtime.stats().repliesDelivered.sum(), "both replies acked");
  }

  @Test
  void answersAnUnknownMessageTypeWithAnErrorAndKeepsTheConnection() throws Exception {
    startAgent("websocket");
    gateway.await("websocket session", 5000, g -> g.connected(HOST));
    gateway.sendRaw(HOST, "{\"type\":\"surprise\",\"payload\":42}");
    gateway.await("error from agent", 3000, g -> g.agentErrors().size() == 1);
    JsonNode err = gateway.agentErrors().get(0);
    assertEquals("unknown-type", err.path("code").asText());
    assertTrue(err.path("reason").asText().contains("surprise"));

    gateway.queueSteps(HOST, steps(step("inventory", "inventory-0002", HOST)));
    gateway.await("reply on the same connection", 3000, g -> g.replies().size() == 1);
    assertEquals(1, gateway.websocketUpgrades(), "no reconnect");
  }

  @Test
  void fallsBackToHttpLongPollWhenTheUpgradeIsRefusedAndDropsDuplicateReplies() throws Exception {
    gateway.webSocketMode(GatewayDouble.WebSocketMode.REFUSE_404);
    HostAgent agent = startAgent("auto");
    gateway.await("a poll", 5000, g -> g.polls() >= 1);
    assertEquals(1, gateway.refusedUpgrades());
    assertTrue(agent.polling());

    gateway.queueSteps(HOST, steps(step("inventory", "inventory-0003", HOST)));
    gateway.await("inventory reply", 5000, g -> g.replies().size() == 1);
    assertEquals("http", transportOf(gateway, "inventory-0003"));

    // same inventory again (new step id) plus an ntp step: only the ntp reply goes out (upstream's de-duplication)
    gateway.queueSteps(HOST, steps(step("inventory", "inventory-0004", HOST),
        step("ntp-synchronizer", "ntp-synchronizer-0001", "{\"ntp_source\":\"192.0.2.123\"}")));
    gateway.await("ntp reply", 5000, g -> g.replies().size() == 2);
    assertEquals("ntp-synchronizer-0001", gateway.replies().get(1).reply().stepId());
    Thread.sleep(300);
    assertEquals(2, gateway.replies().size(), "duplicate inventory not re-sent");
    assertEquals(1, runtime.stats().repliesDeduplicated.sum());
  }

  @Test
  void fallsBackToHttpWhenTheUpgradeAnswers426() throws Exception {
    gateway.webSocketMode(GatewayDouble.WebSocketMode.REFUSE_426);
    startAgent("auto");
    gateway.await("a poll after 426", 5000, g -> g.polls() >= 1 && g.refusedUpgrades() == 1);
  }

  @Test
  void fallsBackToHttpWhenNoProtocolVersionIsShared() throws Exception {
    gateway.webSocketMode(GatewayDouble.WebSocketMode.UNSUPPORTED_VERSION);
    startAgent("auto");
    gateway.await("hello then a poll", 5000, g -> g.hellos().size() == 1 && g.polls() >= 1);
    assertEquals(1, runtime.stats().httpFallbacks.sum());
  }

  @Test
  void forcedWebsocketModeNeverPolls() throws Exception {
    gateway.webSocketMode(GatewayDouble.WebSocketMode.REFUSE_404);
    startAgent("websocket");
    gateway.await("three refused upgrades", 5000, g -> g.refusedUpgrades() >= 3);
    assertEquals(0, gateway.polls());
  }

  @Test
  void reconnectsAfterTheGatewayDropsTheConnection() throws Exception {
    startAgent("auto");
    gateway.await("websocket session", 5000, g -> g.connected(HOST));
    gateway.dropConnections();
    gateway.await("second hello", 5000, g -> g.hellos().size() == 2 && g.connected(HOST));
    assertTrue(runtime.stats().reconnects.sum() >= 1);
    gateway.queueSteps(HOST, steps(step("inventory", "inventory-0005", HOST)));
    gateway.await("reply after reconnect", 3000, g -> g.replies().size() == 1);
  }

  /**
   * A service that is down (restarting, upgraded) refuses connections for a while: that is no reason to give up the
   * websocket for HTTP polling (which once left agents polling every minute, after a rolling upgrade, for minutes).
   */
  @Test
  void aGatewayThatIsDownForAWhileGetsItsWebsocketBackNotPolls() throws Exception {
    startAgent("auto");
    gateway.await("websocket session", 5000, g -> g.connected(HOST));
    gateway.stopListening();
    Thread.sleep(1000); // several attempts meet a closed port
    gateway.listenAgain();
    gateway.await("back on the websocket", 5000, g -> g.hellos().size() == 2 && g.connected(HOST));
    assertEquals(0, gateway.polls());
    assertEquals(0, runtime.stats().httpFallbacks.sum());
  }

  @Test
  void closesAndReconnectsWhenTheGatewayGoesSilentForTwoHeartbeats() throws Exception {
    startAgent("auto");
    gateway.await("websocket session", 5000, g -> g.connected(HOST));
    gateway.goSilent(true);
    gateway.await("reconnect after silence", 6000, g -> g.hellos().size() >= 2);
  }

  @Test
  void resendsAReplyTheBusCouldNotTake() throws Exception {
    startAgent("auto");
    gateway.await("websocket session", 5000, g -> g.connected(HOST));
    gateway.busUnavailableFor(1);
    gateway.queueSteps(HOST, steps(step("inventory", "inventory-0006", HOST)));
    gateway.await("reply accepted after retry", 5000, g -> g.replies().size() == 1);
    assertTrue(runtime.stats().repliesResent.sum() >= 1);
  }

  @Test
  void sendsAReplyLargerThanMaxFrameBytesOverHttp() throws Exception {
    gateway.maxFrameBytes(500);
    startAgent("auto");
    gateway.await("websocket session", 5000, g -> g.connected(HOST));
    gateway.queueSteps(HOST, steps(step("inventory", "inventory-0007", HOST),
        step("stop-installation", "stop-installation-0001")));
    gateway.await("both replies", 5000, g -> g.replies().size() == 2);
    assertEquals("http", transportOf(gateway, "inventory-0007"), "inventory JSON exceeds 500 bytes");
    assertEquals("ws", transportOf(gateway, "stop-installation-0001"));
  }

  @Test
  void retriesAnHttpReplyAnswered503AfterRetryAfter() throws Exception {
    startAgent("http");
    gateway.await("a poll", 5000, g -> g.polls() >= 1);
    gateway.http503For(1);
    gateway.queueSteps(HOST, steps(step("inventory", "inventory-0008", HOST)));
    gateway.await("reply after 503", 5000, g -> g.replies().size() == 1);
    assertTrue(runtime.stats().repliesResent.sum() >= 1);
  }

  @Test
  void stopsAskingWhenAPollAnswers404AsUpstreamsAgentFreezes() throws Exception {
    HostAgent agent = startAgent("http");
    gateway.await("a poll", 5000, g -> g.polls() >= 1);
    gateway.forgetHosts(); // as a deleted host: the next poll answers 404
    long deadline = System.currentTimeMillis() + 5000;
    while (!agent.frozen() && System.currentTimeMillis() < deadline) {
      Thread.sleep(20);
    }
    assertTrue(agent.frozen(), "a 404 for its host freezes the agent");
    int polls = gateway.polls();
    Thread.sleep(2500); // long polls of 1 s, back-off from 100 ms: several would have come
    assertEquals(polls, gateway.polls(), "no poll after the 404");
    assertEquals(1, gateway.registrations().size(), "the deleted host does not register again");
    assertFalse(agents.get(0).isComplete(), "frozen, not ended");
    agent.stop().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
  }

  @Test
  void stopsAskingWhenTheWebsocketIsClosedAsHostUnknown() throws Exception {
    HostAgent agent = startAgent("websocket");
    gateway.await("websocket session", 5000, g -> g.connected(HOST));
    int upgrades = gateway.websocketUpgrades();
    gateway.closeSocket(HOST, (short) 4404, "host not found");
    long deadline = System.currentTimeMillis() + 5000;
    while (!agent.frozen() && System.currentTimeMillis() < deadline) {
      Thread.sleep(20);
    }
    assertTrue(agent.frozen(), "close code 4404 freezes the agent");
    Thread.sleep(1500);
    assertEquals(upgrades, gateway.websocketUpgrades(), "no reconnect after host-unknown");
    assertEquals(1, gateway.registrations().size());
  }

  @Test
  void stopsAskingWhenItsInfraEnvWasDeleted() throws Exception {
    gateway.deleteInfraEnv(); // registration answers 404, as for an infra-env the user deleted
    HostAgent agent = startAgent("auto");
    long deadline = System.currentTimeMillis() + 5000;
    while (!agent.frozen() && System.currentTimeMillis() < deadline) {
      Thread.sleep(20);
    }
    assertTrue(agent.frozen(), "a 404 at registration freezes the agent");
    int refused = gateway.refusedRequests();
    Thread.sleep(1500); // registration back-off 50–400 ms: several attempts would have come
    assertEquals(refused, gateway.refusedRequests(), "nothing asked after the 404");
    assertEquals(1, refused);
    assertFalse(agents.get(0).isComplete(), "frozen, not ended");
  }

  @Test
  void keepsAskingWhenA404IsNotTheServices() throws Exception {
    gateway.proxyNotFound(); // an HTML 404 from something in between: not a verdict on the infra-env
    startAgent("auto");
    long deadline = System.currentTimeMillis() + 5000;
    while (gateway.refusedRequests() < 3 && System.currentTimeMillis() < deadline) {
      Thread.sleep(20);
    }
    assertTrue(gateway.refusedRequests() >= 3, "registration asked again");
    assertFalse(agents.get(0).isComplete());
  }

  @Test
  void keepsRetryingRegistrationWithBackoffWhenTheTokenIsRefused() throws Exception {
    startAgent(config("auto", "wrong-token"));
    long deadline = System.currentTimeMillis() + 5000;
    while (runtime.stats().registrationFailures.sum() < 3 && System.currentTimeMillis() < deadline) {
      Thread.sleep(20);
    }
    assertTrue(runtime.stats().registrationFailures.sum() >= 3);
    assertEquals(0, gateway.registrations().size());
  }

  @Test
  void endsOnPostStepActionExitOverWebsocketAndOverHttp() throws Exception {
    startAgent("auto");
    gateway.await("websocket session", 5000, g -> g.connected(HOST));
    gateway.queueSteps(HOST, new Steps(0, PostStepAction.EXIT, List.of()));
    agents.get(0).toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);

    runtime.close();
    String host2 = "1c9b5d2f-3e40-4b6c-9d7e-8f9a0b1c2d3e";
    AgentConfig http = AgentConfig.parse(new String[] {"--url", gateway.url(), "--infra-env-id", INFRA_ENV,
        "--dry-run", "--host-id", host2, "--transport", "http", "--long-poll-wait-seconds", "1"},
        Map.of("RDV_AGENT_TOKEN", TOKEN));
    startAgent(http);
    gateway.await("poll of host 2", 5000, g -> g.polls() >= 1);
    gateway.queueSteps(host2, new Steps(0, PostStepAction.EXIT, List.of()));
    agents.get(1).toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
  }

  @Test
  void uploadsTheLogsBundleAsMultipartUpfile() throws Exception {
    startAgent("auto");
    gateway.await("websocket session", 5000, g -> g.connected(HOST));
    String cluster = "7d3e1f20-9a8b-4c5d-8e6f-a1b2c3d4e5f6";
    gateway.queueSteps(HOST, steps(step("logs-gather", "logs-gather-0001",
        "{\"cluster_id\":\"" + cluster + "\",\"infra_env_id\":\"" + INFRA_ENV + "\",\"host_id\":\"" + HOST
            + "\",\"bootstrap\":false,\"installer_gather\":true}")));
    gateway.await("logs reply", 5000, g -> g.replies().size() == 1 && g.uploads().size() == 1);
    assertEquals(0, reply(gateway, "logs-gather-0001").exitCode());
    GatewayDouble.Upload up = gateway.uploads().get(0);
    assertEquals(cluster, up.clusterId());
    assertEquals("upfile", up.fieldName());
    assertEquals("host", up.query().get("logs_type"));
    assertEquals(HOST, up.query().get("host_id"));
    assertEquals(INFRA_ENV, up.query().get("infra_env_id"));
    String text = new String(new GZIPInputStream(new ByteArrayInputStream(up.data())).readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(text.contains(HOST));
  }
}
