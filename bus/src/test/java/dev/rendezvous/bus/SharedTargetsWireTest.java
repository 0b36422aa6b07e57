package dev.rendezvous.bus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rendezvous.bus.event.AgentPresence;
import dev.rendezvous.bus.event.StepsToDeliver;
import dev.rendezvous.bus.event.StepsToDeliver.Step;
import dev.rendezvous.bus.event.StepsToDeliver.Target;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A cluster's shared connectivity targets on the bus, and plans completed with them; read by the previous release. */
class SharedTargetsWireTest {
    private static final String CLUSTER = "c0000000-0000-0000-0000-000000000001";
    private static final List<Target> TARGETS = List.of(new Target("h1", "{\"a\":1}"), new Target("h2", "{\"a\":2}"),
            new Target("h3", "{\"a\":3}"));

    @Test
    void aMarkedStepGetsEveryTargetButTheHostsOwnInOrderAndOthersStayAsTheyAre() {
        StepsToDeliver plan = new StepsToDeliver(60, StepsToDeliver.CONTINUE, List.of(
                new Step("inventory", "i-1", List.of("x")),
                new Step("connectivity-check", "c-1", List.of(), true)));
        StepsToDeliver done = plan.withTargets("h2", TARGETS);
        assertEquals(List.of("x"), done.instructions().get(0).args());
        assertEquals(List.of("[{\"a\":1},{\"a\":3}]"), done.instructions().get(1).args());
        assertFalse(done.usesSharedTargets(), "what the agent gets names no shared targets");
        assertEquals(List.of("inventory"), plan.withTargets("h1", List.of(new Target("h1", "{}"))).instructions().stream()
                .map(Step::stepType).toList(), "no peer but itself: no check");
        assertEquals(List.of("inventory"), plan.withTargets("h1", null).instructions().stream()
                .map(Step::stepType).toList(), "no targets known: the check waits for the next plan");
        StepsToDeliver plain = new StepsToDeliver(60, StepsToDeliver.CONTINUE, List.of(new Step("inventory", "i", List.of())));
        assertTrue(plain == plain.withTargets("h1", TARGETS), "an unmarked plan is left alone");
    }

    @Test
    void targetsAndMarksRoundTripAndAPlanWithoutThemWritesNeither() throws Exception {
        BusEvent targets = BusEvent.of(CLUSTER, null, null, StepsToDeliver.targets(TARGETS));
        assertEquals(targets, BusCodec.decode(BusCodec.encode(targets)));
        BusEvent marked = BusEvent.of(CLUSTER, "e1", "h1", new StepsToDeliver(60, StepsToDeliver.CONTINUE,
                List.of(new Step("connectivity-check", "c", List.of(), true))));
        BusEvent back = BusCodec.decode(BusCodec.encode(marked));
        assertEquals(marked, back);
        assertTrue(((StepsToDeliver) back.payload()).usesSharedTargets());

        BusEvent plain = BusEvent.of(CLUSTER, "e1", "h1", new StepsToDeliver(60, StepsToDeliver.CONTINUE,
                List.of(new Step("connectivity-check", "c", List.of("[]")))));
        String text = new String(BusCodec.encode(plain), StandardCharsets.UTF_8);
        assertFalse(text.contains("shared_targets") || text.contains("connectivity_targets"),
                "the previous release's plans, byte for byte in shape: " + text);
        JsonNode json = BusCodec.mapper().readTree(BusCodec.encode(plain));
        assertEquals(1, json.path("payload_version").asInt(), "a nullable field added: the same version");
    }

    @Test
    void aPresenceOrRegistrationSaysWhetherItsGatewayFillsTargetsInAndThePreviousReleasesSaysNothing() throws Exception {
        AgentPresence now = new AgentPresence(AgentPresence.CHECKED_IN, AgentPresence.HTTP, "gw", "v1", true);
        BusEvent e = BusCodec.decode(BusCodec.encode(BusEvent.of(CLUSTER, "e1", "h1", now)));
        assertTrue(((AgentPresence) e.payload()).fillsSharedTargets());
        // the previous release's presence, as it wrote it
        String old = "{\"event_id\":\"x\",\"occurred_at\":\"2026-11-01T00:00:00Z\",\"cluster_id\":\"" + CLUSTER
                + "\",\"infra_env_id\":\"e1\",\"host_id\":\"h1\",\"payload_version\":1,\"payload\":{\"type\":"
                + "\"agent_presence\",\"state\":\"checked-in\",\"transport\":\"http\",\"gateway_id\":\"gw\"}}";
        AgentPresence before = (AgentPresence) BusCodec.decode(old.getBytes(StandardCharsets.UTF_8)).payload();
        assertFalse(before.fillsSharedTargets());
        assertNull(before.readsSharedTargets());
        // a registration says it too (the first presence comes a check-in interval later)
        dev.rendezvous.bus.event.HostRegistered r = new dev.rendezvous.bus.event.HostRegistered("h1", "e1", CLUSTER,
                "v1", AgentPresence.HTTP, true);
        assertTrue(((dev.rendezvous.bus.event.HostRegistered) BusCodec.decode(BusCodec.encode(
                BusEvent.of(CLUSTER, "e1", "h1", r))).payload()).fillsSharedTargets());
        assertFalse(new dev.rendezvous.bus.event.HostRegistered("h1", "e1", CLUSTER, "v1", AgentPresence.HTTP)
                .fillsSharedTargets(), "the previous release's registration");
    }
}
