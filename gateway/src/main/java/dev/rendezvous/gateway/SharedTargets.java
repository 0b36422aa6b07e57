package dev.rendezvous.gateway;

import dev.rendezvous.bus.BusEvent;
import dev.rendezvous.bus.event.StepsToDeliver;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The latest shared connectivity targets of each cluster, as the service published them ({@link StepsToDeliver}'s
 * host-less records), and the plans of its hosts completed with them. A cluster's targets come on the same partition as
 * its plans and before them, so a plan finds the targets it was made with or newer ones. A cluster's targets not renewed
 * for a while are forgotten (a deleted cluster's): the service publishes them again with a plan once they are a minute
 * old.
 */
final class SharedTargets {
    /** Targets not renewed for this long are dropped. */
    static final long IDLE_NANOS = java.util.concurrent.TimeUnit.MINUTES.toNanos(15);

    private record Held(List<StepsToDeliver.Target> targets, long touchedNanos) {}

    private final ConcurrentHashMap<String, Held> byCluster = new ConcurrentHashMap<>();

    /** Takes a cluster's targets record; false when {@code event} is not one. */
    boolean offer(BusEvent event, long nowNanos) {
        if (event.hostId() != null || event.clusterId() == null
                || !(event.payload() instanceof StepsToDeliver s) || s.connectivityTargets() == null) {
            return false;
        }
        byCluster.put(event.clusterId(), new Held(s.connectivityTargets(), nowNanos));
        return true;
    }

    /**
     * The plan as its agent gets it: steps marked {@code shared_targets} get the cluster's targets but the host's own;
     * without targets known here such a step is left out (the next plan brings it). Other plans are returned as they are.
     */
    BusEvent complete(BusEvent plan) {
        if (!(plan.payload() instanceof StepsToDeliver s) || !s.usesSharedTargets()) {
            return plan;
        }
        Held held = plan.clusterId() == null ? null : byCluster.get(plan.clusterId());
        return new BusEvent(plan.eventId(), plan.occurredAt(), plan.clusterId(), plan.infraEnvId(), plan.hostId(),
                plan.payloadVersion(), s.withTargets(plan.hostId(), held == null ? null : held.targets()));
    }

    /** Forgets the targets idle for {@link #IDLE_NANOS}. */
    void sweep(long nowNanos) {
        byCluster.values().removeIf(h -> nowNanos - h.touchedNanos() > IDLE_NANOS);
    }

    int clusters() {
        return byCluster.size();
    }
}
