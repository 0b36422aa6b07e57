package dev.rendezvous.service.brain;

import dev.rendezvous.service.domain.host.HostSnapshot;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Check-ins written to the hosts' rows but not yet in their key's cached state. A check-in only moves
 * checked_in_at and the host clock, so it does not wait in the key's lane behind units of work (a 1,000-host
 * cluster's units once held check-ins back past the disconnection timeout): it is written at once and recorded
 * here, and the key's next unit folds it into the state it starts from. Safe from any thread.
 */
final class CheckIns {
  private final Map<WorkKey, Map<UUID, Instant>> pending = new ConcurrentHashMap<>();

  /** A check-in already written to the host's row (the row is never older than what is recorded here). */
  void record(WorkKey key, UUID hostId, Instant at) {
    pending.computeIfAbsent(key, k -> new ConcurrentHashMap<>()).merge(hostId, at, (a, b) -> a.isAfter(b) ? a : b);
  }

  /**
   * {@code l} with the key's recorded check-ins that are newer than its hosts' (the same object when none is).
   * The rows as stored are kept: the folded values are already in them.
   */
  Loaded foldInto(Loaded l) {
    Map<UUID, Instant> p = pending.get(l.key());
    if (p == null || p.isEmpty()) {
      return l;
    }
    Map<UUID, HostRecord> hosts = null;
    for (Map.Entry<UUID, Instant> e : p.entrySet()) {
      Instant at = e.getValue();
      p.remove(e.getKey(), at); // a newer one recorded meanwhile stays for the next unit
      HostRecord r = l.hosts().get(e.getKey());
      if (r == null) {
        continue; // not (or no longer) in this key: its row has it, a load reads it
      }
      HostSnapshot s = r.snapshot();
      if (s.checkedInAt() != null && !at.isAfter(s.checkedInAt())) {
        continue;
      }
      if (hosts == null) {
        hosts = new LinkedHashMap<>();
      }
      // the row as stored is left as it is: BrainStore.TOUCH wrote this check-in and clock already
      hosts.put(e.getKey(), r.withSnapshot(s.toBuilder().checkedInAt(at)
          .hostTimestamp(Math.max(s.hostTimestamp(), at.getEpochSecond())).build()));
    }
    // the table advanced by the hosts that checked in, not copied (a polling fleet folds some in before most units)
    if (hosts == null) {
      return l;
    }
    dev.rendezvous.service.domain.cluster.ClusterContext view = l.view();
    if (view != null) {
      // one copy of the view's host list for all the check-ins folded (a polling 1,000-host cluster folds hundreds)
      view = view.withHostsReplaced(hosts.values().stream().map(HostRecord::snapshot).toList());
    }
    return new Loaded(l.key(), l.tenant(), l.cluster(), l.hostTable().with(hosts), l.staticNetworking(), l.stored(),
        l.hostsVersion(), l.planFloor(), view);
  }

  /** The host's latest recorded check-in not yet folded (null when none). */
  Instant of(WorkKey key, UUID hostId) {
    Map<UUID, Instant> p = pending.get(key);
    return p == null ? null : p.get(hostId);
  }

  /** The key's latest recorded check-in not yet folded (null when none). */
  Instant latest(WorkKey key) {
    Map<UUID, Instant> p = pending.get(key);
    Instant max = null;
    if (p != null) {
      for (Instant t : p.values()) {
        if (max == null || t.isAfter(max)) {
          max = t;
        }
      }
    }
    return max;
  }

  void clear() {
    pending.clear();
  }
}
