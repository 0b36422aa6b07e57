package dev.rendezvous.app;

import dev.rendezvous.bus.TopicSetup;
import dev.rendezvous.observability.Observability;
import dev.rendezvous.service.api.ErrorReplies;
import dev.rendezvous.service.api.RestApi;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.sqlclient.Pool;
import java.time.Duration;
import java.util.function.Consumer;

/** The API port: REST API v2, the agent gateway's routes, health, readiness, metrics, the web UI and the fleet page. */
final class ApiVerticle extends VerticleBase {
  private final int port;
  private final RestApi api;
  private final Consumer<Router> agentRoutes;
  private final Consumer<Router> moreUserRoutes;
  private final Pool db;
  private final String kafkaBootstrap;
  private final Observability observability;
  private final HttpServerOptions serverOptions;
  private final java.nio.file.Path agentJar;
  private final dev.rendezvous.ui.UiRoutes ui;
  private HttpServer server;
  private volatile long readyCheckedAt;
  private volatile boolean kafkaReady;

  ApiVerticle(int port, RestApi api, Consumer<Router> agentRoutes, Consumer<Router> moreUserRoutes,
      HttpServerOptions serverOptions, Pool db,
      String kafkaBootstrap, Observability observability, java.nio.file.Path agentJar, dev.rendezvous.ui.UiRoutes ui) {
    this.agentJar = agentJar;
    this.ui = ui;
    this.moreUserRoutes = moreUserRoutes;
    this.serverOptions = new HttpServerOptions(serverOptions);
    this.port = port;
    this.api = api;
    this.agentRoutes = agentRoutes;
    this.db = db;
    this.kafkaBootstrap = kafkaBootstrap;
    this.observability = observability;
  }

  @Override
  public Future<?> start() {
    Router router = Router.router(vertx);
    // The agent routes come first: they authenticate before reading a body, so the API's body handler must not run for them.
    agentRoutes.accept(router);
    api.mountCommon(router);
    router.get("/health").handler(ctx -> ctx.json(new JsonObject().put("status", "ok")));
    router.get("/ready").handler(this::ready);
    router.get("/metrics").handler(observability::handleScrape);
    // the fleet page: static, public (it asks for a token and calls the API with it)
    router.get("/fleet").handler(ctx -> ctx.response().putHeader("Content-Type", "text/html; charset=utf-8")
        .putHeader("Cache-Control", "no-cache").end(FLEET_PAGE));
    // Discovery hosts fetch the agent from here (the Ignition's agent unit); it is public code, no auth.
    router.get(AGENT_JAR_PATH).handler(this::agentJar);
    api.mount(router);
    moreUserRoutes.accept(router);
    // the web UI at / (upstream's UI library): last, it answers the paths no other route took, outside /api
    ui.mount(router);
    // answers under 1 KB are sent as they are: gzip makes them larger and costs a deflater each (GET /health asked
    // with gzip, as Go's clients such as upstream's agent ask: 26 -> 40-64 us of CPU a request, and 15 -> 41 bytes)
    server = vertx.createHttpServer(serverOptions.setPort(port).setHost("0.0.0.0").setCompressionSupported(true)
        .setCompressionContentSizeThreshold(COMPRESSION_THRESHOLD_BYTES));
    return server.requestHandler(router).listen();
  }

  /**
   * Stops taking requests and lets the ones under way finish (2 s at most): stopped before the bus clients and Vert.x
   * close, so no request meets a closed producer or file system (a log upload at stop once failed on a closing file
   * resolver). Agents' websockets are closed; they reconnect to another instance or to this one restarted.
   */
  @Override
  public Future<?> stop() {
    return server == null ? Future.succeededFuture() : server.shutdown(2, java.util.concurrent.TimeUnit.SECONDS);
  }

  /** Read once, when the class is loaded at deployment (on the deploying thread, before any event loop serves). */
  static final String FLEET_PAGE = fleetPage();

  private static String fleetPage() {
    try (java.io.InputStream in = ApiVerticle.class.getResourceAsStream("/fleet/index.html")) {
      return in == null ? "the fleet page is missing from this build" : new String(in.readAllBytes(),
          java.nio.charset.StandardCharsets.UTF_8);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  static final String AGENT_JAR_PATH = "/api/rendezvous/v1/agent/rendezvous-agent.jar";
  /** The size from which an answer with a length (not a streamed one) is compressed for a client that asks. */
  static final int COMPRESSION_THRESHOLD_BYTES = 1024;

  private void agentJar(RoutingContext ctx) {
    String path = agentJar.toString();
    vertx.fileSystem().exists(path).onComplete(ar -> {
      if (ar.succeeded() && ar.result()) {
        ctx.response().putHeader("Content-Type", "application/java-archive").sendFile(path);
      } else {
        ErrorReplies.send(ctx, 404, null, "the agent jar is not built on this server (" + path + ")");
      }
    });
  }

  int actualPort() {
    return server.actualPort();
  }

  /** Ready when the database answers and the broker has every topic; the broker check is cached 2 s. */
  private void ready(RoutingContext ctx) {
    long now = System.currentTimeMillis();
    Future<Boolean> kafka;
    if (now - readyCheckedAt < 2000) {
      kafka = Future.succeededFuture(kafkaReady);
    } else {
      kafka = vertx.executeBlocking(() -> TopicSetup.ready(kafkaBootstrap, Duration.ofSeconds(2)), false)
          .onSuccess(r -> {
            kafkaReady = r;
            readyCheckedAt = System.currentTimeMillis();
          });
    }
    Future<Boolean> database = db.query("SELECT 1").execute().map(r -> true).otherwise(false);
    Future.all(kafka, database).onComplete(ar -> {
      boolean k = kafka.succeeded() && kafka.result();
      boolean d = database.succeeded() && database.result();
      ctx.response().setStatusCode(k && d ? 200 : 503);
      ctx.json(new JsonObject().put("status", k && d ? "ready" : "not-ready").put("database", d).put("kafka", k));
    });
  }
}
