package dev.rendezvous.service.brain;

import dev.rendezvous.bus.BusEvent;
import dev.rendezvous.bus.event.AgentPresence;
import dev.rendezvous.service.domain.host.HostStatus;
import io.vertx.core.Future;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Presence events of the gateways. Check-ins move checked_in_at (no row version bump: not a state change), all of a batch's in one
 * statement and outside the keys' lanes, so a busy cluster's units never hold them back; the keys' next units fold
 * them in ({@link CheckIns}). A disconnected host is then refreshed at once; a (re)connection also re-plans and
 * pushes the host's steps, as it may have missed some. A disconnection is decided by the monitor's timeout, not
 * by one event.
 */
final class BrainPresence {

  private final Brain brain;
  private final EventRouting routing;
  private final BrainStore store;
  private final BrainCache cache;
  private final PlanPublisher publisher;

  BrainPresence(Brain brain, EventRouting routing, BrainStore store, BrainCache cache, PlanPublisher publisher) {
    this.brain = brain;
    this.publisher = publisher;
    this.routing = routing;
    this.store = store;
    this.cache = cache;
  }

  Future<Void> handle(List<BusEvent> events) {
    List<BusEvent> live = new ArrayList<>();
    List<Future<Optional<WorkKey>>> keys = new ArrayList<>();
    for (BusEvent e : events) {
      UUID host = Brain.uuid(e.hostId());
      UUID infraEnv = Brain.uuid(e.infraEnvId());
      if (e.payload() instanceof AgentPresence p && host != null && infraEnv != null) {
        // the gateway that holds the host now says whether it fills in shared connectivity targets
        publisher.gatewayOf(new HostKey(infraEnv, host), p.fillsSharedTargets());
      }
      if (e.payload() instanceof AgentPresence p && host != null && infraEnv != null
          && !AgentPresence.DISCONNECTED.equals(p.state())) {
        live.add(e);
        keys.add(routing.keyFor(e));
      }
    }
    if (live.isEmpty()) {
      return Future.succeededFuture();
    }
    return Future.all(keys).compose(v -> {
      Map<UUID, BrainStore.CheckIn> latest = new java.util.HashMap<>();
      Map<UUID, WorkKey> keyOf = new java.util.HashMap<>();
      for (int i = 0; i < live.size(); i++) {
        Optional<WorkKey> k = keys.get(i).result();
        if (k.isEmpty()) {
          continue; // the host or its infra-env is gone
        }
        BusEvent e = live.get(i);
        UUID hostId = Brain.uuid(e.hostId());
        Instant at = Brain.micros(e.occurredAt());
        keyOf.put(hostId, k.get());
        latest.merge(hostId, new BrainStore.CheckIn(hostId, Brain.uuid(e.infraEnvId()), at, at.getEpochSecond()),
            (a, b) -> a.at().isAfter(b.at()) ? a : b);
      }
      return store.touch(latest.values()).compose(moved -> {
        for (UUID hostId : moved) {
          WorkKey key = keyOf.get(hostId);
          // no wrote(key): a check-in moves no version, and marking it kept the monitor from ever cross-checking a key
          // whose hosts poll every few seconds
          cache.checkIns().record(key, hostId, latest.get(hostId).at());
        }
        List<Future<?>> runs = new ArrayList<>();
        java.util.Set<UUID> refreshed = new java.util.HashSet<>();
        for (int i = 0; i < live.size(); i++) {
          BusEvent e = live.get(i);
          UUID hostId = Brain.uuid(e.hostId());
          WorkKey key = keyOf.get(hostId);
          if (key == null) {
            continue;
          }
          if (AgentPresence.CONNECTED.equals(((AgentPresence) e.payload()).state())) {
            runs.add(brain.run(key, e.eventId(), w -> {
              w.forcePush(hostId);
              brain.rules().settle(w, List.of(hostId));
            }));
          } else if (moved.contains(hostId) && refreshed.add(hostId) && cache.cachedHost(key, hostId).map(h ->
              h.status() == HostStatus.DISCONNECTED || h.status() == HostStatus.DISCONNECTED_UNBOUND).orElse(false)) {
            runs.add(brain.run(key, null, w -> brain.rules().settle(w, List.of(hostId))));
          }
        }
        return Future.all(runs).mapEmpty();
      });
    });
  }
}
