package dev.rendezvous.service.brain;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rendezvous.service.domain.DomainEvent;
import dev.rendezvous.service.domain.Transitions;
import dev.rendezvous.service.domain.cluster.ClusterContext;
import dev.rendezvous.service.domain.cluster.ClusterEffect;
import dev.rendezvous.service.domain.cluster.ClusterTransition;
import dev.rendezvous.service.domain.host.HostEffect;
import dev.rendezvous.service.domain.host.HostRole;
import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.host.HostTransition;
import dev.rendezvous.service.domain.host.Inventory;
import dev.rendezvous.service.domain.planning.StepPlan;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * The working copy of one unit of work: a cluster (or an infra-env's unbound hosts) with its hosts, the
 * events to record and the steps to push. Starts from what was loaded; the store writes what differs.
 * Used on one lane's context only.
 */
final class Work {
  /** A plan to publish for a host once the transaction committed. */
  record Push(HostSnapshot host, StepPlan plan, String signature) {}

  final Loaded base;
  final Instant now;
  private ClusterRecord cluster;
  private final LinkedHashMap<UUID, HostRecord> hosts;
  private final Set<UUID> inserted = new HashSet<>();
  private final Set<UUID> forcePush = new HashSet<>();
  private final List<DomainEvent> events = new ArrayList<>();
  private final List<Push> pushes = new ArrayList<>();
  private final Map<UUID, Boolean> staticNetworking;
  private ClusterContext context;
  private String tenant;
  /** Inventory or connectivity changed: the cluster's majority groups must be recomputed. */
  boolean connectivityInputsChanged;
  /** Hosts the unit's events touched: refreshed (with the cluster) once, when the unit's events are all applied. */
  private final java.util.LinkedHashSet<UUID> refresh = new java.util.LinkedHashSet<>();
  private boolean settledAll;

  Work(Loaded base, Instant now) {
    this.base = base;
    this.now = now;
    this.cluster = base.cluster();
    this.hosts = new LinkedHashMap<>(base.hosts());
    this.staticNetworking = new LinkedHashMap<>(base.staticNetworking());
    this.tenant = base.tenant();
  }

  // ------------------------------------------------------------------------------------------- reading

  /** The cluster with its current hosts (null for unbound work or a cluster that is gone). */
  ClusterContext cluster() {
    if (cluster == null) {
      return null;
    }
    if (context == null) {
      context = cluster.context().toBuilder().hosts(snapshots()).build();
    }
    return context;
  }

  ClusterRecord clusterRecord() {
    return cluster;
  }

  HostSnapshot host(UUID id) {
    HostRecord r = hosts.get(id);
    return r == null ? null : r.snapshot();
  }

  HostRecord record(UUID id) {
    return hosts.get(id);
  }

  Collection<HostRecord> records() {
    return hosts.values();
  }

  List<HostSnapshot> snapshots() {
    List<HostSnapshot> l = new ArrayList<>(hosts.size());
    hosts.values().forEach(r -> l.add(r.snapshot()));
    return l;
  }

  List<UUID> hostIds() {
    return List.copyOf(hosts.keySet());
  }

  String tenant() {
    return tenant;
  }

  void tenant(String t) {
    if (tenant == null) {
      tenant = t;
    }
  }

  boolean isNew(UUID id) {
    return inserted.contains(id);
  }

  List<DomainEvent> events() {
    return events;
  }

  List<Push> pushes() {
    return pushes;
  }

  Boolean staticNetworking(UUID infraEnvId) {
    return staticNetworking.get(infraEnvId);
  }

  void staticNetworking(UUID infraEnvId, boolean value) {
    staticNetworking.put(infraEnvId, value);
  }

  Map<UUID, Boolean> staticNetworkingMap() {
    return staticNetworking;
  }

  // ------------------------------------------------------------------------------------------- writing

  void put(HostSnapshot s) {
    HostRecord r = hosts.get(s.id());
    if (r == null) {
      throw new IllegalStateException("host " + s.id() + " is not part of " + base.key());
    }
    if (!r.snapshot().equals(s)) {
      hosts.put(s.id(), r.withSnapshot(s));
      hostReplaced(s);
    }
  }

  /** Keeps the cluster view in step with one host's new snapshot (no rebuild of the whole view). */
  private void hostReplaced(HostSnapshot s) {
    if (context != null) {
      context = context.withHost(s);
    }
  }

  void insert(HostSnapshot s) {
    hosts.put(s.id(), new HostRecord(s, 0, "{}", "{}"));
    inserted.add(s.id());
    context = null;
  }

  void putRecord(HostRecord r) {
    hosts.put(r.snapshot().id(), r);
    hostReplaced(r.snapshot());
  }

  /** Applies a host transition (not rejected) of host {@code id}: new snapshot, events, cluster side effects. */
  void apply(UUID id, HostTransition t) {
    if (t.rejected()) {
      return;
    }
    HostRecord r = hosts.get(id);
    HostSnapshot next = Transitions.applied(r.snapshot(), t, now);
    HostRecord nr = r.withSnapshot(next);
    for (HostEffect e : t.effects()) {
      if (e instanceof HostEffect.RegistrationDefaults d && d.machineConfigPool() != null && !d.machineConfigPool().isEmpty()) {
        ObjectNode spec = SnapshotMapper.object(nr.spec());
        if (!spec.has("machine_config_pool_name")) {
          spec.put("machine_config_pool_name", d.machineConfigPool());
          nr = new HostRecord(next, nr.rowVersion(), SnapshotMapper.canonical(spec), nr.otherResults());
        }
      }
    }
    hosts.put(id, nr);
    hostReplaced(next);
    events.addAll(t.events());
    if (cluster != null && Transitions.resetsClusterPreparation(t)) {
      cluster = cluster.withContext(Transitions.preparationReset(cluster.context()));
      context = null;
    }
  }

  /** Applies a cluster transition (not rejected); {@code withEvents} false when the caller already took them. */
  void apply(ClusterTransition t, boolean withEvents) {
    if (t.rejected() || cluster == null) {
      return;
    }
    ClusterContext next = Transitions.applied(cluster.context(), t, now);
    Instant completed = cluster.installCompletedAt();
    for (ClusterEffect e : t.effects()) {
      if (e instanceof ClusterEffect.SetInstallCompletedAt s) {
        completed = s.at();
      }
    }
    cluster = new ClusterRecord(next, cluster.rowVersion(), cluster.tenant(), completed, cluster.progress());
    context = null;
    if (withEvents) {
      events.addAll(t.events());
    }
  }

  /** Replaces the cluster's own fields (hosts are ignored), e.g. recomputed majority groups. */
  void putCluster(ClusterContext c) {
    ClusterContext own = c.toBuilder().hosts(List.of()).build();
    if (!own.equals(cluster.context())) {
      cluster = cluster.withContext(own);
      context = null;
    }
  }

  void progress(String progressJson) {
    if (cluster != null && !java.util.Objects.equals(progressJson, cluster.progress())) {
      cluster = new ClusterRecord(cluster.context(), cluster.rowVersion(), cluster.tenant(),
          cluster.installCompletedAt(), progressJson);
    }
  }

  /** Host {@code id} is to be refreshed once this unit's events are applied. */
  void refresh(UUID id) {
    refresh.add(id);
  }

  List<UUID> refreshScope() {
    return List.copyOf(refresh);
  }

  /** Every host was refreshed in this unit (not only the ones its events touched). */
  void settledAll() {
    settledAll = true;
  }

  /**
   * Something other hosts' validations read (majority groups, names, roles, ...) moved while only some hosts were
   * refreshed: the rest are refreshed by the key's next full pass, soon after.
   */
  boolean othersMayBeStale() {
    return !settledAll && hosts.size() > 1 && sharedInputsChanged(true);
  }

  void event(DomainEvent e) {
    events.add(e);
  }

  void forcePush(UUID hostId) {
    forcePush.add(hostId);
  }

  boolean forced(UUID hostId) {
    return forcePush.contains(hostId);
  }

  void push(HostSnapshot host, StepPlan plan, String signature) {
    pushes.add(new Push(host, plan, signature));
    events.addAll(plan.events());
  }

  /** Hosts whose content differs from what was loaded (new ones included), in database order. */
  List<HostRecord> changedHosts() {
    List<HostRecord> out = new ArrayList<>();
    for (HostRecord r : hosts.values()) {
      HostRecord before = base.hosts().get(r.snapshot().id());
      // untouched records are the very objects loaded: no deep comparison for them
      if (before != r && (before == null || !before.sameContent(r))) {
        out.add(r);
      }
    }
    return out;
  }

  /** Whether host {@code id} differs from what was loaded (or is new). */
  boolean hostChanged(UUID id) {
    HostRecord before = base.hosts().get(id);
    HostRecord now = hosts.get(id);
    return before == null || (now != null && before != now && !before.sameContent(now));
  }

  /**
   * Whether something other hosts' plans or the cluster's state depend on moved in this unit: a host's status,
   * roles, bootstrap flag, inventory as others read it ({@link Inventory#sameForPeers}), the peers a connectivity report
   * reaches where only full passes recompute the majority groups ({@link BrainRules#connectivityReadAcrossHosts}),
   * install disk or clock, a new host, or the cluster itself. A host's own-only change refreshes that host alone: no
   * cluster pass follows it.
   */
  boolean sharedInputsChanged() {
    return sharedInputsChanged(false);
  }

  /**
   * As {@link #sharedInputsChanged()}; {@code peersOnly} leaves out what only the cluster's own rules read: a new host
   * nothing is known of yet (a registration), in a cluster of 3 or more before it. Its peers' validations read their
   * peers' inventories, names, roles, connectivity and the host count only against 1 and 3, so such a host moves none of
   * them: a registration burst into a 400-host cluster had asked for a pass over all its hosts every few seconds (3-5
   * host evaluations per registration).
   */
  boolean sharedInputsChanged(boolean peersOnly) {
    if (cluster != null && base.cluster() != null && !base.cluster().context().equals(cluster.context())) {
      return true;
    }
    boolean connectivityShared = cluster == null
        || BrainRules.connectivityReadAcrossHosts(cluster.context().status(), hosts.size());
    for (HostRecord r : hosts.values()) {
      HostRecord b = base.hosts().get(r.snapshot().id());
      if (b == null) {
        if (peersOnly && unknownToPeers(r.snapshot()) && base.hosts().size() >= 3) {
          continue;
        }
        return true;
      }
      if (b == r) {
        continue;
      }
      HostSnapshot x = b.snapshot();
      HostSnapshot y = r.snapshot();
      if (x == y) {
        continue;
      }
      if (x.status() != y.status() || x.role() != y.role() || x.suggestedRole() != y.suggestedRole()
          || x.bootstrap() != y.bootstrap()
          || (x.inventory() != y.inventory() && !Inventory.sameForPeers(x.inventory(), y.inventory()))
          || (x.connectivity() != y.connectivity() && connectivityShared
              && !dev.rendezvous.service.domain.host.ConnectivityReport.sameReach(x.connectivity(), y.connectivity()))
          || !java.util.Objects.equals(x.installationDiskPath(), y.installationDiskPath())
          || x.hostTimestamp() != y.hostTimestamp() || !java.util.Objects.equals(x.requestedHostname(), y.requestedHostname())) {
        return true;
      }
    }
    return false;
  }

  /** A host its peers' validations cannot tell from nobody yet: no inventory, connectivity, name or role of its own. */
  private static boolean unknownToPeers(HostSnapshot h) {
    return h.inventory() == null && h.connectivity() == null
        && (h.requestedHostname() == null || h.requestedHostname().isEmpty())
        && h.role() == HostRole.AUTO_ASSIGN && (h.suggestedRole() == null || h.suggestedRole() == HostRole.AUTO_ASSIGN)
        && !h.bootstrap();
  }

  private Map<UUID, StoredHost> writes;

  /** Connectivity reports as the agents sent them in this unit, with what they parsed to. */
  private final Map<UUID, Map.Entry<Object, String>> connectivityTexts = new java.util.HashMap<>();

  /**
   * The text {@code report} was parsed from: stored as sent (as upstream stores it) instead of serialised again,
   * which was 5-7% of the CPU while a 1,000-host cluster's ~300 KB reports came in.
   */
  void connectivityText(UUID hostId, Object report, String text) {
    connectivityTexts.put(hostId, Map.entry(report, text));
  }

  /** The rows to write for the changed hosts (computed once; reuses the stored JSON of unchanged documents). */
  Map<UUID, StoredHost> writes() {
    if (writes == null) {
      writes = new LinkedHashMap<>();
      for (HostRecord r : changedHosts()) {
        UUID id = r.snapshot().id();
        Map.Entry<Object, String> sent = connectivityTexts.get(id);
        // only while the snapshot still holds that very report (a later event of the unit may have replaced it)
        String text = sent != null && sent.getKey() == r.snapshot().connectivity() ? sent.getValue() : null;
        writes.put(id, SnapshotMapper.stored(r, base.hosts().get(id), base.stored().get(id), text));
      }
    }
    return writes;
  }

  boolean clusterChanged() {
    return cluster != null && base.cluster() != null && !base.cluster().sameContent(cluster);
  }

  boolean changed() {
    return !events.isEmpty() || clusterChanged() || !changedHosts().isEmpty() || !pushes.isEmpty();
  }

  /** What the cache holds after this work committed: bumped versions for the rows and the key written. */
  Loaded committed() {
    Map<UUID, HostRecord> after = new LinkedHashMap<>();
    for (HostRecord r : hosts.values()) {
      HostRecord before = base.hosts().get(r.snapshot().id());
      if (before == null) {
        after.put(r.snapshot().id(), r.withVersion(1));
      } else if (!before.sameContent(r)) {
        after.put(r.snapshot().id(), r.withVersion(before.rowVersion() + 1));
      } else {
        after.put(r.snapshot().id(), before);
      }
    }
    ClusterRecord c = cluster;
    if (c != null && clusterChanged()) {
      c = new ClusterRecord(c.context(), base.cluster().rowVersion() + 1, c.tenant(),
          c.installCompletedAt(), c.progress());
    }
    Map<UUID, StoredHost> stored = new LinkedHashMap<>(base.stored());
    writes().forEach((id, s) -> stored.put(id, s.withRowVersion(after.get(id).rowVersion())));
    stored.keySet().retainAll(after.keySet());
    // the commit bumped the key's version once when it wrote any host (BrainStore.commit)
    return new Loaded(base.key(), tenant, c, after, staticNetworking, stored,
        writes().isEmpty() ? base.hostsVersion() : base.hostsVersion() + 1);
  }
}
