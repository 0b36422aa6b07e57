package dev.rendezvous.gateway.bench;

import dev.rendezvous.bus.auth.AgentTokens;
import com.fasterxml.jackson.databind.JsonNode;
import dev.rendezvous.bus.BusEvent;
import dev.rendezvous.bus.BusProducer;
import dev.rendezvous.bus.EmbeddedKafka;
import dev.rendezvous.bus.TopicSetup;
import dev.rendezvous.bus.event.StepsToDeliver;
import dev.rendezvous.gateway.AgentWire;
import dev.rendezvous.gateway.GatewayConfig;
import dev.rendezvous.gateway.GatewayVerticle;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Load generator for the gateway: N simulated agents (real websocket or HTTP long-poll clients, canned step
 * replies) against a running gateway with the embedded Kafka broker.
 *
 * <p>Two processes, because a process may hold only {@code ulimit -n} descriptors and every loopback connection
 * costs one on each side: this one runs the broker and the gateway and measures the gateway's heap per connection
 * and idle CPU; a child JVM ({@code --role=agents}) runs the agents, publishes plans on the steps topic at the
 * given rate (step args carry the publish {@code System.nanoTime()}) and measures publish → agent-has-it latency.
 *
 * <pre>
 * mvn -q -pl gateway -Pbench compile exec:exec -Dbench.args="--agents=1000 --rate=1000 --seconds=20"
 * </pre>
 * Options: {@code --agents} N, {@code --rate} steps/s, {@code --seconds} of load per transport, {@code --modes}
 * {@code ws,poll}, {@code --idle-seconds} of the idle-CPU window, {@code --warmup-seconds} of unmeasured load
 * first, {@code --agent-heap} of the child JVM.
 */
public final class GatewayLoadBench {

    private static final String SECRET = "bench-secret-0123456789abcdef";
    private static final int AGENTS_PER_CLIENT = 50;
    private static final PrintStream OUT = System.out;

    private GatewayLoadBench() {
    }

    public static void main(String[] rawArgs) throws Exception {
        Map<String, String> args = parse(rawArgs);
        if ("agents".equals(args.get("role"))) {
            AgentFleet.run(args);
        } else {
            runServer(args);
        }
        System.exit(0);
    }

    private static Map<String, String> parse(String[] raw) {
        Map<String, String> args = new HashMap<>();
        for (String chunk : raw) {
            for (String arg : chunk.trim().split("\\s+")) {
                if (arg.startsWith("--") && arg.contains("=")) {
                    args.put(arg.substring(2, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
                }
            }
        }
        return args;
    }

    private static int intArg(Map<String, String> args, String name, int fallback) {
        return args.containsKey(name) ? Integer.parseInt(args.get(name)) : fallback;
    }

    // ------------------------------------------------------------------ server side (this JVM)

    private static void runServer(Map<String, String> args) throws Exception {
        int agents = intArg(args, "agents", 1000);
        int idleSeconds = intArg(args, "idle-seconds", 15);
        List<String> modes = Arrays.asList(args.getOrDefault("modes", "ws,poll").split(","));
        OUT.printf("gateway load bench: %d agents, %s steps/s, %s s per transport, modes %s, %d cores%n", agents,
                args.getOrDefault("rate", "1000"), args.getOrDefault("seconds", "20"), modes,
                Runtime.getRuntime().availableProcessors());

        EmbeddedKafka kafka = EmbeddedKafka.start(Files.createTempDirectory("rdv-gateway-bench-kafka"));
        TopicSetup.ensure(kafka.bootstrapServers(), 8, (short) 1, Duration.ofSeconds(60));
        Vertx vertx = Vertx.vertx();
        BusProducer producer = new BusProducer(kafka.bootstrapServers(), "bench-gateway");
        GatewayConfig config = GatewayConfig.withSecret(SECRET).withPort(0).withKafkaBootstrap(kafka.bootstrapServers());
        GatewayVerticle gateway = new GatewayVerticle(config, producer::publish, new SimpleMeterRegistry());
        await(vertx.deployVerticle(gateway));
        OUT.printf("broker %s, gateway on port %d%n", kafka.bootstrapServers(), gateway.actualPort());

        for (String mode : modes) {
            double heapBefore = usedHeapAfterGc();
            double cpuEmpty = cpuPercent(idleSeconds);
            Process child = new ProcessBuilder("java", "-Xmx" + args.getOrDefault("agent-heap", "3g"),
                    "-cp", System.getProperty("java.class.path"), GatewayLoadBench.class.getName(),
                    "--role=agents", "--mode=" + mode, "--port=" + gateway.actualPort(),
                    "--bootstrap=" + kafka.bootstrapServers(), "--agents=" + agents,
                    "--rate=" + args.getOrDefault("rate", "1000"), "--seconds=" + args.getOrDefault("seconds", "20"),
                    "--warmup-seconds=" + args.getOrDefault("warmup-seconds", "5"))
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            BufferedReader childOut = new BufferedReader(new InputStreamReader(child.getInputStream()));
            PrintStream childIn = new PrintStream(child.getOutputStream(), true);
            String line;
            while ((line = childOut.readLine()) != null) {
                OUT.println("  [agents] " + line);
                if (line.startsWith("READY")) {
                    Thread.sleep(5000); // let the connection burst (presence events, JIT) settle
                    int attached = gateway.gateway().attachedHostCount();
                    double heapAfter = usedHeapAfterGc();
                    double cpuIdle = cpuPercent(idleSeconds);
                    OUT.printf("%s: %d hosts attached; gateway heap per connection %.1f KiB; idle CPU %.1f%% of one core"
                                    + " (%.1f%% with no agents; broker included)%n", mode, attached,
                            (heapAfter - heapBefore) / 1024 / Math.max(1, attached), cpuIdle, cpuEmpty);
                    childIn.println("GO");
                }
            }
            child.waitFor();
        }
        await(vertx.undeploy(vertx.deploymentIDs().iterator().next()));
        producer.close();
        kafka.close();
    }

    private static double usedHeapAfterGc() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(200);
        }
        Runtime rt = Runtime.getRuntime();
        return rt.totalMemory() - rt.freeMemory();
    }

    /** Process CPU over a window, in percent of one core. */
    private static double cpuPercent(int seconds) throws InterruptedException {
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long cpu0 = os.getProcessCpuTime();
        long t0 = System.nanoTime();
        Thread.sleep(seconds * 1000L);
        return 100.0 * (os.getProcessCpuTime() - cpu0) / (System.nanoTime() - t0);
    }

    static <T> T await(Future<T> future) throws Exception {
        return future.toCompletionStage().toCompletableFuture().get(120, TimeUnit.SECONDS);
    }

    // ------------------------------------------------------------------ agents side (child JVM)

    /** The simulated agents, the steps publisher and the latency recorder. */
    static final class AgentFleet {
        private final Vertx vertx = Vertx.vertx();
        private final String infraEnv = UUID.randomUUID().toString();
        private final String token = AgentTokens.issue(SECRET, infraEnv, null);
        private final int port;
        private final int count;
        private final String[] hosts;
        private final long[] latencies;
        private final AtomicInteger recorded = new AtomicInteger();
        private final AtomicLong repliesSent = new AtomicLong();
        private final AtomicLong errors = new AtomicLong();

        AgentFleet(int port, int count, int expectedSteps) {
            this.port = port;
            this.count = count;
            this.hosts = new String[count];
            for (int i = 0; i < count; i++) {
                hosts[i] = UUID.randomUUID().toString();
            }
            this.latencies = new long[expectedSteps * 2 + 1024];
        }

        static void run(Map<String, String> args) throws Exception {
            int agents = intArg(args, "agents", 1000);
            int rate = intArg(args, "rate", 1000);
            int seconds = intArg(args, "seconds", 20);
            String mode = args.get("mode");
            AgentFleet fleet = new AgentFleet(intArg(args, "port", 0), agents, rate * seconds);
            long t0 = System.nanoTime();
            if ("ws".equals(mode)) {
                fleet.connectWebsockets();
            } else {
                fleet.startPolling();
            }
            OUT.printf("%s: %d agents attached in %.1f s%n", mode, agents, (System.nanoTime() - t0) / 1e9);
            OUT.println("READY");
            new BufferedReader(new InputStreamReader(System.in)).readLine(); // the server measures meanwhile
            BusProducer producer = new BusProducer(args.get("bootstrap"), "bench-planner");
            int warmup = intArg(args, "warmup-seconds", 5); // JIT of both JVMs; not measured
            fleet.publish(producer, rate, warmup);
            Thread.sleep(2000);
            fleet.recorded.set(0);
            fleet.repliesSent.set(0);
            long published = fleet.publish(producer, rate, seconds);
            Thread.sleep(3000);
            fleet.report(mode, rate, published);
            producer.close();
        }

        private void record(JsonNode steps) {
            long now = System.nanoTime();
            for (JsonNode step : steps.path("instructions")) {
                int slot = recorded.getAndIncrement();
                if (slot < latencies.length) {
                    latencies[slot] = now - Long.parseLong(step.path("args").path(0).asText());
                }
            }
        }

        private static String cannedReply(JsonNode step) {
            return "{\"step_type\":\"" + step.path("step_type").asText() + "\",\"step_id\":\"" + step.path("step_id").asText()
                    + "\",\"exit_code\":0,\"output\":\"{\\\"cpus\\\":4,\\\"memory\\\":17179869184}\",\"error\":\"\"}";
        }

        void connectWebsockets() throws Exception {
            WebSocketClient client = vertx.createWebSocketClient(new WebSocketClientOptions()
                    .setMaxConnections(count + 16).setConnectTimeout(60_000));
            Semaphore inFlight = new Semaphore(256);
            CountDownLatch welcomed = new CountDownLatch(count);
            for (String host : hosts) {
                inFlight.acquire();
                client.connect(new WebSocketConnectOptions().setHost("127.0.0.1").setPort(port)
                        .setURI("/api/rendezvous/v1/infra-envs/" + infraEnv + "/hosts/" + host + "/ws")
                        .addHeader("X-Secret-Key", token)).onComplete(connected -> {
                    inFlight.release();
                    if (connected.failed()) {
                        errors.incrementAndGet();
                        welcomed.countDown();
                        return;
                    }
                    WebSocket ws = connected.result();
                    ws.textMessageHandler(text -> onSocketMessage(ws, text, welcomed));
                    ws.writeTextMessage("{\"type\":\"hello\",\"versions\":[1],\"agent_version\":\"bench\"}");
                    long jitter = ThreadLocalRandom.current().nextLong(1, 15_000);
                    vertx.setTimer(jitter, id -> vertx.setPeriodic(15_000, p -> ws.writeTextMessage("{\"type\":\"heartbeat\",\"seq\":0}")));
                });
            }
            welcomed.await(300, TimeUnit.SECONDS);
            if (errors.get() > 0) {
                OUT.println("websocket connect failures: " + errors.get());
            }
        }

        private void onSocketMessage(WebSocket ws, String text, CountDownLatch welcomed) {
            try {
                JsonNode message = AgentWire.JSON.readTree(text);
                switch (message.path("type").asText()) {
                    case "welcome" -> welcomed.countDown();
                    case "steps" -> {
                        JsonNode steps = message.get("steps");
                        record(steps);
                        for (JsonNode step : steps.path("instructions")) {
                            ws.writeTextMessage("{\"type\":\"step_reply\",\"reply\":" + cannedReply(step) + "}");
                            repliesSent.incrementAndGet();
                        }
                    }
                    case "error" -> errors.incrementAndGet();
                    default -> { }
                }
            } catch (Exception e) {
                errors.incrementAndGet();
            }
        }

        void startPolling() throws Exception {
            // small pools: a Vert.x client pool scans its connections, one pool of 10k would measure the client
            List<WebClient> clients = new ArrayList<>();
            for (int i = 0; i < (count + AGENTS_PER_CLIENT - 1) / AGENTS_PER_CLIENT; i++) {
                clients.add(WebClient.create(vertx, new WebClientOptions().setKeepAlive(true).setIdleTimeout(0)
                        .setConnectTimeout(60_000), new PoolOptions().setHttp1MaxSize(AGENTS_PER_CLIENT + 2)));
            }
            CountDownLatch sent = new CountDownLatch(count);
            for (int i = 0; i < count; i++) {
                String host = hosts[i];
                poll(clients.get(i / AGENTS_PER_CLIENT), host);
                sent.countDown();
                if (sent.getCount() % 256 == 0) {
                    Thread.sleep(20); // do not overrun the accept backlog
                }
            }
            sent.await();
            Thread.sleep(5000); // every first poll announced and held
        }

        private void poll(WebClient http, String host) {
            String path = "/api/assisted-install/v2/infra-envs/" + infraEnv + "/hosts/" + host + "/instructions";
            http.get(port, "127.0.0.1", path + "?wait_seconds=30").putHeader("X-Secret-Key", token).send()
                    .onComplete(answer -> {
                        if (answer.failed() || answer.result().statusCode() != 200) {
                            errors.incrementAndGet();
                            vertx.setTimer(1000, id -> poll(http, host));
                            return;
                        }
                        // like upstream's runner: post the replies, then poll again, one connection per agent
                        Future<?> replies = Future.succeededFuture();
                        try {
                            JsonNode steps = AgentWire.JSON.readTree(answer.result().bodyAsString());
                            record(steps);
                            for (JsonNode step : steps.path("instructions")) {
                                replies = replies.compose(v -> http.post(port, "127.0.0.1", path)
                                        .putHeader("X-Secret-Key", token).sendBuffer(Buffer.buffer(cannedReply(step))));
                                repliesSent.incrementAndGet();
                            }
                        } catch (Exception e) {
                            errors.incrementAndGet();
                        }
                        replies.onComplete(done -> poll(http, host));
                    });
        }

        long publish(BusProducer producer, int rate, int seconds) throws InterruptedException {
            long start = System.nanoTime();
            long sent = 0;
            long total = (long) rate * seconds;
            while (sent < total) {
                long due = (System.nanoTime() - start) * rate / 1_000_000_000L;
                while (sent < Math.min(due, total)) {
                    String host = hosts[ThreadLocalRandom.current().nextInt(count)];
                    StepsToDeliver.Step step = new StepsToDeliver.Step("inventory", "inventory-" + sent,
                            List.of(Long.toString(System.nanoTime())));
                    producer.publish(BusEvent.of(null, infraEnv, host,
                            new StepsToDeliver(0, StepsToDeliver.CONTINUE, List.of(step))));
                    sent++;
                }
                Thread.sleep(1);
            }
            return sent;
        }

        void report(String mode, int rate, long published) {
            int n = Math.min(recorded.get(), latencies.length);
            long[] sorted = Arrays.copyOf(latencies, n);
            Arrays.sort(sorted);
            OUT.printf("%s @ %d steps/s: published %d, delivered %d (%.2f%%), replies sent %d, errors %d%n", mode, rate,
                    published, recorded.get(), 100.0 * recorded.get() / Math.max(1, published), repliesSent.get(), errors.get());
            if (n == 0) {
                return;
            }
            double p50 = sorted[n / 2] / 1e6;
            double p99 = sorted[(int) Math.min(n - 1, Math.floor(n * 0.99))] / 1e6;
            OUT.printf("%s latency publish -> agent: p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms%n", mode, p50,
                    sorted[(int) (n * 0.9)] / 1e6, p99, sorted[n - 1] / 1e6);
            // upstream baseline: an agent polling every 60 s sees a step planned at a random moment after U(0,60) s
            double baseP50 = 30_000;
            double baseP99 = 59_400;
            OUT.printf("%s vs a 60 s polling agent (p50 %.0f ms, p99 %.0f ms): %.0fx faster at p50, %.0fx at p99%n", mode,
                    baseP50, baseP99, baseP50 / p50, baseP99 / p99);
        }
    }
}
