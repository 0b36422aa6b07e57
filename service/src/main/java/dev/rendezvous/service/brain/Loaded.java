package dev.rendezvous.service.brain;

import java.time.OffsetDateTime;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/**
 * What the store read for one key, as cached between units of work. {@code cluster} is null for unbound
 * hosts. The host aggregate (count, sum of row versions, latest check-in) is what a unit of work re-checks
 * inside its transaction: any write by someone else since (a new, deleted, changed or checked-in host)
 * makes it differ, the transaction aborts and the key is read again.
 */
record Loaded(
    WorkKey key,
    String tenant,
    ClusterRecord cluster,
    Map<UUID, HostRecord> hosts,
    Map<UUID, Boolean> staticNetworking) {

  Loaded {
    hosts = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(hosts));
    staticNetworking = Map.copyOf(staticNetworking);
  }

  int hostCount() {
    return hosts.size();
  }

  /** The latest checked_in_at of the hosts (null when none checked in). */
  OffsetDateTime latestCheckIn() {
    java.time.Instant max = null;
    for (HostRecord h : hosts.values()) {
      java.time.Instant t = h.snapshot().checkedInAt();
      if (t != null && (max == null || t.isAfter(max))) {
        max = t;
      }
    }
    return SnapshotMapper.offset(max);
  }

  long versionSum() {
    long s = 0;
    for (HostRecord h : hosts.values()) {
      s += h.rowVersion();
    }
    return s;
  }
}
