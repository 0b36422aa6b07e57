package dev.rendezvous.service.brain;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/**
 * What the store read for one key, as cached between units of work. {@code cluster} is null for unbound
 * hosts. {@code hostsVersion} is the key's version as read before its hosts (the database bumps it on every
 * write to them): a unit of work checks and bumps it inside its transaction, so any write by someone else since
 * (a new, deleted or changed host) makes it differ, the transaction aborts and the key is read again. Check-ins
 * bump nothing ({@link CheckIns}). {@code stored} holds each host's row as
 * last read or written, so a unit writes only the columns that changed (an unchanged inventory is neither
 * serialised again nor rewritten, which keeps TOAST and WAL traffic down).
 */
record Loaded(
    WorkKey key,
    String tenant,
    ClusterRecord cluster,
    Map<UUID, HostRecord> hosts,
    Map<UUID, Boolean> staticNetworking,
    Map<UUID, StoredHost> stored,
    long hostsVersion) {

  Loaded {
    tenant = SnapshotMapper.shared(tenant);
    hosts = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(hosts));
    staticNetworking = Map.copyOf(staticNetworking);
    // the cache keeps fingerprints of the rows' documents, not their text (issue 13: memory per idle host)
    boolean asCached = true;
    for (StoredHost s : stored.values()) {
      if (s.compact() != s) {
        asCached = false;
        break;
      }
    }
    if (asCached) {
      stored = Map.copyOf(stored); // the very map when it is a cached one already
    } else {
      Map<UUID, StoredHost> compact = new java.util.HashMap<>(stored.size() * 2);
      stored.forEach((id, s) -> compact.put(id, s.compact()));
      stored = Map.copyOf(compact);
    }
  }

  /** Without the rows as last read or written (every column of a changed host is then written). */
  Loaded(WorkKey key, String tenant, ClusterRecord cluster, Map<UUID, HostRecord> hosts, Map<UUID, Boolean> staticNetworking) {
    this(key, tenant, cluster, hosts, staticNetworking, Map.of(), 0);
  }

  int hostCount() {
    return hosts.size();
  }
}
