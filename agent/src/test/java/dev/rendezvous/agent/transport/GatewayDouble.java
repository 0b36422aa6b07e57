package dev.rendezvous.agent.transport;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rendezvous.agent.wire.StepReply;
import dev.rendezvous.agent.wire.Steps;
import dev.rendezvous.agent.wire.WireJson;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.ServerWebSocket;
import io.vertx.core.http.ServerWebSocketHandshake;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * PROTOCOL DOUBLE — the server side of docs/agent-protocol.md, written in test code because the real
 * gateway does not exist yet. It is NOT the gateway: no bus, no database, no service. It implements
 * just enough to test the agent's transport (registration, long poll, websocket hello/welcome/steps/
 * ack/heartbeat/error, a refused upgrade, dropped connections, bus-unavailable, 503 Retry-After, logs
 * upload). The lead replaces it with the real gateway in the end-to-end test.
 *
 * <p>State is guarded by {@code this}; tests read it from their own thread with {@link #await}.
 */
public final class GatewayDouble implements AutoCloseable {
  public enum WebSocketMode { ACCEPT, REFUSE_404, REFUSE_426, UNSUPPORTED_VERSION }

  private static final String API = "/api/assisted-install/v2";
  private static final Pattern REGISTER = Pattern.compile(API + "/infra-envs/([^/]+)/hosts");
  private static final Pattern INSTRUCTIONS = Pattern.compile(API + "/infra-envs/([^/]+)/hosts/([^/]+)/instructions");
  private static final Pattern LOGS_PROGRESS = Pattern.compile(API + "/infra-envs/([^/]+)/hosts/([^/]+)/logs-progress");
  private static final Pattern LOGS = Pattern.compile(API + "/clusters/([^/]+)/logs");
  private static final Pattern WS = Pattern.compile("/api/rendezvous/v1/infra-envs/([^/]+)/hosts/([^/]+)/ws");

  /** A reply as received, with the transport that carried it. */
  public record Received(String hostId, String transport, StepReply reply) {}

  /** A logs upload as received. */
  public record Upload(String clusterId, Map<String, String> query, String fieldName, String fileName, byte[] data) {}

  private final Vertx vertx;
  private final String infraEnvId;
  private final String token;
  private HttpServer server;
  private volatile WebSocketMode webSocketMode = WebSocketMode.ACCEPT;
  private volatile int heartbeatSeconds = 15;
  private volatile long maxFrameBytes = 4 * 1024 * 1024;

  // state (guarded by this)
  private final Set<String> registered = new HashSet<>();
  private boolean infraEnvDeleted;
  private boolean proxyPage;
  private int refusedRequests;
  private final List<JsonNode> registrations = new ArrayList<>();
  private final List<Map<String, String>> registrationHeaders = new ArrayList<>();
  private final Map<String, ArrayDeque<Steps>> pending = new HashMap<>();
  private final Map<String, HttpServerRequest> parkedPolls = new HashMap<>();
  private final Map<String, ServerWebSocket> sockets = new HashMap<>();
  private final List<Received> replies = new ArrayList<>();
  private final List<JsonNode> hellos = new ArrayList<>();
  private final List<JsonNode> agentErrors = new ArrayList<>();
  private final List<Upload> uploads = new ArrayList<>();
  private final List<String> logsStates = new ArrayList<>();
  private int polls;
  private int heartbeatsFromAgents;
  private int websocketUpgrades;
  private int refusedUpgrades;
  private int busUnavailableRemaining;
  private int http503Remaining;
  private boolean silent;

  public GatewayDouble(Vertx vertx, String infraEnvId, String token) {
    this.vertx = vertx;
    this.infraEnvId = infraEnvId;
    this.token = token;
  }

  public GatewayDouble start() throws Exception {
    server = vertx.createHttpServer()
        .requestHandler(this::onRequest)
        .webSocketHandshakeHandler(this::onHandshake)
        .webSocketHandler(this::onWebSocket);
    server.listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    return this;
  }

  private int port;

  public int port() {
    return port > 0 ? port : server.actualPort();
  }

  /** Goes away as a stopped or restarting service does: its port refuses connections until {@link #listenAgain}. */
  public void stopListening() throws Exception {
    port = server.actualPort();
    dropConnections();
    server.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  /** Back on the same port. */
  public void listenAgain() throws Exception {
    server = vertx.createHttpServer()
        .requestHandler(this::onRequest)
        .webSocketHandshakeHandler(this::onHandshake)
        .webSocketHandler(this::onWebSocket);
    server.listen(port, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  public String url() {
    return "http://127.0.0.1:" + port();
  }

  @Override
  public void close() throws Exception {
    server.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  // ------------------------------------------------------------------ knobs

  public GatewayDouble webSocketMode(WebSocketMode mode) {
    this.webSocketMode = mode;
    return this;
  }

  private volatile int welcomeVersion = 1;

  /** The protocol version to welcome agents that speak it with (2: step replies may come as binary messages). */
  public GatewayDouble welcomeVersion(int v) {
    this.welcomeVersion = v;
    return this;
  }

  public GatewayDouble heartbeatSeconds(int s) {
    this.heartbeatSeconds = s;
    return this;
  }

  public GatewayDouble maxFrameBytes(long b) {
    this.maxFrameBytes = b;
    return this;
  }

  /** The next {@code n} websocket step replies are answered bus-unavailable (retryable). */
  public synchronized void busUnavailableFor(int n) {
    busUnavailableRemaining = n;
  }

  /** The next {@code n} HTTP step replies are answered 503 with Retry-After: 1. */
  public synchronized void http503For(int n) {
    http503Remaining = n;
  }

  /** Stop sending anything on websockets (no heartbeats, no acks) to test the agent's idle timeout. */
  public synchronized void goSilent(boolean s) {
    silent = s;
  }

  /** Forgets every host, as a gateway that lost its state: polls answer 404 until re-registration. */
  public synchronized void forgetHosts() {
    registered.clear();
  }

  /** As for an infra-env the user deleted: registrations (and everything else of its agents) answer 404. */
  public synchronized void deleteInfraEnv() {
    registered.clear();
    infraEnvDeleted = true;
  }

  /** As a proxy in front of a gateway that is not there: every request answers 404 with an HTML page. */
  public synchronized void proxyNotFound() {
    registered.clear();
    infraEnvDeleted = true;
    proxyPage = true;
  }

  // ------------------------------------------------------------------ driving the agent

  /** Queues steps for a host: pushed at once on its websocket, or answered to its (parked) poll. */
  public void queueSteps(String hostId, Steps steps) {
    vertx.runOnContext(v -> {
      synchronized (this) {
        ServerWebSocket ws = sockets.get(hostId);
        if (ws != null && !ws.isClosed()) {
          ws.writeTextMessage(stepsMessage(steps));
          return;
        }
        HttpServerRequest poll = parkedPolls.remove(hostId);
        if (poll != null) {
          answerSteps(poll, steps);
          return;
        }
        pending.computeIfAbsent(hostId, k -> new ArrayDeque<>()).add(steps);
      }
    });
  }

  /** Sends a raw text frame to a host's websocket. */
  public void sendRaw(String hostId, String text) {
    vertx.runOnContext(v -> {
      synchronized (this) {
        ServerWebSocket ws = sockets.get(hostId);
        if (ws != null) {
          ws.writeTextMessage(text);
        }
      }
    });
  }

  /** Closes a host's websocket with {@code code}, as the real gateway does (4404) for a host the service lost. */
  public void closeSocket(String hostId, short code, String reason) {
    vertx.runOnContext(v -> {
      synchronized (this) {
        ServerWebSocket ws = sockets.remove(hostId);
        if (ws != null) {
          ws.close(code, reason);
        }
      }
    });
  }

  /** Drops every websocket without a close handshake, as a crashed gateway instance. */
  public void dropConnections() {
    vertx.runOnContext(v -> {
      synchronized (this) {
        for (ServerWebSocket ws : sockets.values()) {
          ws.close((short) 1011, "gateway restarting");
        }
        sockets.clear();
      }
    });
  }

  // ------------------------------------------------------------------ observing

  public synchronized List<JsonNode> registrations() {
    return List.copyOf(registrations);
  }

  public synchronized List<Map<String, String>> registrationHeaders() {
    return List.copyOf(registrationHeaders);
  }

  public synchronized List<Received> replies() {
    return List.copyOf(replies);
  }

  public synchronized List<JsonNode> hellos() {
    return List.copyOf(hellos);
  }

  public synchronized List<JsonNode> agentErrors() {
    return List.copyOf(agentErrors);
  }

  public synchronized List<Upload> uploads() {
    return List.copyOf(uploads);
  }

  public synchronized List<String> logsStates() {
    return List.copyOf(logsStates);
  }

  /** Requests answered 404 since {@link #deleteInfraEnv}. */
  public synchronized int refusedRequests() {
    return refusedRequests;
  }

  public synchronized int polls() {
    return polls;
  }

  public synchronized int heartbeatsFromAgents() {
    return heartbeatsFromAgents;
  }

  public synchronized int websocketUpgrades() {
    return websocketUpgrades;
  }

  public synchronized int refusedUpgrades() {
    return refusedUpgrades;
  }

  public synchronized boolean connected(String hostId) {
    ServerWebSocket ws = sockets.get(hostId);
    return ws != null && !ws.isClosed();
  }

  /** Waits (on the test thread) until {@code condition} holds on this double, or fails after {@code ms}. */
  public void await(String what, long ms, Predicate<GatewayDouble> condition) throws InterruptedException {
    long end = System.currentTimeMillis() + ms;
    while (System.currentTimeMillis() < end) {
      if (condition.test(this)) {
        return;
      }
      Thread.sleep(20);
    }
    throw new AssertionError("timed out after " + ms + " ms waiting for: " + what + "; replies=" + replies()
        + " registrations=" + registrations().size() + " hellos=" + hellos().size() + " polls=" + polls());
  }

  // ------------------------------------------------------------------ HTTP side

  private void onRequest(HttpServerRequest req) {
    String path = req.path();
    String key = req.getHeader("X-Secret-Key");
    if (key == null || !key.equals(token)) {
      error(req, 401, "missing or invalid X-Secret-Key");
      return;
    }
    synchronized (this) {
      if (infraEnvDeleted) {
        refusedRequests++;
        if (proxyPage) {
          req.response().setStatusCode(404).putHeader("Content-Type", "text/html").end("<html>Not Found</html>");
        } else {
          error(req, 404, "infra-env " + infraEnvId + " not found");
        }
        return;
      }
    }
    Matcher m;
    if ((m = REGISTER.matcher(path)).matches() && req.method().name().equals("POST")) {
      if (!m.group(1).equals(infraEnvId)) {
        error(req, 403, "token is not for infra-env " + m.group(1));
        return;
      }
      Map<String, String> headers = new HashMap<>();
      req.headers().forEach(e -> headers.put(e.getKey().toLowerCase(), e.getValue()));
      req.body().onSuccess(b -> register(req, b, headers));
    } else if ((m = INSTRUCTIONS.matcher(path)).matches()) {
      String hostId = m.group(2);
      synchronized (this) {
        if (!registered.contains(hostId)) {
          error(req, 404, "host " + hostId + " is not registered");
          return;
        }
      }
      if (req.method().name().equals("GET")) {
        poll(req, hostId);
      } else {
        req.body().onSuccess(b -> httpReply(req, hostId, b));
      }
    } else if ((m = LOGS_PROGRESS.matcher(path)).matches()) {
      req.body().onSuccess(b -> {
        synchronized (this) {
          logsStates.add(WireJson.read(b.toString(), JsonNode.class).path("logs_state").asText());
        }
        req.response().setStatusCode(204).end();
      });
    } else if ((m = LOGS.matcher(path)).matches() && req.method().name().equals("POST")) {
      String clusterId = m.group(1);
      Map<String, String> query = new HashMap<>();
      req.params().forEach(e -> query.put(e.getKey(), e.getValue()));
      req.setExpectMultipart(true);
      req.uploadHandler(up -> {
        Buffer data = Buffer.buffer();
        up.handler(data::appendBuffer);
        up.endHandler(v -> {
          synchronized (this) {
            uploads.add(new Upload(clusterId, query, up.name(), up.filename(), data.getBytes()));
          }
        });
      });
      req.endHandler(v -> req.response().setStatusCode(204).end());
    } else {
      error(req, 404, "no route for " + req.method() + " " + path);
    }
  }

  private void register(HttpServerRequest req, Buffer body, Map<String, String> headers) {
    JsonNode params;
    try {
      params = WireJson.read(body.toString(), JsonNode.class);
    } catch (IllegalArgumentException e) {
      error(req, 400, "body: " + e.getMessage());
      return;
    }
    String hostId = params.path("host_id").asText("");
    if (hostId.isEmpty()) {
      error(req, 400, "host_id: required");
      return;
    }
    synchronized (this) {
      registered.add(hostId);
      registrations.add(params);
      registrationHeaders.add(headers);
    }
    ObjectNode host = WireJson.MAPPER.createObjectNode();
    host.put("kind", "Host").put("id", hostId).put("infra_env_id", infraEnvId).put("status", "discovering");
    ObjectNode cmd = host.putObject("next_step_runner_command");
    cmd.put("command", "").put("retry_seconds", 0);
    cmd.putArray("args").add("{\"infra_env_id\":\"" + infraEnvId + "\",\"host_id\":\"" + hostId
        + "\",\"agent_version\":\"" + params.path("discovery_agent_version").asText() + "\"}");
    req.response().setStatusCode(201).putHeader("Content-Type", "application/json").end(host.toString());
  }

  private void poll(HttpServerRequest req, String hostId) {
    int wait = Math.min(60, Integer.parseInt(req.getParam("wait_seconds", "30")));
    synchronized (this) {
      polls++;
      ArrayDeque<Steps> q = pending.get(hostId);
      if (q != null && !q.isEmpty()) {
        answerSteps(req, q.poll());
        return;
      }
      parkedPolls.put(hostId, req);
    }
    vertx.setTimer(Math.max(1, wait) * 1000L, t -> {
      synchronized (this) {
        if (parkedPolls.remove(hostId, req)) {
          answerSteps(req, new Steps(0, null, List.of()));
        }
      }
    });
  }

  private void answerSteps(HttpServerRequest req, Steps steps) {
    req.response().setStatusCode(200).putHeader("Content-Type", "application/json").end(WireJson.write(steps));
  }

  private void httpReply(HttpServerRequest req, String hostId, Buffer body) {
    StepReply reply;
    try {
      reply = WireJson.read(body.toString(), StepReply.class);
    } catch (IllegalArgumentException e) {
      error(req, 400, "body: " + e.getMessage());
      return;
    }
    synchronized (this) {
      if (http503Remaining > 0) {
        http503Remaining--;
        req.response().setStatusCode(503).putHeader("Retry-After", "1").putHeader("Content-Type", "application/json")
            .end("{\"code\":\"503\",\"href\":\"\",\"id\":503,\"kind\":\"Error\",\"reason\":\"bus unavailable\"}");
        return;
      }
      replies.add(new Received(hostId, "http", reply));
    }
    req.response().setStatusCode(204).end();
  }

  private static void error(HttpServerRequest req, int status, String reason) {
    req.response().setStatusCode(status).putHeader("Content-Type", "application/json")
        .end("{\"code\":\"" + status + "\",\"href\":\"\",\"id\":" + status + ",\"kind\":\"Error\",\"reason\":\""
            + reason.replace("\"", "'") + "\"}");
  }

  // ------------------------------------------------------------------ websocket side

  private void onHandshake(ServerWebSocketHandshake hs) {
    Matcher m = WS.matcher(hs.path());
    String key = hs.headers().get("X-Secret-Key");
    synchronized (this) {
      if (webSocketMode == WebSocketMode.REFUSE_404 || !m.matches()) {
        refusedUpgrades++;
        hs.reject(404);
        return;
      }
      if (webSocketMode == WebSocketMode.REFUSE_426) {
        refusedUpgrades++;
        hs.reject(426);
        return;
      }
      if (key == null || !key.equals(token)) {
        hs.reject(401);
        return;
      }
      if (!registered.contains(m.group(2))) {
        hs.reject(404);
        return;
      }
      websocketUpgrades++;
    }
    hs.accept();
  }

  private void onWebSocket(ServerWebSocket ws) {
    Matcher m = WS.matcher(ws.path());
    if (!m.matches()) {
      ws.close();
      return;
    }
    String hostId = m.group(2);
    boolean[] welcomed = {false};
    boolean[] binary = {false};
    long[] seq = {0};
    long hb = vertx.setPeriodic(heartbeatSeconds * 1000L, t -> {
      synchronized (this) {
        if (welcomed[0] && !silent && !ws.isClosed()) {
          ws.writeTextMessage("{\"type\":\"heartbeat\",\"seq\":" + (++seq[0]) + "}");
        }
      }
    });
    ws.closeHandler(v -> {
      vertx.cancelTimer(hb);
      synchronized (this) {
        sockets.remove(hostId, ws);
      }
    });
    // version 2: a step reply as [header length][header JSON][output bytes]
    ws.binaryMessageHandler(buf -> {
      synchronized (this) {
        if (!binary[0]) {
          ws.writeTextMessage("{\"type\":\"error\",\"code\":\"malformed\",\"reason\":\"binary frames are not accepted\","
              + "\"retryable\":false}");
          return;
        }
        byte[] b = buf.getBytes();
        int len = java.nio.ByteBuffer.wrap(b, 0, 4).getInt();
        JsonNode head = WireJson.read(new String(b, 4, len, java.nio.charset.StandardCharsets.UTF_8), JsonNode.class);
        JsonNode r = head.path("reply");
        StepReply reply = new StepReply(r.path("step_type").asText(), r.path("step_id").asText(),
            r.path("exit_code").asInt(), new String(b, 4 + len, b.length - 4 - len, java.nio.charset.StandardCharsets.UTF_8),
            r.path("error").asText());
        replies.add(new Received(hostId, r.has("output") ? "ws-binary-with-output-in-header" : "ws-binary", reply));
        ws.writeTextMessage("{\"type\":\"ack\",\"step_id\":\"" + reply.stepId() + "\"}");
      }
    });
    ws.textMessageHandler(text -> {
      JsonNode msg;
      try {
        msg = WireJson.read(text, JsonNode.class);
      } catch (IllegalArgumentException e) {
        ws.writeTextMessage("{\"type\":\"error\",\"code\":\"invalid-message\",\"reason\":\"not JSON\",\"retryable\":false}");
        return;
      }
      String type = msg.path("type").asText();
      synchronized (this) {
        if (!welcomed[0]) {
          if (!type.equals("hello")) {
            ws.writeTextMessage("{\"type\":\"error\",\"code\":\"hello-required\",\"reason\":\"send hello first\",\"retryable\":false}");
            return;
          }
          hellos.add(msg);
          boolean speaksV1 = false;
          boolean speaksV2 = false;
          for (JsonNode v : msg.path("versions")) {
            speaksV1 |= v.asInt() == 1;
            speaksV2 |= v.asInt() == 2;
          }
          int agreed = speaksV2 && welcomeVersion >= 2 ? 2 : 1;
          binary[0] = agreed >= 2;
          if (!speaksV1 || webSocketMode == WebSocketMode.UNSUPPORTED_VERSION) {
            ws.writeTextMessage("{\"type\":\"error\",\"code\":\"unsupported-version\",\"reason\":\"no common version\","
                + "\"retryable\":false,\"supported\":[" + (webSocketMode == WebSocketMode.UNSUPPORTED_VERSION ? 99 : 1) + "]}");
            ws.close((short) 1002, "unsupported version");
            return;
          }
          welcomed[0] = true;
          sockets.put(hostId, ws);
          ws.writeTextMessage("{\"type\":\"welcome\",\"version\":" + agreed + ",\"heartbeat_seconds\":" + heartbeatSeconds
              + ",\"max_frame_bytes\":" + maxFrameBytes + "}");
          ArrayDeque<Steps> q = pending.remove(hostId);
          if (q != null) {
            for (Steps s : q) {
              ws.writeTextMessage(stepsMessage(s));
            }
          }
          return;
        }
        switch (type) {
          case "heartbeat" -> heartbeatsFromAgents++;
          case "step_reply" -> {
            if (text.length() > maxFrameBytes) {
              ws.writeTextMessage("{\"type\":\"error\",\"code\":\"frame-too-large\",\"reason\":\"too large\","
                  + "\"retryable\":false,\"step_id\":\"" + msg.path("reply").path("step_id").asText() + "\"}");
              return;
            }
            StepReply reply = WireJson.MAPPER.convertValue(msg.path("reply"), StepReply.class);
            if (busUnavailableRemaining > 0) {
              busUnavailableRemaining--;
              ws.writeTextMessage("{\"type\":\"error\",\"code\":\"bus-unavailable\",\"reason\":\"bus down\","
                  + "\"retryable\":true,\"step_id\":\"" + reply.stepId() + "\"}");
              return;
            }
            replies.add(new Received(hostId, "ws", reply));
            if (!silent) {
              ws.writeTextMessage("{\"type\":\"ack\",\"step_id\":\"" + reply.stepId() + "\"}");
            }
          }
          case "error" -> agentErrors.add(msg);
          default -> ws.writeTextMessage("{\"type\":\"error\",\"code\":\"unknown-type\",\"reason\":\"unknown type '"
              + type + "'\",\"retryable\":false}");
        }
      }
    });
  }

  private static String stepsMessage(Steps steps) {
    return "{\"type\":\"steps\",\"steps\":" + WireJson.write(steps) + "}";
  }
}
