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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs units of work: for one key (a cluster, or an infra-env's unbound hosts), in that key's lane, load
 * (or take from the cache) the cluster and all its hosts, let {@link BrainRules} apply the domain, write
 * every changed row, the events and the bus event claim in one transaction guarded by row versions, and
 * after the commit publish the hosts' next steps. A version conflict (another writer, e.g. a stale owner
 * after a rebalance, or a REST update in another instance) drops the cached copy and runs the work again
 * on fresh rows, a bounded number of times; a replayed bus event changes nothing.
 */
public final class Brain {
  private static final Logger LOG = LoggerFactory.getLogger(Brain.class);
  static final int MAX_ATTEMPTS = 4;

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

  /** After a unit refreshed only some hosts of a key, the rest are refreshed this much later (once per burst). */
  static final long FULL_REFRESH_DELAY_MS = 1000;
  /** At most this many delays between the first ask for a full refresh and the pass. */
  static final int FULL_REFRESH_MAX_DEFERRALS = 5;

  private final Vertx vertx;
  private final Pool pool;
  private final BusProducer producer;
  /** Keys with a full refresh pending. */
  private final KeyDebouncer fullRefreshes;
  /** Keys with a targets pass pending ({@link Work#targetsPass}). */
  private final KeyDebouncer targetsPasses;
  /** A targets pass waits this long after the last host that became or left being a target (a burst of arrivals). */
  static final long TARGETS_QUIET_MS = 1000;
  /** ... and at most this long after the first. */
  static final long TARGETS_MAX_WAIT_MS = 10_000;
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
    this.vertx = vertx;
    this.pool = pool;
    this.producer = producer;
    this.clock = clock;
    this.store = new BrainStore(pool);
    this.lanes = new Lanes(vertx, lanes);
    this.rules = new BrainRules(config, StepIdGenerator.random());
    this.disconnection = config.timeouts().hostDisconnection();
    this.routing = new EventRouting(store, rules, cache.hostKeys());
    this.publisher = new PlanPublisher(producer);
    this.presence = new BrainPresence(this, routing, store, cache, publisher);
    this.fullRefreshes = new KeyDebouncer(vertx);
    this.targetsPasses = new KeyDebouncer(vertx);
    // as many parses at once as the lanes use cores: they run while the lanes work
    this.preParsing = new OutputPreParsing(vertx.createSharedWorkerExecutor("rdv-brain-parse", this.lanes.count()));
  }

  /** The event-loop contexts units run on (one per core unless told otherwise). */
  public int laneCount() {
    return lanes.count();
  }

  public void listener(Listener l) {
    this.listener = l;
  }

  /** Back-pressure: while the service is behind, unchanged plans are pushed again this many times less often. */
  public void pacing(java.util.function.DoubleSupplier factor) {
    this.pacing = factor;
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
  private void askForPreparation(ClusterRecord c) {
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
    return lanes.submit(key, () -> attempt(key, eventId == null ? List.of() : List.of(eventId), body, 1));
  }

  /**
   * Several bus events of one key in one unit of work and one transaction, in order; their hosts and the cluster
   * are refreshed once, after all of them. Events applied before (a replay) are left out and the rest run again.
   * Many events over many hosts run as pipelined units instead.
   */
  Future<Result> runEvents(WorkKey key, List<Apply> applies) {
    int chunks = Math.min(PIPELINE_CHUNKS, applies.size() / PIPELINE_MIN_CHUNK);
    // a host's events in one unit are one row write and one refresh: split over units, each unit writes it again (a
    // 100-host cluster's batch of ~450 replies, 4.5 per host, cost twice the CPU per reply in four units)
    if (chunks < 2 || applies.size() > PIPELINE_EVENTS_PER_HOST * distinctHosts(applies)) {
      return lanes.submit(key, () -> OutputPreParsing.ready(applies, lanes.contextFor(key))
          .compose(v -> attemptEvents(key, applies)));
    }
    List<List<Apply>> parts = new ArrayList<>(chunks);
    for (int i = 0; i < chunks; i++) {
      parts.add(applies.subList(i * applies.size() / chunks, (i + 1) * applies.size() / chunks));
    }
    return lanes.submit(key, () -> pipelined(key, parts));
  }

  private static long distinctHosts(List<Apply> applies) {
    return applies.stream().map(Apply::hostId).distinct().count();
  }

  /** A key's events past twice this many run as pipelined units ({@link #pipelined}), ... */
  static final int PIPELINE_MIN_CHUNK = 32;
  /** ... in at most this many, ... */
  static final int PIPELINE_CHUNKS = 4;
  /** ... when its hosts have this many events each at most, on average. */
  static final double PIPELINE_EVENTS_PER_HOST = 1.25;

  /**
   * Many events of one key as pipelined units ({@link PipelinedUnits}): each prepared while PostgreSQL commits the ones
   * before it on one connection. A unit's domain work (the event loop) and its commit (PostgreSQL) had taken turns.
   * When one does not commit, the rest run as one usual unit: read again when it was stale, its replayed events left
   * out, or the batch failed.
   */
  private Future<Result> pipelined(WorkKey key, List<List<Apply>> chunks) {
    return loaded(key).compose(base -> {
      if (base.cluster() == null && key.isCluster() || base.tenant() == null) {
        return attemptEvents(key, rest(chunks, 0)); // gone, or nothing to write: the usual path says so
      }
      PipelinedUnits pipeline = new PipelinedUnits(pipelineUnits, store, key, chunks, Vertx.currentContext());
      return store.withConnection(conn -> pipeline.run(conn, base)).compose(committed -> {
        if (committed == chunks.size()) {
          return Future.succeededFuture(Result.COMMITTED);
        }
        if (pipeline.failure() != null) {
          return Future.failedFuture(pipeline.failure());
        }
        if (pipeline.outcome() == BrainStore.Outcome.STALE) {
          cache.forget(key);
        }
        publisher.markLost(key); // a dropped unit may have taken a lost push's mark: the next looks at every host
        return attemptEvents(key, rest(chunks, committed));
      });
    }).onFailure(e -> forgetUnlessUnreachable(key, e));
  }

  private final PipelinedUnits.Units pipelineUnits = new PipelinedUnits.Units() {
    @Override
    public PipelinedUnits.Prepared prepare(WorkKey key, Loaded base, List<Apply> applies,
        java.util.function.Function<HostSnapshot, PushMark> last) {
      Work w = applied(key, base, Apply.all(applies), last);
      return new PipelinedUnits.Prepared(w, applies.stream().map(Apply::eventId).toList(), w.committed());
    }

    @Override
    public Future<Void> committed(WorkKey key, PipelinedUnits.Prepared unit) {
      return afterCommit(key, unit.work(), unit.after(), unit.eventIds());
    }

    @Override
    public PushMark lastPushed(HostSnapshot host) {
      return publisher.last(host);
    }
  };

  private static List<Apply> rest(List<List<Apply>> chunks, int from) {
    List<Apply> all = new ArrayList<>();
    chunks.subList(from, chunks.size()).forEach(all::addAll);
    return all;
  }

  private Future<Result> attemptEvents(WorkKey key, List<Apply> applies) {
    List<String> ids = applies.stream().map(Apply::eventId).toList();
    return attempt(key, ids, Apply.all(applies), 1).compose(r -> {
      if (r != Result.REPLAYED || applies.size() == 1) {
        return Future.succeededFuture(r);
      }
      return store.processed(ids).compose(done -> {
        List<Apply> rest = applies.stream().filter(a -> !done.contains(a.eventId())).toList();
        if (rest.isEmpty()) {
          return Future.succeededFuture(Result.REPLAYED);
        }
        if (rest.size() == applies.size()) {
          return Future.failedFuture(new IllegalStateException("a claim failed for none of the batch's events"));
        }
        return attemptEvents(key, rest);
      });
    });
  }

  /** Like {@link #run} but in the lane only: for work that needs no unit (e.g. a check-in touch). */
  <T> Future<T> inLane(WorkKey key, java.util.function.Supplier<Future<T>> task) {
    return lanes.submit(key, task);
  }

  private Future<Result> attempt(WorkKey key, List<String> eventIds, Consumer<Work> body, int n) {
    return loaded(key).compose(base -> {
      if (base.cluster() == null && key.isCluster()) {
        return Future.succeededFuture(Result.GONE); // cluster deleted: its events have nothing to act on
      }
      Work w = applied(key, base, body, publisher::last);
      if (!w.changed() && eventIds.isEmpty()) {
        askForPreparation(base.cluster());
        cache.keep(key, base.withUnitFindings(w.planFloor(), w.clusterViewIfUnchanged()));
        return Future.succeededFuture(Result.NOTHING_TO_DO);
      }
      if (w.tenant() == null) {
        LOG.atWarn().addKeyValue("key", key).log("no tenant for work; nothing written");
        return Future.succeededFuture(Result.GONE);
      }
      return store.commit(w, eventIds).compose(outcome -> switch (outcome) {
        case COMMITTED -> afterCommit(key, w, w.committed(), eventIds).map(Result.COMMITTED);
        case REPLAY -> Future.succeededFuture(Result.REPLAYED);
        case STALE -> {
          cache.forget(key);
          if (n >= MAX_ATTEMPTS) {
            yield Future.failedFuture(new IllegalStateException(key + " kept changing under " + n + " attempts"));
          }
          LOG.atDebug().addKeyValue("key", key).addKeyValue("attempt", n).log("stale state, reloading");
          yield attempt(key, eventIds, body, n + 1);
        }
      });
    }).onFailure(e -> forgetUnlessUnreachable(key, e));
  }

  /**
   * After a failed unit: a database out of reach (no connection in time) wrote nothing, so the cache still holds the
   * rows (a 1,000-host cluster read again on every retry kept an event loop busy for seconds each time). Other
   * failures drop it; a commit that landed unbeknown is caught by the row versions either way.
   */
  private void forgetUnlessUnreachable(WorkKey key, Throwable e) {
    if (!(e instanceof HostUpdateRejected) && !dev.rendezvous.service.db.DatabaseUnavailable.is(e)) {
      cache.forget(key);
    }
  }

  /** A unit up to its commit: {@code body} on the key's state, its hosts and cluster settled, its plans made. */
  private Work applied(WorkKey key, Loaded base, Consumer<Work> body,
      java.util.function.Function<HostSnapshot, PushMark> last) {
    Instant now = now();
    Work w = new Work(base, now, seen(key, now));
    body.accept(w);
    List<UUID> scope = w.refreshScope();
    if (!scope.isEmpty()) {
      rules.settle(w, scope);
    }
    if (publisher.lostPushes(key)) {
      w.planFloor(null); // a host whose push was lost is due now: look at every host
    }
    w.fillsTargets(publisher::fillsTargets);
    w.targetsSettling(targetsPasses.pending(key));
    rules.plan(w, last, pacing.getAsDouble());
    if (w.targetsRetryAt() != null) {
      scheduleTargetsPass(key, Math.max(0, java.time.Duration.between(w.now, w.targetsRetryAt()).toMillis()));
    }
    return w;
  }

  /** A unit committed: the cache, its plans published (done when handed over), listeners, what it asks for later. */
  private Future<Void> afterCommit(WorkKey key, Work w, Loaded after, List<String> eventIds) {
    committedUnits.increment();
    committedUnitEvents.add(eventIds.size());
    cache.committed(key, after, w.writes().keySet());
    Future<Void> published = publisher.publish(w);
    String eventId = eventIds.isEmpty() ? null : eventIds.get(eventIds.size() - 1);
    listener.committed(key, eventId, w.changedHosts().size(), w.pushes().size());
    if (!eventIds.isEmpty()) {
      listener.eventsCommitted(key, eventIds);
    }
    listener.hostsWritten(key, w.writes().keySet());
    askForPreparation(after.cluster());
    if (w.othersMayBeStale()) {
      scheduleFullRefresh(key);
    }
    if (w.targetsMoved()) {
      scheduleTargetsPass(key, TARGETS_QUIET_MS);
    }
    return published;
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
    return committedUnits.sum();
  }

  /** Bus events in the units this instance's brain committed (the clock's units carry none). */
  public double committedUnitEvents() {
    return committedUnitEvents.sum();
  }

  private final java.util.concurrent.atomic.LongAdder committedUnits = new java.util.concurrent.atomic.LongAdder();
  private final java.util.concurrent.atomic.LongAdder committedUnitEvents = new java.util.concurrent.atomic.LongAdder();

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

  /**
   * One full refresh of the key a little later, however many units asked for it meanwhile. While units keep asking
   * (a burst of inventories), it waits for a quiet delay, up to {@link #FULL_REFRESH_MAX_DEFERRALS} delays: each
   * unit refreshes its own hosts at once, so the pass over the others is worth doing once the burst is over.
   */
  private void scheduleFullRefresh(WorkKey key) {
    Loaded l = cache.get(key);
    // a big cluster's full pass costs more: it runs less often (1 ms per host, at least the base delay)
    long delay = Math.max(FULL_REFRESH_DELAY_MS, l == null ? 0 : l.hostCount());
    fullRefreshes.ask(key, delay, delay, delay * FULL_REFRESH_MAX_DEFERRALS,
        () -> run(key, null, w -> {
          rules.settle(w, w.hostIds());
          w.targetsPass(); // it looks at every host anyway
        }).onFailure(e -> LOG.atDebug().setCause(e).addKeyValue("key", key)
            .log("full refresh failed; the monitor's passes cover it")));
  }

  /**
   * One pass over the key's hosts for connectivity targets that moved ({@link Work#targetsPass}) after
   * {@code delayMs}, later while hosts keep arriving ({@link #TARGETS_QUIET_MS}, at most {@link #TARGETS_MAX_WAIT_MS}).
   */
  private void scheduleTargetsPass(WorkKey key, long delayMs) {
    targetsPasses.ask(key, delayMs, TARGETS_QUIET_MS, Math.max(delayMs, TARGETS_MAX_WAIT_MS),
        () -> run(key, null, Work::targetsPass).onFailure(e -> LOG.atDebug().setCause(e).addKeyValue("key", key)
            .log("targets pass failed; the hosts' due plans cover it")));
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
      Map<WorkKey, List<Apply>> units = new java.util.LinkedHashMap<>();
      for (Future<Optional<EventRouting.Target>> t : targets) {
        t.result().ifPresent(x -> units.computeIfAbsent(x.key(), k -> new ArrayList<>()).add(x.apply()));
      }
      units.forEach((key, applies) -> done.add(runEvents(key, applies)));
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
          spec = SnapshotMapper.canonical(SnapshotMapper.object(merged.encode()));
        }
        rules.updateHost(w, hostId, role, hostname, diskId, diskField, spec);
      }).mapEmpty();
    });
  }

  /**
   * Reads the key's cluster again and refreshes it now (e.g. after the REST API changed a cluster's settings); its
   * hosts are read again only when someone wrote them meanwhile.
   */
  public Future<Result> refresh(WorkKey key) {
    return inLane(key, () -> cache.rereadCluster(key, store))
        .compose(v -> run(key, null, w -> rules.settle(w, w.hostIds())));
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
