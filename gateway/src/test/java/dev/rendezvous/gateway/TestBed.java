package dev.rendezvous.gateway;

import dev.rendezvous.bus.auth.AgentTokens;
import com.fasterxml.jackson.databind.JsonNode;
import dev.rendezvous.bus.BusConsumer;
import dev.rendezvous.bus.BusEvent;
import dev.rendezvous.bus.BusProducer;
import dev.rendezvous.bus.EmbeddedKafka;
import dev.rendezvous.bus.TopicSetup;
import dev.rendezvous.bus.Topics;
import dev.rendezvous.bus.event.StepsToDeliver;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.ext.web.client.WebClient;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * One real embedded Kafka broker, one Vert.x, one bus producer, one recorder of everything the gateway publishes,
 * and one gateway on a free port: per test JVM. Tests use fresh infra-env and host ids, so they do not interfere.
 */
final class TestBed {

    static final String SECRET = "test-secret-0123456789-abcdef";
    static final int PARTITIONS = 4;

    private static TestBed shared;

    final String bootstrap;
    final Vertx vertx;
    final BusProducer producer;
    final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    final ConcurrentLinkedQueue<BusEvent> published = new ConcurrentLinkedQueue<>();
    final WebClient http;
    final WebSocketClient websockets;
    final GatewayVerticle gateway;
    final int port;

    private TestBed() throws Exception {
        EmbeddedKafka broker = EmbeddedKafka.start(Files.createTempDirectory("rdv-gateway-test-kafka"));
        bootstrap = broker.bootstrapServers();
        TopicSetup.ensure(bootstrap, PARTITIONS, (short) 1, Duration.ofSeconds(60));
        vertx = Vertx.vertx();
        producer = new BusProducer(bootstrap, "gateway-test");
        BusConsumer recorder = BusConsumer.fanOut(bootstrap,
                List.of(Topics.HOST_REGISTRATIONS, Topics.AGENT_PRESENCE, Topics.STEP_REPLIES, Topics.EVENTS,
                        Topics.INSTALL_PROGRESS),
                BusConsumer.StartFrom.LATEST, event -> {
                    published.add(event);
                    return CompletableFuture.completedFuture(null);
                });
        recorder.started().get(30, TimeUnit.SECONDS);
        gateway = new GatewayVerticle(config(), producer::publish, registry);
        await(vertx.deployVerticle(gateway));
        port = gateway.actualPort();
        http = WebClient.create(vertx);
        websockets = vertx.createWebSocketClient(new WebSocketClientOptions().setMaxFrameSize(16 * 1024 * 1024)
                .setMaxMessageSize(64 * 1024 * 1024));
    }

    static synchronized TestBed get() {
        if (shared == null) {
            try {
                shared = new TestBed();
            } catch (Exception e) {
                throw new IllegalStateException("cannot start the gateway test bed", e);
            }
        }
        return shared;
    }

    /** Test defaults: any free port, the shared broker, a short presence grace. */
    GatewayConfig config() {
        return GatewayConfig.withSecret(SECRET).withPort(0).withKafkaBootstrap(bootstrap);
    }

    static <T> T await(Future<T> future) throws Exception {
        return future.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    static String newId() {
        return UUID.randomUUID().toString();
    }

    static String token(String infraEnvId, String clusterId) {
        return AgentTokens.issue(SECRET, infraEnvId, clusterId);
    }

    /** Publishes one plan for a host on the real steps topic, as the service's planner does. */
    BusEvent publishSteps(String clusterId, String infraEnvId, String hostId, StepsToDeliver.Step... steps)
            throws Exception {
        BusEvent event = BusEvent.of(clusterId, infraEnvId, hostId,
                new StepsToDeliver(0, StepsToDeliver.CONTINUE, List.of(steps)));
        producer.publish(event).get(30, TimeUnit.SECONDS);
        return event;
    }

    static StepsToDeliver.Step step(String type) {
        return new StepsToDeliver.Step(type, type + "-" + UUID.randomUUID().toString().substring(0, 8),
                List.of("{\"x\":1}"));
    }

    /** The first event the gateway published that matches, waiting up to 20 s for it to come off the bus. */
    BusEvent awaitEvent(Predicate<BusEvent> match) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            for (BusEvent event : published) {
                if (match.test(event)) {
                    return event;
                }
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no matching event on the bus within 20 s; seen: " + published.size());
    }

    long countEvents(Predicate<BusEvent> match) {
        return published.stream().filter(match).count();
    }

    /** A websocket client of one host, collecting every message. */
    final class AgentSocket {
        final WebSocket ws;
        final LinkedBlockingQueue<JsonNode> received = new LinkedBlockingQueue<>();
        final CompletableFuture<Short> closed = new CompletableFuture<>();

        AgentSocket(WebSocket ws) {
            this.ws = ws;
            ws.textMessageHandler(text -> {
                try {
                    received.add(AgentWire.JSON.readTree(text));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            ws.closeHandler(v -> closed.complete(ws.closeStatusCode()));
        }

        void send(String json) throws Exception {
            await(ws.writeTextMessage(json));
        }

        /** The next message of {@code type}, skipping heartbeats (and other types). */
        JsonNode next(String type) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (System.nanoTime() < deadline) {
                JsonNode message = received.poll(100, TimeUnit.MILLISECONDS);
                if (message != null && type.equals(message.path("type").asText())) {
                    return message;
                }
            }
            throw new AssertionError("no '" + type + "' message within 20 s");
        }

        JsonNode hello() throws Exception {
            send("{\"type\":\"hello\",\"versions\":[1],\"agent_version\":\"test\"}");
            return next("welcome");
        }

        /** Sends a binary message (protocol version 2): header length, header JSON, then the payload bytes. */
        void sendBinary(String header, byte[] payload) throws Exception {
            byte[] h = header.getBytes(java.nio.charset.StandardCharsets.UTF_8);
            await(ws.writeBinaryMessage(io.vertx.core.buffer.Buffer.buffer(java.nio.ByteBuffer.allocate(4 + h.length
                    + payload.length).putInt(h.length).put(h).put(payload).array())));
        }
    }

    Future<WebSocket> connect(int port, String infraEnvId, String hostId, String token) {
        WebSocketConnectOptions options = new WebSocketConnectOptions().setHost("127.0.0.1").setPort(port)
                .setURI("/api/rendezvous/v1/infra-envs/" + infraEnvId + "/hosts/" + hostId + "/ws");
        if (token != null) {
            options.addHeader(AgentAuth.HEADER, token);
        }
        return websockets.connect(options);
    }

    AgentSocket open(String infraEnvId, String hostId, String token) throws Exception {
        return new AgentSocket(await(connect(port, infraEnvId, hostId, token)));
    }

    AgentSocket open(int port, String infraEnvId, String hostId, String token) throws Exception {
        return new AgentSocket(await(connect(port, infraEnvId, hostId, token)));
    }

    double counter(String name, String tag, String value) {
        var counter = registry.find(name).tag(tag, value).counter();
        return counter == null ? 0 : counter.count();
    }
}
