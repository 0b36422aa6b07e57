package dev.rendezvous.gateway;

import dev.rendezvous.bus.auth.AgentTokens;
import dev.rendezvous.bus.BusConsumer;
import dev.rendezvous.bus.Topics;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.ext.web.Router;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One gateway instance: the attached agents, the fan-out reader of the steps topic, the handlers. Thread-safe:
 * mount it into any number of routers (one per event loop) of the same process.
 *
 * <pre>{@code
 * Gateway gateway = Gateway.start(vertx, config, busProducer::publish, bootstrapServers, meterRegistry)
 *         .await();                       // or compose
 * gateway.mount(router);                  // upstream agent routes + websocket
 * vertx.createHttpServer(Gateway.serverOptions(new HttpServerOptions(), config)).requestHandler(router)...
 * ...
 * gateway.close();                        // on shutdown
 * }</pre>
 */
public final class Gateway {

    private static final Logger LOG = LoggerFactory.getLogger(Gateway.class);

    private final Vertx vertx;
    private final GatewayConfig config;
    private final GatewayMetrics metrics;
    private final GatewayEvents events;
    private final AgentDirectory directory;
    private final RejectionLog rejections;
    private final AgentHttpHandlers http;
    /** A reply is held at most this long while the service is behind, unless told otherwise. */
    static final long DEFAULT_REPLY_HOLD_MS = 5000;
    private final Pacing pacing = new Pacing();
    private final ReplyAdmission admission;
    private final HostVerification verification;
    private BusConsumer stepsReader;
    private long sweeper = -1;

    private Gateway(Vertx vertx, GatewayConfig config, BusPublisher publisher, MeterRegistry registry) {
        this.vertx = vertx;
        this.config = config;
        this.metrics = new GatewayMetrics(registry);
        this.events = new GatewayEvents(publisher, metrics, config.gatewayId());
        this.verification = new HostVerification(vertx, pacing, config.hostRecheck());
        this.directory = new AgentDirectory(events, metrics, config, verification);
        this.rejections = new RejectionLog(events, config);
        this.admission = new ReplyAdmission(vertx, pacing, metrics, DEFAULT_REPLY_HOLD_MS);
        this.http = new AgentHttpHandlers(config, directory, events, metrics, rejections, pacing, admission);
    }

    /**
     * Starts a gateway: reads the steps topic from its latest records (no consumer group: every gateway sees every
     * plan) and completes once that reader's positions are fixed, so no plan published afterwards is missed.
     *
     * @param publisher       where registrations, replies and presence go (e.g. {@code busProducer::publish})
     * @param kafkaBootstrap  bootstrap servers of the bus, for the steps reader
     */
    public static Future<Gateway> start(Vertx vertx, GatewayConfig config, BusPublisher publisher, String kafkaBootstrap,
                                        MeterRegistry registry) {
        Gateway gateway = new Gateway(vertx, config, publisher, registry);
        return vertx.executeBlocking(() -> {
            gateway.stepsReader = BusConsumer.builder(kafkaBootstrap)
                    .clientId("rdv-gateway-steps-" + config.gatewayId())
                    .topics(List.of(Topics.STEPS))
                    .startFrom(BusConsumer.StartFrom.LATEST)
                    // under load, a fetch per 10 ms of plans rather than one per plan batch: every gateway reads every
                    // plan (docs/benchmarks.md, session 19); on a quiet bus a plan comes at once
                    .pollPacing(java.time.Duration.ofMillis(10))
                    .handler(event -> {
                        gateway.directory.onSteps(event);
                        return CompletableFuture.completedFuture(null);
                    })
                    .start();
            return gateway.stepsReader;
        }).compose(reader -> Future.fromCompletionStage(reader.started())).map(v -> {
            // a sweep both drops silent HTTP hosts and asks about attached ones: often enough for either window
            long period = Math.max(1000, Math.min(Math.min(config.httpPresenceGrace().toMillis() / 4,
                    config.hostRecheck().toMillis() / 2), 10_000));
            gateway.sweeper = vertx.setPeriodic(period, id -> {
                gateway.directory.sweep();
                gateway.directory.verifyHosts();
            });
            LOG.debug("gateway {} started: {}", config.gatewayId(), config);
            return gateway;
        });
    }

    /**
     * Back-pressure: {@code factor} (1 = none) stretches the {@code next_instruction_seconds} handed to agents, so
     * they slow down while the service is behind (see {@link Pacing}).
     */
    public void pacing(java.util.function.DoubleSupplier factor) {
        pacing.factor(factor);
        metrics.paceFactor(pacing::factor);
    }

    /**
     * The longest a step reply is held before the bus while the service is behind ({@link ReplyAdmission}); 0 never
     * holds one.
     */
    public void replyHoldMax(java.time.Duration max) {
        admission.holdMax(max.toMillis());
    }

    /**
     * The rate (replies per second) step replies held while the service is behind are let go at
     * ({@link ReplyAdmission}); unset (or null), all go at once when it has caught up.
     */
    public void replyReleaseRate(java.util.function.DoubleSupplier repliesPerSecond) {
        admission.releaseRate(repliesPerSecond);
    }

    private volatile TokenCheck tokenCheck = TokenCheck.ALL;

    /** Agent tokens are also checked with {@code check} (see {@link TokenCheck}); set before mounting. */
    public void tokenCheck(TokenCheck check) {
        this.tokenCheck = check;
    }

    TokenCheck tokenCheck() {
        return tokenCheck;
    }

    /** Attached hosts are confirmed registered with {@code check} (see {@link HostCheck}); unknown ones get 404. */
    public void hostCheck(HostCheck check) {
        verification.check(check);
    }

    /** Tests drive the sweeps themselves: no periodic one from now on. */
    void stopSweeping() {
        if (sweeper >= 0) {
            vertx.cancelTimer(sweeper);
        }
    }

    /** Asks about the attached hosts due now, as the periodic sweep does; completes with how many were evicted. */
    Future<Integer> verifyHosts() {
        return directory.verifyHosts();
    }

    /** Registrations are for infra-envs {@code check} knows (see {@link InfraEnvCheck}); others get 503, retried. */
    public void infraEnvCheck(InfraEnvCheck check) {
        http.infraEnvCheck(check);
    }

    /** Installer progress is checked with {@code check} before it is published (see {@link ProgressCheck}). */
    public void progressCheck(ProgressCheck check) {
        http.progressCheck(check);
    }

    /** Adds the agent routes ({@link GatewayRoutes}) to {@code router}. */
    public void mount(Router router) {
        GatewayRoutes.mount(router, this);
    }

    /**
     * The websocket settings the HTTP server carrying the gateway routes needs: frames up to twice
     * {@code max_frame_bytes} reach the gateway (which answers {@code frame-too-large} above the limit and keeps
     * the connection); larger single frames are cut by the server with close code 1009.
     */
    public static HttpServerOptions serverOptions(HttpServerOptions options, GatewayConfig config) {
        int frameLimit = (int) Math.min(Integer.MAX_VALUE, 2L * config.maxBodyBytes());
        // a connection silent for longer than any held poll or two missed heartbeats is a dead or hostile one
        long idle = Math.max(config.longPollMax().toSeconds(), 2 * config.heartbeat().toSeconds()) + 30;
        return options.setMaxWebSocketFrameSize(frameLimit).setMaxWebSocketMessageSize(frameLimit)
                .setIdleTimeout((int) idle).setIdleTimeoutUnit(java.util.concurrent.TimeUnit.SECONDS);
    }

    public GatewayConfig config() {
        return config;
    }

    /** Websockets open on this gateway (after hello). */
    public int websocketCount() {
        return directory.websocketCount();
    }

    /** Hosts attached to this gateway by any transport. */
    public int attachedHostCount() {
        return directory.attachedCount();
    }

    /** Stops reading steps. Open connections belong to the HTTP server and close with it. */
    public Future<Void> close() {
        if (sweeper >= 0) {
            vertx.cancelTimer(sweeper);
        }
        BusConsumer reader = stepsReader;
        if (reader == null) {
            return Future.succeededFuture();
        }
        return vertx.executeBlocking(() -> {
            reader.close();
            return null;
        });
    }

    Vertx vertx() {
        return vertx;
    }

    AgentHttpHandlers http() {
        return http;
    }

    AgentSocketSession newSession(io.vertx.core.http.ServerWebSocket ws, AgentTokens.AgentClaims claims, HostKey key) {
        return new AgentSocketSession(ws, Vertx.currentContext(), claims, key, config, directory, events, metrics,
                rejections, pacing, admission);
    }

    GatewayMetrics metrics() {
        return metrics;
    }
}
