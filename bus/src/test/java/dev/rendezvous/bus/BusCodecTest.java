package dev.rendezvous.bus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rendezvous.bus.event.BusPayload;
import dev.rendezvous.bus.event.ClusterActionRequested;
import dev.rendezvous.bus.event.StepReplyReceived;
import dev.rendezvous.bus.event.UnknownPayload;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class BusCodecTest {

    @Test
    void everyPayloadTypeRoundTripsWithItsTypeNameAndVersion() throws Exception {
        Set<String> types = new HashSet<>();
        for (BusPayload payload : SamplePayloads.all()) {
            BusEvent event = SamplePayloads.eventFor(payload);
            byte[] bytes = BusCodec.encode(event);
            assertEquals(event, BusCodec.decode(bytes));
            JsonNode json = BusCodec.mapper().readTree(bytes);
            assertEquals(payload.typeName(), json.path("payload").path("type").asText());
            assertEquals(1, json.path("payload_version").asInt());
            types.add(payload.typeName());
            // every payload type has its own topic
            Topics.topicFor(payload.getClass());
        }
        // every payload type of the sealed interface (but the unknown-type fallback) is sampled
        assertEquals(BusPayload.class.getPermittedSubclasses().length - 1, types.size());
    }

    @Test
    void wireNamesAreSnakeCaseAsUpstream() throws Exception {
        BusEvent event = SamplePayloads.eventFor(
                new StepReplyReceived("inventory", "inventory-0a1b2c3d", 3, "{}", "boom"));
        JsonNode json = BusCodec.mapper().readTree(BusCodec.encode(event));
        assertEquals(event.eventId(), json.path("event_id").asText());
        assertEquals(event.occurredAt().toString(), json.path("occurred_at").asText());
        assertEquals(SamplePayloads.INFRA_ENV, json.path("infra_env_id").asText());
        JsonNode payload = json.path("payload");
        assertEquals("step_reply_received", payload.path("type").asText());
        assertEquals("inventory-0a1b2c3d", payload.path("step_id").asText());
        assertEquals(3, payload.path("exit_code").asInt());
        assertEquals("{}", payload.path("output").asText());
    }

    @Test
    void partitionKeyIsClusterElseInfraEnv() {
        assertEquals("c", BusEvent.partitionKey("c", "i"));
        assertEquals("i", BusEvent.partitionKey(null, "i"));
        BusEvent unbound = BusEvent.of(null, "i", "h",
                new StepReplyReceived("inventory", "inventory-1", 0, "{}", null));
        assertEquals("i", unbound.partitionKey());
        assertThrows(IllegalArgumentException.class, () -> BusEvent.of(null, null, "h",
                new StepReplyReceived("inventory", "inventory-1", 0, "{}", null)));
    }

    @Test
    void unknownPayloadTypeDecodesAsUnknownAndUnknownFieldsAreIgnored() {
        String json = "{\"event_id\":\"e1\",\"occurred_at\":\"2025-01-01T00:00:00Z\",\"cluster_id\":\"c\","
                + "\"payload_version\":4,\"future_field\":1,"
                + "\"payload\":{\"type\":\"host_teleported\",\"where\":\"mars\"}}";
        BusEvent event = BusCodec.decode(json.getBytes(StandardCharsets.UTF_8));
        UnknownPayload unknown = assertInstanceOf(UnknownPayload.class, event.payload());
        assertEquals("host_teleported", unknown.type());
        assertEquals(4, event.payloadVersion());
        assertNull(event.hostId());
    }

    @Test
    void garbageFailsWithAClearMessage() {
        BusCodec.BusCodecException notJson = assertThrows(BusCodec.BusCodecException.class,
                () -> BusCodec.decode(new byte[] {(byte) 0xff, 0x00, 0x13}));
        assertTrue(notJson.getMessage().startsWith("not a bus event"), notJson.getMessage());
        BusCodec.BusCodecException noKey = assertThrows(BusCodec.BusCodecException.class, () -> BusCodec.decode(
                ("{\"event_id\":\"e1\",\"occurred_at\":\"2025-01-01T00:00:00Z\","
                        + "\"payload\":{\"type\":\"cluster_action_requested\",\"action\":\"install\"}}")
                        .getBytes(StandardCharsets.UTF_8)));
        assertTrue(noKey.getMessage().contains("cluster_id or infra_env_id"), noKey.getMessage());
        BusCodec.BusCodecException noStepId = assertThrows(BusCodec.BusCodecException.class, () -> BusCodec.decode(
                ("{\"event_id\":\"e1\",\"occurred_at\":\"2025-01-01T00:00:00Z\",\"cluster_id\":\"c\","
                        + "\"payload\":{\"type\":\"step_reply_received\",\"step_type\":\"inventory\"}}")
                        .getBytes(StandardCharsets.UTF_8)));
        assertTrue(noStepId.getMessage().contains("step_id"), noStepId.getMessage());
        assertThrows(BusCodec.BusCodecException.class, () -> BusCodec.decode(new byte[0]));
        assertThrows(BusCodec.BusCodecException.class,
                () -> BusCodec.decode("null".getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void aLargeStepOutputTravelsAfterTheEnvelopeUnescapedAndComesBackWhole() {
        StringBuilder b = new StringBuilder("{\"remote_hosts\":[");
        for (int i = 0; i < 200; i++) {
            b.append(i == 0 ? "" : ",").append("{\"host_id\":\"h-").append(i).append("\",\"note\":\"caf\u00e9 \\\"q\\\" \uD83D\uDE80\"}");
        }
        String output = b.append("]}").toString();
        BusEvent event = BusEvent.of("c1", "ie1", "h1", new StepReplyReceived("connectivity-check", "s-1", 0, output, "warn"));
        byte[] framed = BusCodec.encode(event);
        assertEquals(0, framed[0], "attached form");
        byte[] asJson;
        try {
            asJson = BusCodec.mapper().writeValueAsBytes(event);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new AssertionError(e);
        }
        assertTrue(framed.length < asJson.length, framed.length + " bytes attached vs " + asJson.length + " escaped");
        assertEquals(event, BusCodec.decode(framed));
        assertEquals(event, BusCodec.decode(asJson), "records written before the attached form still decode");

        BusEvent small = BusEvent.of("c1", null, "h1", new StepReplyReceived("ntp-synchronizer", "s-2", 0, "{}", null));
        byte[] plain = BusCodec.encode(small);
        assertEquals('{', plain[0], "a short output stays inside one JSON document");
        assertEquals(small, BusCodec.decode(plain));
        BusEvent none = BusEvent.of("c1", null, "h1", new StepReplyReceived("inventory", "s-3", 1, null, "failed"));
        assertEquals(none, BusCodec.decode(BusCodec.encode(none)));
    }

    @Test
    void aCutOrForeignAttachedRecordFailsWithAClearMessage() {
        String output = "x".repeat(BusCodec.ATTACH_FROM);
        byte[] framed = BusCodec.encode(BusEvent.of("c1", null, "h1", new StepReplyReceived("inventory", "s", 0, output, null)));
        BusCodec.BusCodecException cut = assertThrows(BusCodec.BusCodecException.class,
                () -> BusCodec.decode(java.util.Arrays.copyOf(framed, 20)));
        assertTrue(cut.getMessage().startsWith("not a bus event"), cut.getMessage());
        byte[] envelope = BusCodec.encode(BusEvent.of("c1", null, null,
                new ClusterActionRequested("install", null)));
        byte[] foreign = java.nio.ByteBuffer.allocate(5 + envelope.length + 2).put((byte) 0).putInt(envelope.length)
                .put(envelope).put((byte) 'h').put((byte) 'i').array();
        BusCodec.BusCodecException notAReply = assertThrows(BusCodec.BusCodecException.class, () -> BusCodec.decode(foreign));
        assertTrue(notAReply.getMessage().contains("step reply"), notAReply.getMessage());
    }
}
