package dev.rendezvous.gateway;

import dev.rendezvous.bus.BusEvent;
import dev.rendezvous.bus.event.StepsToDeliver;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Latest wins: of several plans for one host that it has not received yet, it needs only the newest, plus the
 * one-shot steps of older ones (install, logs, stop, ...) that the newest does not repeat, which must run once
 * whatever came after. A host polling after any number of plan changes gets one current step set.
 */
final class PlanCoalescing {

    /** Steps that act once rather than report a state: kept until delivered, even when a newer plan lacks them. */
    static final Set<String> ONE_SHOT = Set.of("install", "logs-gather", "stop-installation", "upgrade-agent",
            "reboot-for-reclaim", "download-boot-artifacts");

    private PlanCoalescing() {
    }

    /** {@code older} then {@code newer} as one event (the newer's envelope). */
    static BusEvent coalesce(BusEvent older, BusEvent newer) {
        return coalesce(List.of(older, newer));
    }

    /** Plans for one host, oldest first, as the one plan to deliver. */
    static BusEvent coalesce(List<BusEvent> plans) {
        if (plans.size() == 1) {
            return plans.get(0);
        }
        BusEvent latest = plans.get(plans.size() - 1);
        StepsToDeliver newest = (StepsToDeliver) latest.payload();
        Set<String> types = new HashSet<>();
        newest.instructions().forEach(s -> types.add(s.stepType()));
        Map<String, StepsToDeliver.Step> carried = new LinkedHashMap<>();
        for (BusEvent e : plans.subList(0, plans.size() - 1)) {
            for (StepsToDeliver.Step s : ((StepsToDeliver) e.payload()).instructions()) {
                if (ONE_SHOT.contains(s.stepType()) && !types.contains(s.stepType())) {
                    carried.put(s.stepType(), s); // the latest one of its type
                }
            }
        }
        if (carried.isEmpty()) {
            return latest;
        }
        List<StepsToDeliver.Step> steps = new ArrayList<>(carried.values());
        steps.addAll(newest.instructions());
        return new BusEvent(latest.eventId(), latest.occurredAt(), latest.clusterId(), latest.infraEnvId(),
                latest.hostId(), latest.payloadVersion(),
                new StepsToDeliver(newest.nextInstructionSeconds(), newest.postStepAction(), steps));
    }
}
