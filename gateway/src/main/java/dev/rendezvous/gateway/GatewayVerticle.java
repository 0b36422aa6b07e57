package dev.rendezvous.gateway;

import dev.rendezvous.bus.BusProducer;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.ext.web.Router;

/**
 * The gateway alone on its own port (scale-out mode, role {@code gateway}): agent routes plus {@code GET /healthz}.
 * Without a publisher it opens its own bus producer on {@code config.kafkaBootstrap()} and closes it on stop.
 */
public final class GatewayVerticle extends VerticleBase {

    private final GatewayConfig config;
    private final BusPublisher givenPublisher;
    private final MeterRegistry registry;
    private BusProducer ownProducer;
    private Gateway gateway;
    private HttpServer server;

    public GatewayVerticle(GatewayConfig config, BusPublisher publisher, MeterRegistry registry) {
        this.config = config;
        this.givenPublisher = publisher;
        this.registry = registry;
    }

    @Override
    public Future<?> start() {
        BusPublisher publisher = givenPublisher;
        if (publisher == null) {
            ownProducer = new BusProducer(config.kafkaBootstrap(), "rdv-gateway-" + config.gatewayId());
            publisher = ownProducer::publish;
        }
        return Gateway.start(vertx, config, publisher, config.kafkaBootstrap(), registry).compose(started -> {
            gateway = started;
            Router router = Router.router(vertx);
            router.get("/healthz").handler(ctx -> ctx.response().putHeader("Content-Type", "application/json")
                    .end("{\"status\":\"ok\"}"));
            gateway.mount(router);
            return vertx.createHttpServer(Gateway.serverOptions(new HttpServerOptions(), config))
                    .requestHandler(router)
                    .listen(config.port(), config.host());
        }).onSuccess(listening -> server = listening);
    }

    @Override
    public Future<?> stop() {
        Future<Void> closed = server == null ? Future.succeededFuture() : server.close();
        return closed.eventually(() -> gateway == null ? Future.succeededFuture() : gateway.close())
                .eventually(() -> {
                    if (ownProducer == null) {
                        return Future.succeededFuture();
                    }
                    Promise<Void> done = Promise.promise();
                    vertx.executeBlocking(() -> {
                        ownProducer.close();
                        return null;
                    }).onComplete(ar -> done.complete());
                    return done.future();
                });
    }

    /** The port actually bound (useful with port 0). */
    public int actualPort() {
        return server == null ? -1 : server.actualPort();
    }

    public Gateway gateway() {
        return gateway;
    }
}
