package dev.rendezvous.service.brain;

import java.time.Instant;
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
 * serialised again nor rewritten, which keeps TOAST and WAL traffic down). {@code planFloor}: no host of the key
 * has a plan due before it (null: not known, every host is looked at), so a unit plans only the hosts it touched.
 * {@code view}: the cluster with these hosts as the domain reads it, as the last unit left it (null: built when a unit
 * needs it), so a unit does not rebuild it and its lookups from every host.
 */
record Loaded(
    WorkKey key,
    String tenant,
    ClusterRecord cluster,
    Map<UUID, HostRecord> hosts,
    Map<UUID, Boolean> staticNetworking,
    Map<UUID, StoredHost> stored,
    long hostsVersion,
    Instant planFloor,
    dev.rendezvous.service.domain.cluster.ClusterContext view) {

  Loaded {
    tenant = SnapshotMapper.shared(tenant);
    // tables as they are (a committed unit's advance of its base), anything else copied into one
    hosts = HostTable.of(hosts);
    staticNetworking = Map.copyOf(staticNetworking);
    // the cache keeps tokens for the rows' documents, not their text (issue 13: memory per idle host); a table
    // is already in that form (Work.committed compacts the rows it adds)
    if (!(stored instanceof HostTable)) {
      Map<UUID, StoredHost> compact = new LinkedHashMap<>(stored.size() * 2);
      stored.forEach((id, s) -> compact.put(id, s.compact()));
      stored = HostTable.of(compact);
    }
  }

  /** As read from the database: when the hosts' plans are next due is not known yet. */
  Loaded(WorkKey key, String tenant, ClusterRecord cluster, Map<UUID, HostRecord> hosts,
      Map<UUID, Boolean> staticNetworking, Map<UUID, StoredHost> stored, long hostsVersion) {
    this(key, tenant, cluster, hosts, staticNetworking, stored, hostsVersion, null, null);
  }

  /** Without the rows as last read or written (every column of a changed host is then written). */
  Loaded(WorkKey key, String tenant, ClusterRecord cluster, Map<UUID, HostRecord> hosts, Map<UUID, Boolean> staticNetworking) {
    this(key, tenant, cluster, hosts, staticNetworking, Map.of(), 0);
  }

  int hostCount() {
    return hosts.size();
  }

  @SuppressWarnings("unchecked")
  HostTable<HostRecord> hostTable() {
    return (HostTable<HostRecord>) hosts;
  }

  @SuppressWarnings("unchecked")
  HostTable<StoredHost> storedTable() {
    return (HostTable<StoredHost>) stored;
  }

  /** Whether {@code o} holds the very rows this does (it may differ in its plan floor). */
  boolean sameRowsAs(Loaded o) {
    return hosts == o.hosts && stored == o.stored && cluster == o.cluster && hostsVersion == o.hostsVersion
        && staticNetworking == o.staticNetworking && key.equals(o.key);
  }

  /**
   * The same rows with what a unit that changed nothing found: when their plans are next due, and the cluster view it
   * built (kept while the view it started from is none).
   */
  Loaded withUnitFindings(Instant floor, dev.rendezvous.service.domain.cluster.ClusterContext built) {
    dev.rendezvous.service.domain.cluster.ClusterContext v = view != null || cluster == null ? view : built;
    return java.util.Objects.equals(floor, planFloor) && v == view ? this
        : new Loaded(key, tenant, cluster, hosts, staticNetworking, stored, hostsVersion, floor, v);
  }

  Loaded withPlanFloor(Instant floor) {
    return withUnitFindings(floor, null);
  }
}
