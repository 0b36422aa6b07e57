package dev.rendezvous.gateway;

import static dev.rendezvous.gateway.TestBed.await;
import static dev.rendezvous.gateway.TestBed.newId;
import static dev.rendezvous.gateway.TestBed.step;
import static dev.rendezvous.gateway.TestBed.token;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rendezvous.bus.BusEvent;
import dev.rendezvous.bus.BusProducer;
import dev.rendezvous.bus.event.AgentPresence;
import dev.rendezvous.bus.event.StepsToDeliver;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.client.HttpResponse;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Gateways of their own: short heartbeats, a restart, a bus that refuses writes, a reader that does not read. */
class GatewayLifecycleTest {

    private final TestBed bed = TestBed.get();

    private static int freePort() throws Exception {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @Test
    void aSilentConnectionIsClosedWithinTwoHeartbeatsAndATalkingOneIsNot() throws Exception {
        GatewayVerticle gateway = new GatewayVerticle(bed.config().withHeartbeat(Duration.ofSeconds(1)),
                bed.producer::publish, new SimpleMeterRegistry());
        String deployment = await(bed.vertx.deployVerticle(gateway));
        try {
            String infraEnv = newId();
            String token = token(infraEnv, null);
            TestBed.AgentSocket silent = bed.open(gateway.actualPort(), infraEnv, newId(), token);
            TestBed.AgentSocket talking = bed.open(gateway.actualPort(), infraEnv, newId(), token);
            assertEquals(1, silent.hello().get("heartbeat_seconds").asInt());
            talking.hello();
            long start = System.nanoTime();
            long talkUntil = start + TimeUnit.MILLISECONDS.toNanos(3500);
            int seq = 0;
            while (System.nanoTime() < talkUntil) {
                talking.send("{\"type\":\"heartbeat\",\"seq\":" + ++seq + "}");
                Thread.sleep(400);
            }
            short code = silent.closed.get(5, TimeUnit.SECONDS);
            assertEquals((short) 1001, code);
            assertTrue(!talking.closed.isDone(), "a connection that talks stays open");
            assertTrue(talking.received.stream().anyMatch(m -> "heartbeat".equals(m.path("type").asText())),
                    "the gateway sends heartbeats");
            talking.ws.close();
        } finally {
            await(bed.vertx.undeploy(deployment));
        }
    }

    @Test
    void afterTheGatewayRestartsAReconnectingAgentIsAnnouncedAndGetsStepsPublishedAfterwards() throws Exception {
        int port = freePort();
        GatewayConfig config = bed.config().withPort(port);
        String first = await(bed.vertx.deployVerticle(new GatewayVerticle(config, bed.producer::publish, new SimpleMeterRegistry())));
        String infraEnv = newId();
        String host = newId();
        String token = token(infraEnv, null);
        TestBed.AgentSocket agent = bed.open(port, infraEnv, host, token);
        agent.hello();
        bed.awaitEvent(e -> e.payload() instanceof AgentPresence p && host.equals(e.hostId()) && AgentPresence.CONNECTED.equals(p.state()));

        await(bed.vertx.undeploy(first));
        agent.closed.get(10, TimeUnit.SECONDS);
        String second = await(bed.vertx.deployVerticle(new GatewayVerticle(config, bed.producer::publish, new SimpleMeterRegistry())));
        try {
            TestBed.AgentSocket again = bed.open(port, infraEnv, host, token);
            again.hello();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (bed.countEvents(e -> e.payload() instanceof AgentPresence p && host.equals(e.hostId())
                    && AgentPresence.CONNECTED.equals(p.state())) < 2 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(2, bed.countEvents(e -> e.payload() instanceof AgentPresence p && host.equals(e.hostId())
                    && AgentPresence.CONNECTED.equals(p.state())), "the reconnect is announced, so the service re-plans");
            StepsToDeliver.Step step = step("inventory");
            bed.publishSteps(null, infraEnv, host, step);
            assertEquals(step.stepId(), again.next("steps").get("steps").get("instructions").get(0).get("step_id").asText());
            again.ws.close();
        } finally {
            await(bed.vertx.undeploy(second));
        }
    }

    @Test
    void whenTheBusRefusesWritesAgentsGetRetryableErrors() throws Exception {
        BusProducer closed = new BusProducer(bed.bootstrap, "gateway-test-closed");
        closed.close();
        GatewayVerticle gateway = new GatewayVerticle(bed.config(), closed::publish, new SimpleMeterRegistry());
        String deployment = await(bed.vertx.deployVerticle(gateway));
        try {
            String infraEnv = newId();
            String host = newId();
            String token = token(infraEnv, null);
            String base = "/api/assisted-install/v2/infra-envs/" + infraEnv + "/hosts";
            HttpResponse<Buffer> register = await(bed.http.request(HttpMethod.POST, gateway.actualPort(), "127.0.0.1", base)
                    .putHeader(AgentAuth.HEADER, token).sendBuffer(Buffer.buffer("{\"host_id\":\"" + host + "\"}")));
            assertEquals(503, register.statusCode());
            assertEquals("5", register.getHeader("Retry-After"));
            HttpResponse<Buffer> reply = await(bed.http.request(HttpMethod.POST, gateway.actualPort(), "127.0.0.1",
                    base + "/" + host + "/instructions").putHeader(AgentAuth.HEADER, token)
                    .sendBuffer(Buffer.buffer("{\"step_type\":\"inventory\",\"step_id\":\"inventory-1\"}")));
            assertEquals(503, reply.statusCode());
            // a poll that must announce the host cannot: 503 too, and the next poll tries again
            HttpResponse<Buffer> poll = await(bed.http.request(HttpMethod.GET, gateway.actualPort(), "127.0.0.1",
                    base + "/" + host + "/instructions?wait_seconds=0").putHeader(AgentAuth.HEADER, token).send());
            assertEquals(503, poll.statusCode());

            TestBed.AgentSocket agent = bed.open(gateway.actualPort(), infraEnv, host, token);
            agent.hello();
            JsonNode error = agent.next("error");
            assertEquals("bus-unavailable", error.get("code").asText());
            assertTrue(error.get("retryable").asBoolean());
            assertEquals((short) 1013, agent.closed.get(10, TimeUnit.SECONDS));
        } finally {
            await(bed.vertx.undeploy(deployment));
        }
    }

    @Test
    void anAgentThatDoesNotReadIsCutOffWithoutDelayingAnother() throws Exception {
        String infraEnv = newId();
        String stuckHost = newId();
        String healthyHost = newId();
        String token = token(infraEnv, null);
        TestBed.AgentSocket stuck = bed.open(infraEnv, stuckHost, token);
        TestBed.AgentSocket healthy = bed.open(infraEnv, healthyHost, token);
        stuck.hello();
        healthy.hello();
        stuck.ws.pause(); // stops reading: the kernel buffers fill, then the gateway's write queue

        String bulky = "x".repeat(200_000);
        int plans = 300; // 60 MB for the stuck agent: more than socket buffers + the gateway's queue
        for (int i = 0; i < plans; i++) {
            BusEvent event = BusEvent.of(null, infraEnv, stuckHost, new StepsToDeliver(0, StepsToDeliver.CONTINUE,
                    List.of(new StepsToDeliver.Step("execute", "execute-" + i, List.of(bulky)))));
            bed.producer.publish(event);
        }
        StepsToDeliver.Step step = step("inventory");
        bed.publishSteps(null, infraEnv, healthyHost, step);
        assertEquals(step.stepId(), healthy.next("steps").get("steps").get("instructions").get(0).get("step_id").asText());
        stuck.ws.resume();
        assertEquals((short) 1013, stuck.closed.get(20, TimeUnit.SECONDS));
        assertTrue(bed.counter(GatewayMetrics.MESSAGES_REJECTED, "reason", GatewayMetrics.REASON_SLOW_CONSUMER) >= 1);
        assertTrue(!healthy.closed.isDone());
        healthy.ws.close();
    }
}
