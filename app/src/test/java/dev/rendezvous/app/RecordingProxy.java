package dev.rendezvous.app;

import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.http.ServerWebSocket;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A reverse proxy in the test JVM between dry-run agents (their agent loop, installers and controller) and the
 * system, forwarding HTTP and websockets to {@code 127.0.0.1:upstreamPort}. It records every host progress report
 * the system answered 2xx, in the order the answers came: what the agents were told had been accepted. When the
 * system is gone it closes the agent's connection, as a dead server would, so the agents' own retries are tested.
 */
final class RecordingProxy implements AutoCloseable {
  /** One acknowledged {@code PUT .../hosts/{id}/progress}. */
  record Ack(String hostId, String stage, String info) {}

  /** One refused progress report (4xx): a stage the service would not take. */
  record Refusal(String hostId, String stage, String info, int status, String body) {}

  private static final Pattern PROGRESS = Pattern.compile(".*/infra-envs/[^/]+/hosts/([^/]+)/progress$");
  private static final Set<String> HOP_BY_HOP = Set.of("connection", "keep-alive", "transfer-encoding", "upgrade",
      "host", "content-length", "te", "trailer", "proxy-connection");
  private final int upstreamPort;
  private final HttpClient http;
  private final WebSocketClient ws;
  private final HttpServer server;
  private final List<Ack> acks = new ArrayList<>();
  private final List<Refusal> refusals = new ArrayList<>();

  private RecordingProxy(Vertx vertx, int upstreamPort) {
    this.upstreamPort = upstreamPort;
    this.http = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true), new PoolOptions().setHttp1MaxSize(64));
    this.ws = vertx.createWebSocketClient();
    this.server = vertx.createHttpServer().requestHandler(this::handle);
  }

  static RecordingProxy start(Vertx vertx, int port, int upstreamPort) throws Exception {
    RecordingProxy p = new RecordingProxy(vertx, upstreamPort);
    p.server.listen(port, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    return p;
  }

  int port() {
    return server.actualPort();
  }

  synchronized List<Ack> acks() {
    return List.copyOf(acks);
  }

  synchronized List<Refusal> refusals() {
    return List.copyOf(refusals);
  }

  synchronized int ackCount() {
    return acks.size();
  }

  private void handle(HttpServerRequest req) {
    if (req.canUpgradeToWebSocket()) {
      webSocket(req);
      return;
    }
    RequestOptions out = new RequestOptions().setMethod(req.method()).setHost("127.0.0.1").setPort(upstreamPort)
        .setURI(req.uri()).setHeaders(endToEnd(req.headers()));
    req.body().compose(body -> http.request(out)
            .compose(up -> up.send(body))
            .compose(resp -> resp.body().map(b -> {
              record(req, body, resp.statusCode(), b);
              req.response().setStatusCode(resp.statusCode()).setStatusMessage(resp.statusMessage());
              req.response().headers().addAll(endToEnd(resp.headers()));
              return b;
            })))
        .onSuccess(b -> req.response().end(b))
        .onFailure(t -> req.connection().close()); // the system is gone: so is the agent's connection
  }

  private void record(HttpServerRequest req, Buffer body, int status, Buffer answer) {
    Matcher m = PROGRESS.matcher(req.path());
    if (!"PUT".equals(req.method().name()) || !m.matches()) {
      return;
    }
    JsonObject p = new JsonObject(body);
    String stage = p.getString("current_stage");
    String info = p.getString("progress_info", "");
    synchronized (this) {
      if (status >= 200 && status < 300) {
        acks.add(new Ack(m.group(1), stage, info));
      } else if (status >= 400 && status < 500) {
        refusals.add(new Refusal(m.group(1), stage, info, status, answer.toString()));
      }
    }
  }

  /** Upstream first, then the agent's upgrade: a refused upstream refuses the agent too. */
  private void webSocket(HttpServerRequest req) {
    req.pause();
    WebSocketConnectOptions o = new WebSocketConnectOptions().setHost("127.0.0.1").setPort(upstreamPort)
        .setURI(req.uri()).setConnectTimeout(5_000);
    for (var h : req.headers()) {
      String n = h.getKey().toLowerCase(java.util.Locale.ROOT);
      if (!HOP_BY_HOP.contains(n) && !n.startsWith("sec-websocket")) {
        o.addHeader(h.getKey(), h.getValue());
      }
    }
    ws.connect(o).onComplete(ar -> {
      if (ar.failed()) {
        req.connection().close();
        return;
      }
      WebSocket up = ar.result();
      Future<ServerWebSocket> down = req.toWebSocket();
      down.onFailure(t -> up.close());
      down.onSuccess(agent -> {
        agent.textMessageHandler(up::writeTextMessage);
        agent.binaryMessageHandler(up::writeBinaryMessage);
        up.textMessageHandler(agent::writeTextMessage);
        up.binaryMessageHandler(agent::writeBinaryMessage);
        agent.closeHandler(v -> up.close());
        up.closeHandler(v -> agent.close());
        up.exceptionHandler(t -> agent.close());
      });
    });
  }

  private static MultiMap endToEnd(MultiMap headers) {
    MultiMap m = MultiMap.caseInsensitiveMultiMap();
    for (var h : headers) {
      if (!HOP_BY_HOP.contains(h.getKey().toLowerCase(java.util.Locale.ROOT))) {
        m.add(h.getKey(), h.getValue());
      }
    }
    return m;
  }

  @Override
  public void close() throws Exception {
    server.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    http.close();
    ws.close();
  }
}
