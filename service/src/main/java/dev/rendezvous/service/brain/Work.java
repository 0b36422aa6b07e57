package dev.rendezvous.service.brain;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rendezvous.service.domain.DomainEvent;
import dev.rendezvous.service.domain.Transitions;
import dev.rendezvous.service.domain.cluster.ClusterContext;
import dev.rendezvous.service.domain.cluster.ClusterEffect;
import dev.rendezvous.service.domain.cluster.ClusterTransition;
import dev.rendezvous.service.domain.host.HostEffect;
import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.host.HostTransition;
import dev.rendezvous.service.domain.host.Inventory;
import dev.rendezvous.service.domain.planning.NextStepPlanner;
import dev.rendezvous.service.domain.planning.StepPlan;
import java.time.Instant;
import java.util.ArrayList;
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
  /**
   * A plan to publish for a host once the transaction committed; {@code targets}: how many peers its connectivity
   * check lists (-1: its status checks none); {@code sharedTargets}: the check lists none itself, the host's gateway
   * fills them in from {@link #checkTargets} (published before the plan).
   */
  record Push(HostSnapshot host, StepPlan plan, String signature, int targets, boolean sharedTargets) {}

  final Loaded base;
  final Instant now;
  /**
   * The instant through which what the key's hosts sent is known here (no later than {@code now}): the brain's
   * backlog holds the rest. The clock's judgments of a host's silence are made at it.
   */
  final Instant seen;
  private ClusterRecord cluster;
  /** The key's hosts as loaded (never changed here). */
  private final Map<UUID, HostRecord> loaded;
  /**
   * The hosts this unit replaced or added, in the order first touched: the unit's cost follows them, not the cluster
   * (a registration into a 1,000-host cluster copied and compared all 1,000 rows two or three times).
   */
  private final LinkedHashMap<UUID, HostRecord> touched = new LinkedHashMap<>();
  /** Hosts new to the key, in insertion order (they come after the loaded ones). */
  private final List<UUID> added = new ArrayList<>();
  /** No host's plan is due before this (null: not known); set by the planner. */
  private Instant planFloor;
  private boolean planFloorKnown;
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
    this(base, now, now);
  }

  Work(Loaded base, Instant now, Instant seen) {
    this.base = base;
    this.now = now;
    this.seen = seen.isBefore(now) ? seen : now;
    this.cluster = base.cluster();
    this.loaded = base.hosts();
    this.planFloor = base.planFloor();
    this.planFloorKnown = base.planFloor() != null;
    this.context = base.view();
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

  /** The cluster view this unit built, when nothing it holds differs from what was loaded (else null). */
  ClusterContext clusterViewIfUnchanged() {
    return context != null && !changed() ? context : null;
  }

  ClusterRecord clusterRecord() {
    return cluster;
  }

  HostSnapshot host(UUID id) {
    HostRecord r = record(id);
    return r == null ? null : r.snapshot();
  }

  HostRecord record(UUID id) {
    HostRecord r = touched.get(id);
    return r != null ? r : loaded.get(id);
  }

  /** Every host's current record, in the key's order (a pass over all of them). */
  List<HostRecord> records() {
    List<HostRecord> l = new ArrayList<>(hostCount());
    for (Map.Entry<UUID, HostRecord> e : loaded.entrySet()) {
      HostRecord r = touched.get(e.getKey());
      l.add(r != null ? r : e.getValue());
    }
    added.forEach(id -> l.add(touched.get(id)));
    return l;
  }

  List<HostSnapshot> snapshots() {
    List<HostSnapshot> l = new ArrayList<>(hostCount());
    records().forEach(r -> l.add(r.snapshot()));
    return l;
  }

  List<UUID> hostIds() {
    List<UUID> l = new ArrayList<>(hostCount());
    l.addAll(loaded.keySet());
    l.addAll(added);
    return l;
  }

  int hostCount() {
    return loaded.size() + added.size();
  }

  /** The hosts this unit touched and those forced to a push: the only ones that can need a plan before the floor. */
  java.util.Set<UUID> touchedOrForced() {
    java.util.Set<UUID> s = new java.util.LinkedHashSet<>(touched.keySet());
    s.addAll(forcePush);
    return s;
  }

  Instant planFloor() {
    return planFloorKnown ? planFloor : null;
  }

  private boolean targetsPass;
  private Instant targetsRetryAt;

  /** This unit looks at every host for connectivity targets that moved since its last push (a debounced pass). */
  void targetsPass() {
    targetsPass = true;
  }

  boolean isTargetsPass() {
    return targetsPass;
  }

  private boolean settingsPass;

  /**
   * The user changed the cluster's settings: every host is planned again, and pushed where its plan differs from the
   * last one pushed (a step the settings added or whose arguments moved reaches the agents now, not at their next due
   * plan a minute later).
   */
  void settingsPass() {
    settingsPass = true;
  }

  boolean isSettingsPass() {
    return settingsPass;
  }

  private boolean targetsSettling;

  /** Whether a targets pass is pending for the key: peers became or stopped being connectivity targets just now. */
  boolean targetsSettling() {
    return targetsSettling;
  }

  void targetsSettling(boolean pending) {
    targetsSettling = pending;
  }

  /** When a host whose targets moved may be pushed again (it was pushed too recently); null: none waits. */
  Instant targetsRetryAt() {
    return targetsRetryAt;
  }

  void targetsRetryAt(Instant at) {
    targetsRetryAt = at;
  }

  /**
   * Whether a host of this unit became or stopped being a peer the others' connectivity checks list (its first
   * inventory, discovering or disconnected left or entered): their pushed targets are then one short or one too many.
   */
  boolean targetsMoved() {
    if (cluster == null) {
      return false;
    }
    for (HostRecord r : touched.values()) {
      HostRecord before = loaded.get(r.snapshot().id());
      if (NextStepPlanner.connectivityTarget(before == null ? null : before.snapshot())
          != NextStepPlanner.connectivityTarget(r.snapshot())) {
        return true;
      }
    }
    return false;
  }

  /** Where the planner found the key's next due plan (null: unknown, e.g. a failed publish made one due now). */
  void planFloor(Instant floor) {
    planFloor = floor;
    planFloorKnown = floor != null;
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

  /**
   * The rows to write are made once ({@link #writes()}): a change after that would reach the cache but not the
   * database, and a document carried unchanged is never made again to mend it.
   */
  private void changing() {
    if (writes != null) {
      throw new IllegalStateException("a change to " + base.key() + " after its rows to write were made");
    }
  }

  void put(HostSnapshot s) {
    changing();
    HostRecord r = record(s.id());
    if (r == null) {
      throw new IllegalStateException("host " + s.id() + " is not part of " + base.key());
    }
    if (!r.snapshot().equals(s)) {
      touched.put(s.id(), r.withSnapshot(s));
      hostReplaced(s);
    }
  }

  private void putTouched(HostRecord r) {
    changing();
    UUID id = r.snapshot().id();
    if (touched.put(id, r) == null && !loaded.containsKey(id)) {
      added.add(id);
    }
  }

  /**
   * Keeps the cluster view in step with the cluster's own new fields: its hosts (and their lookups) carry over. A
   * cluster refresh in each registration unit rebuilt the view from every host before.
   */
  private void clusterReplaced() {
    if (context != null) {
      context = cluster.context().toBuilder().hosts(context.hosts()).build();
    }
  }

  /** Keeps the cluster view in step with one host's new snapshot (no rebuild of the whole view). */
  private void hostReplaced(HostSnapshot s) {
    if (context != null) {
      context = context.withHost(s);
    }
  }

  void insert(HostSnapshot s) {
    putTouched(new HostRecord(s, 0, "{}", "{}"));
    inserted.add(s.id());
    hostReplaced(s);
  }

  void putRecord(HostRecord r) {
    putTouched(r);
    hostReplaced(r.snapshot());
  }

  /** Applies a host transition (not rejected) of host {@code id}: new snapshot, events, cluster side effects. */
  void apply(UUID id, HostTransition t) {
    if (t.rejected()) {
      return;
    }
    changing();
    HostRecord r = record(id);
    HostSnapshot next = Transitions.applied(r.snapshot(), t, now);
    HostRecord nr = r.withSnapshot(next);
    for (HostEffect e : t.effects()) {
      if (e instanceof HostEffect.RegistrationDefaults d && d.machineConfigPool() != null && !d.machineConfigPool().isEmpty()) {
        ObjectNode spec = StoredJson.object(nr.spec());
        if (!spec.has("machine_config_pool_name")) {
          spec.put("machine_config_pool_name", d.machineConfigPool());
          nr = new HostRecord(next, nr.rowVersion(), StoredJson.canonical(spec), nr.otherResults());
        }
      }
    }
    touched.put(id, nr);
    hostReplaced(next);
    events.addAll(t.events());
    if (cluster != null && Transitions.resetsClusterPreparation(t)) {
      cluster = cluster.withContext(Transitions.preparationReset(cluster.context()));
      clusterReplaced();
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
    clusterReplaced();
    if (withEvents) {
      events.addAll(t.events());
    }
  }

  /** Replaces the cluster's own fields (hosts are ignored), e.g. recomputed majority groups. */
  void putCluster(ClusterContext c) {
    ClusterContext own = c.toBuilder().hosts(List.of()).build();
    if (!own.equals(cluster.context())) {
      cluster = cluster.withContext(own);
      clusterReplaced();
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
    return !settledAll && hostCount() > 1 && sharedInputsChanged(true);
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

  void push(HostSnapshot host, StepPlan plan, String signature, int targets) {
    push(host, plan, signature, targets, false);
  }

  void push(HostSnapshot host, StepPlan plan, String signature, int targets, boolean sharedTargets) {
    pushes.add(new Push(host, plan, signature, targets, sharedTargets));
    events.addAll(plan.events());
  }

  /** Whose gateway fills in shared connectivity targets (none unless the brain says). */
  private java.util.function.Predicate<HostSnapshot> fillsTargets = h -> false;
  /** The cluster's connectivity targets, when a pushed plan leaves them to the gateway; else null. */
  private List<dev.rendezvous.service.domain.planning.NextStepPlanner.CheckTarget> checkTargets;

  void fillsTargets(java.util.function.Predicate<HostSnapshot> which) {
    this.fillsTargets = which;
  }

  boolean fillsTargets(HostSnapshot h) {
    return fillsTargets.test(h);
  }

  void checkTargets(List<dev.rendezvous.service.domain.planning.NextStepPlanner.CheckTarget> targets) {
    this.checkTargets = targets;
  }

  List<dev.rendezvous.service.domain.planning.NextStepPlanner.CheckTarget> checkTargets() {
    return checkTargets;
  }

  /** Hosts whose content differs from what was loaded (new ones included), in the order this unit touched them. */
  List<HostRecord> changedHosts() {
    List<HostRecord> out = new ArrayList<>();
    for (HostRecord r : touched.values()) {
      HostRecord before = loaded.get(r.snapshot().id());
      // untouched records are the very objects loaded: no deep comparison for them
      if (before != r && (before == null || !before.sameContent(r))) {
        out.add(r);
      }
    }
    return out;
  }

  /** Whether host {@code id} differs from what was loaded (or is new). */
  boolean hostChanged(UUID id) {
    HostRecord before = loaded.get(id);
    HostRecord now = touched.get(id);
    return before == null || (now != null && before != now && !before.sameContent(now));
  }

  /**
   * Whether something other hosts' plans or the cluster's state depend on moved in this unit: a host's status,
   * roles, bootstrap flag, inventory as others read it ({@link Inventory#sameForPeers}), the peers a connectivity report
   * reaches where only full passes recompute the majority groups ({@link BrainRules#connectivityReadAcrossHosts}),
   * install disk or clock, what it found at the VIPs, a new host, or the cluster itself. A host's own-only change refreshes that host alone: no
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
    return sharedInputs.changed(base.cluster(), cluster, hostCount(), touched.values(), loaded, peersOnly);
  }

  /** What peers read of each host, asked once per inventory. */
  private final SharedInputs sharedInputs = new SharedInputs();

  private Map<UUID, StoredHost> writes;

  /** The documents agents sent in this unit, stored as sent when still held at the write. */
  final SentTexts sent = new SentTexts();

  /** The rows to write for the changed hosts (computed once; reuses the stored JSON of unchanged documents). */
  Map<UUID, StoredHost> writes() {
    if (writes == null) {
      writes = new LinkedHashMap<>();
      for (HostRecord r : changedHosts()) {
        UUID id = r.snapshot().id();
        writes.put(id, SnapshotMapper.stored(r, loaded.get(id), base.stored().get(id),
            sent.connectivityOf(id, r.snapshot().connectivity()), sent.inventoryOf(id, r.snapshot().inventory())));
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

  /**
   * What the cache holds after this work committed: bumped versions for the rows and the key written. The loaded
   * tables are advanced by the hosts written, not copied.
   */
  Loaded committed() {
    Map<UUID, HostRecord> bumped = new LinkedHashMap<>();
    for (HostRecord r : touched.values()) {
      HostRecord before = loaded.get(r.snapshot().id());
      if (before == null) {
        bumped.put(r.snapshot().id(), r.withVersion(1));
      } else if (!before.sameContent(r)) {
        bumped.put(r.snapshot().id(), r.withVersion(before.rowVersion() + 1));
      }
    }
    ClusterRecord c = cluster;
    if (c != null && clusterChanged()) {
      c = new ClusterRecord(c.context(), base.cluster().rowVersion() + 1, c.tenant(),
          c.installCompletedAt(), c.progress());
    }
    Map<UUID, StoredHost> stored = new LinkedHashMap<>();
    writes().forEach((id, s) -> stored.put(id, s.withRowVersion(bumped.get(id).rowVersion()).compact()));
    // the commit bumped the key's version once when it wrote any host (BrainStore.commit)
    return new Loaded(base.key(), tenant, c, base.hostTable().with(bumped), staticNetworking,
        base.storedTable().with(stored), writes().isEmpty() ? base.hostsVersion() : base.hostsVersion() + 1,
        planFloor(), cluster == null ? null : context);
  }
}
