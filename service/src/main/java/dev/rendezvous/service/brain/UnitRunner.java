package dev.rendezvous.service.brain;

import dev.rendezvous.service.brain.Brain.Apply;
import dev.rendezvous.service.brain.Brain.Result;
import dev.rendezvous.service.domain.host.HostSnapshot;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A unit of work's life in its key's lane ({@link Brain} says what a unit is): the key's state loaded (or taken from
 * the cache), the body applied, hosts and cluster settled, plans made, one transaction, then the cache, the plans
 * published and what a commit asks for later (a full refresh after a burst, a targets pass). A version conflict reads
 * the rows again and runs the unit again, up to {@link #MAX_ATTEMPTS} times; a key's many events over many hosts run
 * as {@link PipelinedUnits}.
 */
final class UnitRunner {
  private static final Logger LOG = LoggerFactory.getLogger(Brain.class); // the brain's log lines, as before
  static final int MAX_ATTEMPTS = 4;
  /** After a unit refreshed only some hosts of a key, the rest are refreshed this much later (once per burst). */
  static final long FULL_REFRESH_DELAY_MS = 1000;
  /** At most this many delays between the first ask for a full refresh and the pass. */
  static final int FULL_REFRESH_MAX_DEFERRALS = 5;
  /** A targets pass waits this long after the last host that became or left being a target (a burst of arrivals). */
  static final long TARGETS_QUIET_MS = 1000;
  /** ... and at most this long after the first. */
  static final long TARGETS_MAX_WAIT_MS = 10_000;

  private final Brain brain;
  private final BrainStore store;
  private final Lanes lanes;
  private final BrainRules rules;
  private final BrainCache cache;
  private final PlanPublisher publisher;
  /** Keys with a full refresh pending. */
  private final KeyDebouncer fullRefreshes;
  /** Keys with a targets pass pending ({@link Work#targetsPass}). */
  private final KeyDebouncer targetsPasses;
  private final LongAdder committedUnits = new LongAdder();
  private final LongAdder committedUnitEvents = new LongAdder();

  UnitRunner(Brain brain, Vertx vertx, BrainStore store, Lanes lanes, BrainRules rules, BrainCache cache,
      PlanPublisher publisher) {
    this.brain = brain;
    this.store = store;
    this.lanes = lanes;
    this.rules = rules;
    this.cache = cache;
    this.publisher = publisher;
    this.fullRefreshes = new KeyDebouncer(vertx);
    this.targetsPasses = new KeyDebouncer(vertx);
  }

  /** See {@link Brain#run}. */
  Future<Result> run(WorkKey key, String eventId, Consumer<Work> body) {
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

  private Future<Result> attempt(WorkKey key, List<String> eventIds, Consumer<Work> body, int n) {
    return loaded(key).compose(base -> {
      if (base.cluster() == null && key.isCluster()) {
        return Future.succeededFuture(Result.GONE); // cluster deleted: its events have nothing to act on
      }
      Work w = applied(key, base, body, publisher::last);
      if (!w.changed() && eventIds.isEmpty()) {
        brain.askForPreparation(base.cluster());
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
    Instant now = brain.now();
    Work w = new Work(base, now, brain.seen(key, now));
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
    rules.plan(w, last, brain.pacingFactor());
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
    Brain.Listener listener = brain.listener();
    listener.committed(key, eventId, w.changedHosts().size(), w.pushes().size());
    if (!eventIds.isEmpty()) {
      listener.eventsCommitted(key, eventIds);
    }
    listener.hostsWritten(key, w.writes().keySet());
    brain.askForPreparation(after.cluster());
    if (w.othersMayBeStale()) {
      scheduleFullRefresh(key);
    }
    if (w.targetsMoved()) {
      scheduleTargetsPass(key, TARGETS_QUIET_MS);
    }
    return published;
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

  /** Units of work committed (see {@link Brain#committedUnits}). */
  double committedUnits() {
    return committedUnits.sum();
  }

  /** Bus events in the committed units. */
  double committedUnitEvents() {
    return committedUnitEvents.sum();
  }

  /** The key's state with the check-ins written since folded in (on the key's lane). */
  private Future<Loaded> loaded(WorkKey key) {
    return cache.load(key, store);
  }
}
