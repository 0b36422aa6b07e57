package dev.rendezvous.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.bus.BusEvent;
import dev.rendezvous.bus.event.StepsToDeliver;
import dev.rendezvous.bus.event.StepsToDeliver.Step;
import dev.rendezvous.bus.event.StepsToDeliver.Target;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Plans completed with the latest targets of their cluster this gateway read. */
class SharedTargetsTest {
    private static final String CLUSTER = "c0000000-0000-0000-0000-000000000001";

    private static BusEvent plan(String host) {
        return BusEvent.of(CLUSTER, "e1", host, new StepsToDeliver(60, StepsToDeliver.CONTINUE, List.of(
                new Step("ntp-synchronizer", "n", List.of("{}")),
                new Step("connectivity-check", "c", List.of(), true))));
    }

    private static List<String> args(BusEvent e) {
        return ((StepsToDeliver) e.payload()).instructions().stream().map(s -> s.stepType() + "=" + s.args()).toList();
    }

    @Test
    void aPlanGetsTheLatestTargetsOfItsClusterButItsOwnAndWaitsForThemWhenNoneCame() {
        SharedTargets shared = new SharedTargets();
        assertEquals(List.of("ntp-synchronizer=[{}]"), args(shared.complete(plan("h1"))), "none read yet");
        assertTrue(shared.offer(BusEvent.of(CLUSTER, null, null, StepsToDeliver.targets(List.of(
                new Target("h1", "1"), new Target("h2", "2")))), 0));
        assertFalse(shared.offer(plan("h1"), 0), "a plan is not targets");
        assertEquals(List.of("ntp-synchronizer=[{}]", "connectivity-check=[[2]]"), args(shared.complete(plan("h1"))));
        shared.offer(BusEvent.of(CLUSTER, null, null, StepsToDeliver.targets(List.of(
                new Target("h1", "1"), new Target("h2", "2"), new Target("h3", "3")))), 10);
        assertEquals(List.of("ntp-synchronizer=[{}]", "connectivity-check=[[1,3]]"), args(shared.complete(plan("h2"))));
        BusEvent other = BusEvent.of("c2", "e1", "h9", new StepsToDeliver(60, StepsToDeliver.CONTINUE, List.of(
                new Step("connectivity-check", "c", List.of(), true))));
        assertEquals(List.of(), args(shared.complete(other)), "another cluster's targets are not these");
        BusEvent unmarked = BusEvent.of(CLUSTER, "e1", "h1", new StepsToDeliver(60, StepsToDeliver.CONTINUE, List.of()));
        assertSame(unmarked, shared.complete(unmarked));

        shared.sweep(10 + SharedTargets.IDLE_NANOS - 1);
        assertEquals(1, shared.clusters(), "renewed within the idle time: kept");
        shared.sweep(11 + SharedTargets.IDLE_NANOS);
        assertEquals(0, shared.clusters(), "not renewed for the idle time: forgotten");
    }
}
