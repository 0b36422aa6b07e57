package dev.rendezvous.service.brain;

import dev.rendezvous.bus.BusEvent;
import dev.rendezvous.bus.BusProducer;
import dev.rendezvous.bus.event.AgentPresence;
import dev.rendezvous.service.domain.DomainConfig;
import dev.rendezvous.service.domain.cluster.ClusterContext;
import dev.rendezvous.service.domain.cluster.ClusterTransition;
import dev.rendezvous.service.domain.host.HostRole;
import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.planning.StepIdGenerator;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * Runs units of work: for one key (a cluster, or an infra-env's unbound hosts), in that key's lane, load
 * (or take from the cache) the cluster and all its hosts, let {@link BrainRules} apply the domain, write
 * every changed row, the events and the bus event claim in one transaction guarded by row versions, and
 * after the commit publish the hosts' next steps. A version conflict (another writer, e.g. a stale owner
 * after a rebalance, or a REST update in another instance) drops the cached copy and runs the work again
 * on fresh rows, a bounded number of times; a replayed bus event changes nothing. A unit's own course is
 * {@link UnitRunner}'s; here are the brain's faces: bus events in, the REST API's questions and updates, the monitor.
 */
public final class Brain {
  /** Told about every committed unit of work (metrics, benchmarks). */
  public interface Listener {
    void committed(WorkKey key, String eventId, int hostsWritten, int stepsPushed);

    /** Every bus event a committed unit applied (a batch has several; {@link #committed} names the last). */
    default void eventsCommitted(WorkKey key, List<String> eventIds) {
    }

    /** The hosts whose rows the unit wrote, right after its commit. */
    default void hostsWritten(WorkKey key, java.util.Collection<UUID> hosts) {
    }
  }

  private final Clock clock;
  private final BrainStore store;
  private final Lanes lanes;
  private final BrainRules rules;
  /** Parsed state per key, parked keys, host routing and check-ins not folded in yet. */
  private final BrainCache cache = new BrainCache();
  private final EventRouting routing;
  private final BrainPresence presence;
  private final PlanPublisher publisher;
  private final OutputPreParsing preParsing;
  /** Runs the units of work: load, apply, settle, plan, commit, then what follows a commit. */
  private final UnitRunner units;
  private volatile Listener listener = (k, e, h, s) -> { };
  private volatile PreparationRequests preparations = (c, at) -> { };
  private volatile java.util.function.DoubleSupplier pacing = () -> 1.0;
  /** Where each key's events are handled through, as far as the bus tells (null: no backlog known, now). */
  private volatile java.util.function.Function<WorkKey, Instant> handledThrough = k -> null;

  /**
   * Told after each unit of work about a cluster that is preparing for installation and has no preparation result
   * yet: the adapter that generates the install-config and Ignition files (idempotent; it dedups in-flight runs).
   */
  public interface PreparationRequests {
    void prepare(UUID clusterId, Instant installStartedAt);
  }
  private final java.time.Duration disconnection;

  public Brain(Vertx vertx, Pool pool, BusProducer producer, DomainConfig config, Clock clock) {
    this(vertx, pool, producer, config, clock, Math.max(1, Runtime.getRuntime().availableProcessors()));
  }

  public Brain(Vertx vertx, Pool pool, BusProducer producer, DomainConfig config, Clock clock, int lanes) {
    this.clock = clock;
    this.store = new BrainStore(pool);
    this.lanes = new Lanes(vertx, lanes);
    this.rules = new BrainRules(config, StepIdGenerator.random());
    this.disconnection = config.timeouts().hostDisconnection();
    this.routing = new EventRouting(store, rules, cache.hostKeys());
    this.publisher = new PlanPublisher(producer);
    this.presence = new BrainPresence(this, routing, store, cache, publisher);
    // as many parses at once as the lanes use cores: they run while the lanes work
    this.preParsing = new OutputPreParsing(vertx.createSharedWorkerExecutor("rdv-brain-parse", this.lanes.count()));
    this.units = new UnitRunner(this, vertx, store, this.lanes, rules, cache, publisher);
  }

  /** The event-loop contexts units run on (one per core unless told otherwise). */
  public int laneCount() {
    return lanes.count();
  }

  public void listener(Listener l) {
    this.listener = l;
  }

  Listener listener() {
    return listener;
  }

  /** Back-pressure: while the service is behind, unchanged plans are pushed again this many times less often. */
  public void pacing(java.util.function.DoubleSupplier factor) {
    this.pacing = factor;
  }

  double pacingFactor() {
    return pacing.getAsDouble();
  }

  /**
   * The bus's word on how far each key's events are handled (the instant before the oldest waiting one; null when it
   * does not know): units judge a host's silence there, so a host whose check-ins wait in the backlog does not time
   * out because the brain is behind.
   */
  public void handledThrough(java.util.function.Function<WorkKey, Instant> through) {
    this.handledThrough = through;
  }

  /** The instant through which the key's hosts are heard (see {@link #handledThrough}), no later than {@code now}. */
  Instant seen(WorkKey key, Instant now) {
    Instant t = handledThrough.apply(key);
    return t == null || t.isAfter(now) ? now : micros(t);
  }

  public void preparations(PreparationRequests p) {
    this.preparations = p;
  }

  /** A cluster waiting for its generated files gets them asked for (after a commit, or a monitor pass). */
  void askForPreparation(ClusterRecord c) {
    if (c != null && c.context().status() == dev.rendezvous.service.domain.cluster.ClusterStatus.PREPARING_FOR_INSTALLATION
        && "not_started".equals(c.context().lastPreparationStatus()) && c.context().installStartedAt() != null) {
      preparations.prepare(c.context().id(), c.context().installStartedAt());
    }
  }

  BrainRules rules() {
    return rules;
  }

  BrainStore store() {
    return store;
  }

  /** Now, truncated to what PostgreSQL stores, so cached and reloaded values compare equal. */
  Instant now() {
    return clock.instant().truncatedTo(ChronoUnit.MICROS);
  }

  static Instant micros(Instant t) {
    return t == null ? null : t.truncatedTo(ChronoUnit.MICROS);
  }

  /** Forgets every cached key (e.g. when this instance's partitions changed). */
  public void clearCache() {
    cache.clear();
  }

  /** A mark to take before reading the rows' versions for {@link #dropStale}. */
  long writeMark() {
    return cache.writeMark();
  }

  // ----------------------------------------------------------------------------------------- key lookup

  /** The key a host's work runs under (learnt from loads, else read). */
  Future<Optional<WorkKey>> keyOfHost(UUID hostId, UUID infraEnvId) {
    return routing.keyOfHost(hostId, infraEnvId);
  }

  // --------------------------------------------------------------------------------------- units of work

  /** The outcome of a unit of work for its caller. */
  public enum Result { COMMITTED, NOTHING_TO_DO, REPLAYED, GONE }

  /**
   * One bus event's part of a unit of work: its id (claimed with the unit), what it does to the work, and its output's
   * parse started off the lane (null: none; see {@link OutputPreParsing}).
   */
  record Apply(String eventId, String hostId, Consumer<Work> body, Future<Object> parsed) {
    Apply(String eventId, String hostId, Consumer<Work> body) {
      this(eventId, hostId, body, null);
    }

    /** One body doing what each of {@code applies} does, in order. */
    static Consumer<Work> all(List<Apply> applies) {
      return w -> applies.forEach(a -> a.body().accept(w));
    }
  }

  /**
   * Runs {@code body} on the key's current state in its lane and commits what it changed, claiming
   * {@code eventId} (null: nothing to claim) in the same transaction. The body may run more than once
   * (after a version conflict); it must only act on the {@link Work} it is given.
   */
  public Future<Result> run(WorkKey key, String eventId, Consumer<Work> body) {
    return units.run(key, eventId, body);
  }

  /** See {@link UnitRunner#runEvents}. */
  Future<Result> runEvents(WorkKey key, List<Apply> applies) {
    return units.runEvents(key, applies);
  }

  /** Like {@link #run} but in the lane only: for work that needs no unit (e.g. a check-in touch). */
  <T> Future<T> inLane(WorkKey key, java.util.function.Supplier<Future<T>> task) {
    return lanes.submit(key, task);
  }

  /** Host refreshes (validations and state machine) this instance's brain ran: a counter of its domain work. */
  public double hostEvaluations() {
    return rules.hostEvaluations();
  }

  /** Step outputs parsed ahead of their units, off the lanes ({@link OutputPreParsing}). */
  public double outputsParsedAhead() {
    return preParsing.parsedCount();
  }

  /** Units of work this instance's brain committed: with {@link #committedUnitEvents} how well events batch. */
  public double committedUnits() {
    return units.committedUnits();
  }

  /** Bus events in the units this instance's brain committed (the clock's units carry none). */
  public double committedUnitEvents() {
    return units.committedUnitEvents();
  }

  /** Hosts held in the cache (a gauge: the brain's memory grows with these, not with parked or idle keys). */
  public double cachedHosts() {
    return cache.hostCount();
  }

  /** Finished keys kept out of the cache (a gauge). */
  public double parkedKeys() {
    return cache.parkedCount();
  }

  /** Whether the key is parked (finished and out of the cache). */
  boolean parked(WorkKey key) {
    return cache.parked(key);
  }

  /** Parks a cached finished key, in its lane (a unit running there may still be writing it). */
  private void park(WorkKey key) {
    lanes.submit(key, () -> {
      cache.parkIfFinished(key);
      return Future.succeededFuture();
    });
  }

  /** The key's state with the check-ins written since folded in (on the key's lane). */
  private Future<Loaded> loaded(WorkKey key) {
    return cache.load(key, store);
  }

  /** The cached host, if its key is cached. */
  Optional<HostSnapshot> cachedHost(WorkKey key, UUID hostId) {
    return cache.cachedHost(key, hostId);
  }

  /** Drops a key from the cache so its next unit reads the rows again. */
  void forget(WorkKey key) {
    cache.forget(key);
  }

  /** A host moved to another key (bind, unbind): its next unit looks its key up again. */
  void hostMoved(UUID infraEnvId, UUID hostId) {
    cache.hostMoved(infraEnvId, hostId);
  }

  // ------------------------------------------------------------------------------------------- handlers

  /** One bus event (registrations, replies, progress, actions, reports; presence too), as a batch of one. */
  public Future<Void> handle(BusEvent e) {
    return handleBatch(List.of(e));
  }

  /**
   * Events from the bus, in order: each key's events (but presence) in one unit of work and one transaction, keys in
   * parallel in their lanes; presence as {@link #presence}. Completes when every unit committed (or had nothing to
   * do); fails when one failed, and the bus hands the batch over again (units that committed claimed their events).
   */
  public Future<Void> handleBatch(List<BusEvent> events) {
    Map<UUID, Future<Optional<BrainStore.InfraEnvInfo>>> infraEnvs = new java.util.HashMap<>();
    List<Future<Optional<EventRouting.Target>>> targets = new ArrayList<>(events.size());
    List<Future<?>> done = new ArrayList<>();
    List<BusEvent> presence = new ArrayList<>();
    Map<BusEvent, Future<Object>> parsed = preParsing.start(events);
    for (BusEvent e : events) {
      if (e.payload() instanceof AgentPresence) {
        presence.add(e);
      } else {
        if (e.payload() instanceof dev.rendezvous.bus.event.HostRegistered r && uuid(r.hostId()) != null
            && uuid(r.infraEnvId()) != null) {
          // the gateway it registered at: whether it fills in shared connectivity targets (until a presence says)
          publisher.gatewayOf(new HostKey(uuid(r.infraEnvId()), uuid(r.hostId())), r.fillsSharedTargets());
        }
        targets.add(routing.target(e, infraEnvs, parsed.get(e)));
      }
    }
    if (!presence.isEmpty()) {
      done.add(presence(presence));
    }
    return Future.all(targets).compose(v -> {
      Map<WorkKey, List<Apply>> byKey = new java.util.LinkedHashMap<>();
      for (Future<Optional<EventRouting.Target>> t : targets) {
        t.result().ifPresent(x -> byKey.computeIfAbsent(x.key(), k -> new ArrayList<>()).add(x.apply()));
      }
      byKey.forEach((key, applies) -> done.add(runEvents(key, applies)));
      return Future.all(done).mapEmpty();
    });
  }

  /** Presence events: see {@link BrainPresence}. */
  Future<Void> presence(List<BusEvent> events) {
    return presence.handle(events);
  }

  /**
   * Runs {@code check} on the key's current state in its lane, without writing anything: what the REST API asks
   * before it publishes a report, so a report the domain would refuse gets upstream's answer at once.
   */
  public <T> Future<T> inspect(WorkKey key, java.util.function.Function<Work, T> check) {
    return lanes.submit(key, () -> loaded(key).map(base -> {
      Instant now = now();
      return check.apply(new Work(base, now, seen(key, now)));
    }));
  }

  /** Whether installer progress would be taken now: the refusal (with its HTTP status), or empty. */
  public Future<Optional<dev.rendezvous.service.domain.host.HostTransition.Rejection>> checkProgress(UUID infraEnvId,
      UUID hostId, String stage, String info) {
    return keyOfHost(hostId, infraEnvId).compose(k -> k.isEmpty()
        ? Future.succeededFuture(Optional.of(new dev.rendezvous.service.domain.host.HostTransition.Rejection(404,
            "host " + hostId + " not found")))
        : inspect(k.get(), w -> rules.checkProgress(w, hostId, stage, info)));
  }

  /** Whether a controller report would be taken now by the cluster (its refusal, or empty). */
  public Future<Optional<dev.rendezvous.service.domain.host.HostTransition.Rejection>> checkClusterReport(UUID clusterId,
      java.util.function.BiFunction<ClusterContext, Instant, ClusterTransition> report) {
    return inspect(WorkKey.cluster(clusterId), w -> {
      if (w.cluster() == null) {
        return Optional.of(new dev.rendezvous.service.domain.host.HostTransition.Rejection(404, "cluster " + clusterId
            + " not found"));
      }
      ClusterTransition t = report.apply(w.cluster(), w.now);
      return Optional.ofNullable(t.rejection());
    });
  }

  /**
   * A user's host update through the domain (each field null when not given): role, host name, installation
   * disk ({@code diskField} names the request field for errors) and extras merged into the host's spec.
   * Fails with {@link HostUpdateRejected} when the domain refuses.
   */
  public Future<Void> updateHost(UUID infraEnvId, UUID hostId, HostRole role, String hostname, String diskId,
      String diskField, io.vertx.core.json.JsonObject specChanges) {
    return keyOfHost(hostId, infraEnvId).compose(k -> {
      if (k.isEmpty()) {
        return Future.failedFuture(new HostUpdateRejected(404, null, "host " + hostId + " not found"));
      }
      return run(k.get(), null, w -> {
        String spec = null;
        HostRecord r = w.record(hostId);
        if (specChanges != null && !specChanges.isEmpty() && r != null) {
          io.vertx.core.json.JsonObject merged = new io.vertx.core.json.JsonObject(r.spec()).mergeIn(specChanges);
          spec = StoredJson.canonical(StoredJson.object(merged.encode()));
        }
        rules.updateHost(w, hostId, role, hostname, diskId, diskField, spec);
      }).mapEmpty();
    });
  }

  /**
   * Reads the key's cluster again and refreshes it now (after a bind or unbind); its hosts are read again only when
   * someone wrote them meanwhile. After a change of the cluster's settings: {@link #settingsChanged}.
   */
  public Future<Result> refresh(WorkKey key) {
    return refresh(key, false);
  }

  /**
   * As {@link #refresh}, after a user changed the cluster's settings: every host is also planned again, and pushed
   * where its plan moved (a step the settings added or whose arguments they changed reaches the agents now). Not for
   * a bind or unbind: a bind burst into a big cluster would plan every host once per bind.
   */
  public Future<Result> settingsChanged(WorkKey key) {
    return refresh(key, true);
  }

  private Future<Result> refresh(WorkKey key, boolean settings) {
    return inLane(key, () -> cache.rereadCluster(key, store))
        .compose(v -> run(key, null, w -> {
          if (settings) {
            w.settingsPass();
          }
          rules.settle(w, w.hostIds());
        }));
  }

  /** A periodic refresh of every host (timeouts, due pushes), as the monitor's full passes do. */
  Future<Result> monitorRefresh(WorkKey key) {
    return monitorRefresh(key, true, 0);
  }

  /**
   * A periodic refresh. A full pass, a cluster or host in a state with clock-driven rules, refreshes every host; a
   * resting key only the hosts whose check-in is about to time out, and plans the ones due. Before, every pass that
   * found one plan due (in a 50-host cluster, nearly every 5 s pass: each host's minute ends at its own time)
   * re-validated all hosts and recomputed the majority groups (an idle fleet of 20 such clusters: 3.7 host
   * evaluations per host per minute, 1.9 now).
   */
  Future<Result> monitorRefresh(WorkKey key, boolean full, long intervalMillis) {
    return run(key, null, w -> {
      // a key read afresh (a new cluster, another writer's rows) or without hosts is settled whole: the cluster's own
      // rules may not have run on what was read (a new cluster moves on to pending-for-input that way)
      boolean whole = full || !cache.contains(key) || w.hostIds().isEmpty();
      List<UUID> scope = whole ? w.hostIds() : RestingKeys.clockDriven(w, intervalMillis, disconnection);
      if (whole || !scope.isEmpty()) {
        rules.settle(w, scope);
      }
    });
  }

  /**
   * Whether a monitor pass has anything to do for the key: not cached (read it), a cluster or host in a state
   * with clock-driven rules (preparing, installing, logs, ...), a host whose check-in is about to time out, or a
   * plan that may be due. Resting keys are left alone between the monitor's full passes.
   */
  boolean needsMonitor(WorkKey key, Instant now, long intervalMillis) {
    Loaded l = cache.get(key);
    if (l == null) {
      return !cache.parked(key);
    }
    if (BrainCache.finished(l)) {
      park(key);
      return false;
    }
    return RestingKeys.needsPass(key, l, now, seen(key, now), intervalMillis, disconnection, cache.checkIns(),
        publisher::last);
  }

  /** Drops cached keys whose rows changed in the database (other writers): the monitor's cross-check. */
  void dropStale(Map<WorkKey, BrainStore.Versions> current, long mark) {
    cache.dropStale(current, mark);
  }

  // -------------------------------------------------------------------------------------------- steps out

  static UUID uuid(String s) {
    try {
      return s == null || s.isBlank() ? null : UUID.fromString(s);
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  Context contextFor(WorkKey key) {
    return lanes.contextFor(key);
  }
}
