package dev.rendezvous.service.brain;

import dev.rendezvous.service.domain.cluster.ClusterStatus;
import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.host.HostStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;

/**
 * Which keys and hosts the monitor's passes between its full ones must look at. Clock-driven rules (timeouts of
 * preparation, installation, logs) apply only outside the resting states; a resting host only needs a look when its
 * check-in is about to time out or its plan may be due. Before, every pass that found one plan due (in a 50-host
 * cluster, nearly every 5 s pass: each host's minute ends at its own time) re-validated all hosts and recomputed the
 * majority groups (an idle fleet of 20 such clusters: 3.7 host evaluations per host per minute, 1.9 now).
 */
final class RestingKeys {

  static final Set<HostStatus> RESTING_HOSTS = EnumSet.of(HostStatus.DISCOVERING,
      HostStatus.KNOWN, HostStatus.INSUFFICIENT, HostStatus.PENDING_FOR_INPUT, HostStatus.DISCONNECTED,
      HostStatus.DISCOVERING_UNBOUND, HostStatus.KNOWN_UNBOUND, HostStatus.INSUFFICIENT_UNBOUND,
      HostStatus.DISCONNECTED_UNBOUND, HostStatus.INSTALLED, HostStatus.ADDED_TO_EXISTING_CLUSTER);
  static final Set<ClusterStatus> RESTING_CLUSTERS = EnumSet.of(ClusterStatus.INSUFFICIENT, ClusterStatus.READY,
      ClusterStatus.PENDING_FOR_INPUT, ClusterStatus.INSTALLED, ClusterStatus.ADDING_HOSTS);

  private RestingKeys() {
  }

  /** The hosts a clock may move within the interval: all of them unless the key rests. */
  static List<UUID> clockDriven(Work w, long intervalMillis, Duration disconnection) {
    if (w.cluster() != null && !RESTING_CLUSTERS.contains(w.cluster().status())) {
      return w.hostIds();
    }
    Instant soon = w.seen.plusMillis(intervalMillis);
    List<UUID> out = new ArrayList<>();
    for (UUID id : w.hostIds()) {
      HostSnapshot h = w.host(id);
      if (!RESTING_HOSTS.contains(h.status())) {
        return w.hostIds();
      }
      if (!quiet(h) && (h.checkedInAt() == null || !soon.isBefore(h.checkedInAt().plus(disconnection)))) {
        out.add(id);
      }
    }
    return out;
  }

  /**
   * Whether a cached key needs a monitor pass: a cluster or host in a state with clock-driven rules (preparing,
   * installing, logs, ...), a host whose check-in (the row's or one recorded since) is about to time out, or a plan
   * that may be due.
   */
  static boolean needsPass(WorkKey key, Loaded l, Instant now, Instant seen, long intervalMillis,
      Duration disconnection, CheckIns checkIns, Function<HostSnapshot, PushMark> lastPush) {
    if (l.cluster() != null && !RESTING_CLUSTERS.contains(l.cluster().context().status())) {
      return true;
    }
    Instant soon = now.plusMillis(intervalMillis);
    Instant silentBy = seen.plusMillis(intervalMillis); // silence is judged where the key's events are handled through
    for (HostRecord r : l.hosts().values()) {
      HostSnapshot h = r.snapshot();
      if (!RESTING_HOSTS.contains(h.status())) {
        return true;
      }
      Instant in = h.checkedInAt();
      Instant recorded = checkIns.of(key, h.id());
      if (recorded != null && (in == null || recorded.isAfter(in))) {
        in = recorded;
      }
      if (!quiet(h) && (in == null || !silentBy.isBefore(in.plus(disconnection)))) {
        return true;
      }
      PushMark m = lastPush.apply(h);
      if (m == null || !soon.isBefore(m.pushedAt().plusSeconds(PushRules.SHORTEST_PLAN_SECONDS))) {
        return true;
      }
    }
    return false;
  }

  private static boolean quiet(HostSnapshot h) {
    return h.status() == HostStatus.DISCONNECTED || h.status() == HostStatus.DISCONNECTED_UNBOUND;
  }
}
