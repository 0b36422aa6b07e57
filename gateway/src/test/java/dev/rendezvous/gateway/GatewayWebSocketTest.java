package dev.rendezvous.gateway;

import static dev.rendezvous.gateway.TestBed.await;
import static dev.rendezvous.gateway.TestBed.newId;
import static dev.rendezvous.gateway.TestBed.step;
import static dev.rendezvous.gateway.TestBed.token;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rendezvous.bus.BusEvent;
import dev.rendezvous.bus.event.AgentPresence;
import dev.rendezvous.bus.event.StepReplyReceived;
import dev.rendezvous.bus.event.StepsToDeliver;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.UpgradeRejectedException;
import io.vertx.core.http.WebSocketFrame;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The Rendezvous websocket protocol against the running gateway and the real embedded Kafka. */
class GatewayWebSocketTest {

    private final TestBed bed = TestBed.get();

    private static boolean presence(BusEvent e, String host, String state) {
        return e.payload() instanceof AgentPresence p && host.equals(e.hostId()) && state.equals(p.state());
    }

    @Test
    void helloIsWelcomedAndPublishedStepsArePushedAtOnce() throws Exception {
        String infraEnv = newId();
        String cluster = newId();
        String host = newId();
        TestBed.AgentSocket agent = bed.open(infraEnv, host, token(infraEnv, cluster));
        JsonNode welcome = agent.hello();
        assertEquals(1, welcome.get("version").asInt());
        assertEquals(15, welcome.get("heartbeat_seconds").asInt());
        assertEquals(4 * 1024 * 1024, welcome.get("max_frame_bytes").asInt());
        BusEvent connected = bed.awaitEvent(e -> presence(e, host, AgentPresence.CONNECTED));
        assertEquals(AgentPresence.WEBSOCKET, ((AgentPresence) connected.payload()).transport());
        assertEquals(cluster, connected.partitionKey());

        StepsToDeliver.Step first = step("inventory");
        StepsToDeliver.Step second = step("ntp-synchronizer");
        long published = System.nanoTime();
        bed.publishSteps(cluster, infraEnv, host, first, second);
        JsonNode steps = agent.next("steps").get("steps");
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - published);
        assertEquals(first.stepId(), steps.get("instructions").get(0).get("step_id").asText());
        assertEquals(second.stepId(), steps.get("instructions").get(1).get("step_id").asText());
        assertEquals("{\"x\":1}", steps.get("instructions").get(0).get("args").get(0).asText());
        assertEquals("continue", steps.get("post_step_action").asText());
        assertTrue(tookMillis < 5000, "pushed " + tookMillis + " ms after publish");
        // recorded once the server's write completed, which may be just after the client read the message
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!bed.registry.scrape().contains("rdv_gateway_step_delivery_latency_seconds_bucket")
                && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertTrue(bed.counter(GatewayMetrics.STEPS_DELIVERED, "transport", AgentPresence.WEBSOCKET) >= 2);
        assertTrue(bed.registry.scrape().contains("rdv_gateway_step_delivery_latency_seconds_bucket"));

        agent.ws.close();
        bed.awaitEvent(e -> presence(e, host, AgentPresence.DISCONNECTED));
    }

    @Test
    void aReplyIsPublishedThenAcked() throws Exception {
        String infraEnv = newId();
        String host = newId();
        TestBed.AgentSocket agent = bed.open(infraEnv, host, token(infraEnv, null));
        agent.hello();
        agent.send("{\"type\":\"step_reply\",\"reply\":{\"step_type\":\"inventory\",\"step_id\":\"inventory-0badf00d\","
                + "\"exit_code\":0,\"output\":\"{\\\"hostname\\\":\\\"n\u00f6de-\u6771\u4eac\\\"}\",\"error\":\"\"}}");
        assertEquals("inventory-0badf00d", agent.next("ack").get("step_id").asText());
        BusEvent event = bed.awaitEvent(e -> e.payload() instanceof StepReplyReceived && host.equals(e.hostId()));
        assertEquals("inventory-0badf00d", ((StepReplyReceived) event.payload()).stepId());
        // read from the message's UTF-8 bytes: multi-byte text arrives as the agent wrote it
        assertEquals("{\"hostname\":\"n\u00f6de-\u6771\u4eac\"}", ((StepReplyReceived) event.payload()).output());
        assertEquals(infraEnv, event.partitionKey());
        agent.ws.close();
    }

    @Test
    void whileTheServiceIsBehindAReplyIsAckedOnlyOnceLetGo() throws Exception {
        String infraEnv = newId();
        String host = newId();
        TestBed.AgentSocket agent = bed.open(infraEnv, host, token(infraEnv, null));
        agent.hello();
        java.util.concurrent.atomic.AtomicReference<Double> pace = new java.util.concurrent.atomic.AtomicReference<>(3.0);
        try {
            bed.gateway.gateway().pacing(pace::get);
            bed.gateway.gateway().replyHoldMax(java.time.Duration.ofSeconds(30));
            agent.send("{\"type\":\"step_reply\",\"reply\":{\"step_type\":\"inventory\",\"step_id\":\"inventory-held\","
                    + "\"exit_code\":0,\"output\":\"{}\",\"error\":\"\"}}");
            Thread.sleep(600);
            assertEquals(0, bed.countEvents(e -> host.equals(e.hostId()) && e.payload() instanceof StepReplyReceived),
                    "held before the bus");
            pace.set(1.0);
            assertEquals("inventory-held", agent.next("ack").get("step_id").asText());
            bed.awaitEvent(e -> e.payload() instanceof StepReplyReceived && host.equals(e.hostId()));
        } finally {
            bed.gateway.gateway().pacing(() -> 1.0);
            bed.gateway.gateway().replyHoldMax(java.time.Duration.ofMillis(Gateway.DEFAULT_REPLY_HOLD_MS));
            agent.ws.close();
        }
    }

    @Test
    void versionTwoTakesAStepReplyAsABinaryMessageWithItsOutputAfterTheHeader() throws Exception {
        String infraEnv = newId();
        String host = newId();
        TestBed.AgentSocket agent = bed.open(infraEnv, host, token(infraEnv, null));
        agent.send("{\"type\":\"hello\",\"versions\":[1,2],\"agent_version\":\"test\"}");
        assertEquals(2, agent.next("welcome").get("version").asInt(), "the highest version both speak");
        // a report with quotes, backslashes and multi-byte text: carried as its bytes, nothing escaped
        String output = "{\"remote_hosts\":[{\"host_id\":\"x\",\"note\":\"a \\\"quoted\\\" n\u00f6de-\u6771\u4eac\"}]}"
                + " ".repeat(200_000);
        agent.sendBinary("{\"type\":\"step_reply\",\"reply\":{\"step_type\":\"connectivity-check\","
                + "\"step_id\":\"connectivity-check-1\",\"exit_code\":0,\"error\":\"\"}}",
                output.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertEquals("connectivity-check-1", agent.next("ack").get("step_id").asText());
        BusEvent event = bed.awaitEvent(e -> e.payload() instanceof StepReplyReceived r && host.equals(e.hostId())
                && r.stepId().equals("connectivity-check-1"));
        StepReplyReceived reply = (StepReplyReceived) event.payload();
        assertEquals(output, reply.output());
        assertEquals("connectivity-check", reply.stepType());
        // text step replies still work on the same connection
        agent.send("{\"type\":\"step_reply\",\"reply\":{\"step_type\":\"inventory\",\"step_id\":\"inventory-2\","
                + "\"exit_code\":0,\"output\":\"{}\"}}");
        assertEquals("inventory-2", agent.next("ack").get("step_id").asText());

        // what is refused, each with an error, the connection staying up
        agent.sendBinary("{\"type\":\"heartbeat\",\"seq\":1}", new byte[0]);
        assertTrue(agent.next("error").get("reason").asText().contains("step_reply only"));
        agent.sendBinary("{\"type\":\"step_reply\",\"reply\":{\"step_type\":\"inventory\",\"step_id\":\"i-3\","
                + "\"output\":\"inside\"}}", "after".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        JsonNode twice = agent.next("error");
        assertEquals("invalid-reply", twice.get("code").asText());
        assertTrue(twice.get("reason").asText().startsWith("output"), twice.toString());
        agent.sendBinary("{\"type\":\"step_reply\",\"reply\":{\"step_type\":\"inventory\",\"step_id\":\"i-4\"}}",
                new byte[] {'{', (byte) 0xC3, '}'});
        JsonNode notUtf8 = agent.next("error");
        assertEquals("malformed", notUtf8.get("code").asText());
        assertTrue(notUtf8.get("reason").asText().startsWith("output: not UTF-8"), notUtf8.toString());
        TestBed.await(agent.ws.writeBinaryMessage(io.vertx.core.buffer.Buffer.buffer(new byte[] {0, 0, 1, 0, '{', '}'})));
        assertTrue(agent.next("error").get("reason").asText().contains("does not fit"));
        assertFalse(agent.closed.isDone());
        agent.ws.close();
    }

    @Test
    void versionOneRefusesBinaryMessages() throws Exception {
        String infraEnv = newId();
        String host = newId();
        TestBed.AgentSocket agent = bed.open(infraEnv, host, token(infraEnv, null));
        assertEquals(1, agent.hello().get("version").asInt(), "an agent speaking version 1 only");
        agent.sendBinary("{\"type\":\"step_reply\",\"reply\":{\"step_type\":\"inventory\",\"step_id\":\"i-1\"}}",
                "{}".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        JsonNode refused = agent.next("error");
        assertEquals("malformed", refused.get("code").asText());
        assertTrue(refused.get("reason").asText().contains("binary frames are not accepted"), refused.toString());
        agent.ws.close();
    }

    @Test
    void unknownMalformedAndEarlyMessagesGetErrorsAndTheConnectionStaysUsable() throws Exception {
        String infraEnv = newId();
        String host = newId();
        TestBed.AgentSocket agent = bed.open(infraEnv, host, token(infraEnv, null));
        agent.send("{\"type\":\"heartbeat\",\"seq\":1}");
        assertEquals("hello-required", agent.next("error").get("code").asText());
        agent.hello();

        agent.send("{\"type\":\"teleport\",\"where\":\"mars\"}");
        JsonNode unknown = agent.next("error");
        assertEquals("unknown-type", unknown.get("code").asText());
        assertFalse(unknown.get("retryable").asBoolean());

        agent.send("{not json");
        assertEquals("malformed", agent.next("error").get("code").asText());
        agent.send("[1,2,3]");
        assertEquals("malformed", agent.next("error").get("code").asText());
        agent.send("{\"type\":\"step_reply\",\"reply\":{\"step_type\":\"inventory\"}}");
        JsonNode invalid = agent.next("error");
        assertEquals("invalid-reply", invalid.get("code").asText());
        assertTrue(invalid.get("reason").asText().startsWith("step_id"));

        agent.send("{\"type\":\"step_reply\",\"reply\":{\"step_type\":\"inventory\",\"step_id\":\"inventory-still-ok\"}}");
        assertEquals("inventory-still-ok", agent.next("ack").get("step_id").asText());
        assertFalse(agent.closed.isDone());
        assertTrue(bed.counter(GatewayMetrics.MESSAGES_REJECTED, "reason", GatewayMetrics.REASON_UNKNOWN_TYPE) >= 1);
        agent.ws.close();
    }

    @Test
    void aMessageOverTheLimitIsRefusedWithFrameTooLargeAndTheConnectionStays() throws Exception {
        String infraEnv = newId();
        String host = newId();
        TestBed.AgentSocket agent = bed.open(infraEnv, host, token(infraEnv, null));
        agent.hello();
        String big = "{\"type\":\"step_reply\",\"reply\":{\"step_type\":\"inventory\",\"step_id\":\"inventory-huge\",\"output\":\""
                + "d".repeat(5 * 1024 * 1024) + "\"}}";
        agent.send(big);
        JsonNode error = agent.next("error");
        assertEquals("frame-too-large", error.get("code").asText());
        // the same refused when it comes as many small frames of one message
        String half = "d".repeat(3 * 1024 * 1024);
        await(agent.ws.writeFrame(WebSocketFrame.textFrame("{\"type\":\"step_reply\",\"reply\":{\"output\":\"" + half, false)));
        await(agent.ws.writeFrame(WebSocketFrame.continuationFrame(Buffer.buffer(half), false)));
        await(agent.ws.writeFrame(WebSocketFrame.continuationFrame(Buffer.buffer("\"}}"), true)));
        assertEquals("frame-too-large", agent.next("error").get("code").asText());
        agent.send("{\"type\":\"step_reply\",\"reply\":{\"step_type\":\"inventory\",\"step_id\":\"inventory-after-huge\"}}");
        assertEquals("inventory-after-huge", agent.next("ack").get("step_id").asText());
        assertEquals(0, bed.countEvents(e -> e.payload() instanceof StepReplyReceived r && "inventory-huge".equals(r.stepId())));
        agent.ws.close();
    }

    @Test
    void noCommonVersionIsAnErrorThenClose1002() throws Exception {
        String infraEnv = newId();
        TestBed.AgentSocket agent = bed.open(infraEnv, newId(), token(infraEnv, null));
        agent.send("{\"type\":\"hello\",\"versions\":[7,8],\"agent_version\":\"future\"}");
        JsonNode error = agent.next("error");
        assertEquals("unsupported-version", error.get("code").asText());
        assertEquals(1, error.get("supported").get(0).asInt());
        assertEquals((short) 1002, agent.closed.get(10, TimeUnit.SECONDS));
    }

    @Test
    void theUpgradeIsRefused401Or403WithoutTheRightToken() throws Exception {
        String infraEnv = newId();
        String host = newId();
        for (String token : new String[] {null, "rdv1.garbage.garbage", token(newId(), null)}) {
            ExecutionException refused = assertThrows(ExecutionException.class,
                    () -> await(bed.connect(bed.port, infraEnv, host, token)));
            UpgradeRejectedException rejected = assertInstanceOf(UpgradeRejectedException.class, refused.getCause());
            assertEquals(token != null && token.startsWith("rdv1.g") || token == null ? 401 : 403, rejected.getStatus());
        }
    }

    @Test
    void aNewerSocketOfTheSameHostReplacesTheOlderOneAndIsAnnounced() throws Exception {
        String infraEnv = newId();
        String host = newId();
        String token = token(infraEnv, null);
        TestBed.AgentSocket first = bed.open(infraEnv, host, token);
        first.hello();
        bed.awaitEvent(e -> presence(e, host, AgentPresence.CONNECTED));
        TestBed.AgentSocket second = bed.open(infraEnv, host, token);
        second.hello();
        assertEquals((short) 4000, first.closed.get(10, TimeUnit.SECONDS));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (bed.countEvents(e -> presence(e, host, AgentPresence.CONNECTED)) < 2 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertEquals(2, bed.countEvents(e -> presence(e, host, AgentPresence.CONNECTED)));
        StepsToDeliver.Step step = step("inventory");
        bed.publishSteps(null, infraEnv, host, step);
        assertEquals(step.stepId(), second.next("steps").get("steps").get("instructions").get(0).get("step_id").asText());
        Thread.sleep(200);
        assertEquals(0, bed.countEvents(e -> presence(e, host, AgentPresence.DISCONNECTED)),
                "a replaced socket is not a disconnection");
        second.ws.close();
    }
}
