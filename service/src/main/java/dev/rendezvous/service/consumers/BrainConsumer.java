package dev.rendezvous.service.consumers;

import dev.rendezvous.bus.BusConsumer;
import dev.rendezvous.bus.BusEvent;
import dev.rendezvous.bus.BusProducer;
import dev.rendezvous.bus.Topics;
import dev.rendezvous.service.ServiceConfig;
import dev.rendezvous.service.brain.Brain;
import dev.rendezvous.service.brain.BrainMonitor;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The service's consumer group on the agent-facing topics and the cluster actions, feeding the
 * {@link Brain}. Keyed by cluster id, so one instance handles a cluster's events in order; every handler
 * is idempotent (bus event ids are claimed in the unit of work's transaction). Also runs the clock-driven
 * {@link BrainMonitor} over the clusters of the partitions this instance owns.
 */
public final class BrainConsumer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(BrainConsumer.class);
  public static final String GROUP = "rdv-service-brain";
  /**
   * At most this many waiting events of one lane (a partition across the topics) form one batch. 1,000, not 500: one
   * 1,000-host cluster under 256 connections, its replies metered by the gateway, was processed ~18 % faster and its
   * state ~0.5 s less behind (each batch's start and its last commit are where the lane and PostgreSQL wait on
   * each other; docs/benchmarks.md, session 40).
   */
  static final int MAX_BATCH = 1000;
  /**
   * ... and at most about this many bytes: a 1,000-host cluster's connectivity replies are ~330 KB each on the bus, so
   * ~36 of them (~0.4 s of the lane), not 200-400 (up to the 64 MiB fetched per partition). Whatever waits behind a
   * batch waits for all of it, and a batch's events count as unhandled until its end: at 32 MiB (~100 reports, ~1 s)
   * that round kept the state 2-3 s behind however the gateway held the rest; at 12 MiB mostly under 2 s, the install
   * no slower (docs/benchmarks.md, session 44). Inventories (~4 KB) still fill a batch of 1,000.
   */
  static final long MAX_BATCH_BYTES = 12L << 20;
  /**
   * Fetched-but-unhandled events of one lane before its partition is paused: three full batches behind the one in
   * flight, above the backlog the gateway keeps (its bound, 2,000 events by default). A paused partition is left out
   * of the next fetch, and with the others idle that fetch waits at the broker for up to its 500 ms; the partition,
   * resumed meanwhile, is fetched only after it. At two batches a 100-host cluster under 256 connections was paused
   * every ~0.5 s and its lane sat idle ~250 ms of each: 5,573-5,742 replies/s processed; at four, 8,180-8,683/s
   * (docs/benchmarks.md, session 43). Memory stays bounded by the consumer's byte bounds as well (64 MiB a partition,
   * 256 MiB in all). A gateway bound set higher ({@code --pressure-backlog-events}) raises this to twice it
   * ({@link #maxBuffered}).
   */
  static final int MAX_BUFFERED = 4 * MAX_BATCH;
  static final List<String> TOPICS = List.of(Topics.HOST_REGISTRATIONS, Topics.AGENT_PRESENCE, Topics.STEP_REPLIES,
      Topics.INSTALL_PROGRESS, Topics.CLUSTER_ACTIONS);

  private final Brain brain;
  private final BusConsumer consumer;
  private final BrainMonitor monitor;

  public BrainConsumer(Vertx vertx, Pool pool, BusProducer producer, String bootstrap, ServiceConfig config) {
    this(vertx, pool, producer, bootstrap, config, Clock.systemUTC());
  }

  public BrainConsumer(Vertx vertx, Pool pool, BusProducer producer, String bootstrap, ServiceConfig config,
      Clock clock) {
    this(new Brain(vertx, pool, producer, config.domainConfig(), clock), vertx, bootstrap,
        config.brain().monitorInterval().toMillis(), config.brain().batchesInFlight(), config.brain().batchMaxWait(),
        maxBuffered(config.brain().backlogBoundEvents()));
  }

  /** Around a given brain (shared with the REST API, or built by a benchmark), with the default batch bounds. */
  public BrainConsumer(Brain brain, Vertx vertx, String bootstrap, long monitorIntervalMillis) {
    this(brain, vertx, bootstrap, monitorIntervalMillis, 0,
        dev.rendezvous.service.ServiceConfig.BrainSettings.DEFAULT_BATCH_MAX_WAIT, MAX_BUFFERED);
  }

  /**
   * Fetched-but-unhandled events of one lane before its partition is paused, for a gateway that holds agents past
   * {@code backlogBound} events: {@link #MAX_BUFFERED}, or twice the bound when that is more. Under the bound the
   * brain paused while the gateway still let events in, and each pause left the lane idle for a fetch.
   */
  static int maxBuffered(long backlogBound) {
    return (int) Math.min(Integer.MAX_VALUE / 2, Math.max(MAX_BUFFERED, 2 * backlogBound));
  }

  /**
   * {@code batchesInFlight}: at most this many batches handled at once, 0 for one per brain lane (a core). The brain's
   * work is CPU-bound: more batches in flight than cores only made them smaller (a registration burst: 1.3–1.5
   * events per unit uncapped, 2.5–3.2 capped at two, with a quarter to a third less CPU per registration;
   * docs/benchmarks.md).
   */
  public BrainConsumer(Brain brain, Vertx vertx, String bootstrap, long monitorIntervalMillis, int batchesInFlight,
      java.time.Duration batchMaxWait, int maxBuffered) {
    this.brain = brain;
    // One cluster's events are handled one at a time across all these topics: a single writer per cluster.
    this.consumer = BusConsumer.builder(bootstrap).groupId(GROUP).clientId("rdv-brain")
        .topics(TOPICS)
        .orderAcrossTopics()
        .batchHandler(this::dispatch, MAX_BATCH)
        .maxBatchBytes(MAX_BATCH_BYTES)
        .maxBufferedPerPartition(maxBuffered)
        .maxInFlight(batchesInFlight > 0 ? batchesInFlight : brain.laneCount(), batchMaxWait)
        // the database down or restarting, or a transaction aborted as a deadlock: the events wait on the bus and are
        // handled again, never skipped
        .retryWithoutLimitWhen(e -> dev.rendezvous.service.db.DatabaseUnavailable.is(e)
            || dev.rendezvous.service.db.TransientConflict.is(e)) // a deadlock with the API: nothing written, run again
        // replies gathered for up to 20 ms per fetch, not a fetch per producer batch: each fetch names all 60 partitions
        // (5 topics x 12). Warm 1,000-site swarms used ~11 % less service CPU at 20 ms than at 2 ms (session 35). Paced
        // polls, not a broker-side wait: an idle service no longer fetches every 20 ms (docs/benchmarks.md, session 37)
        .pollPacing(java.time.Duration.ofMillis(20))
        // (an instance that dies hands its clusters to the others after the group's 10 s session, BusConsumer;
        // agents keep polling meanwhile and their replies wait on the bus)
        .start();
    this.monitor = new BrainMonitor(vertx, brain, consumer, bootstrap, Topics.HOST_REGISTRATIONS);
    // a key's events share a partition number across the topics (check-ins and progress with the rest): a unit judges
    // its hosts' silence where that partition is handled through, not at the wall clock, so a backlog never reads as
    // hosts gone quiet
    BusConsumer bus = consumer;
    BrainMonitor m = monitor;
    brain.handledThrough(key -> {
      int count = m.knownPartitionCount();
      Long through = count == 0 ? null : bus.handledThrough().get(Topics.partitionFor(key.partitionKey(), count));
      return through == null || through == Long.MAX_VALUE ? null : java.time.Instant.ofEpochMilli(through);
    });
    monitor.start(monitorIntervalMillis);
  }

  public Brain brain() {
    return brain;
  }

  public CompletableFuture<Void> started() {
    return consumer.started();
  }

  /** Events on the bus this instance has not handled yet (its partitions' lag plus what it fetched). */
  public long backlog() {
    return consumer.backlog();
  }

  /**
   * How far behind what was put on the bus the brain's state is, in seconds: the age of the oldest event it has not
   * handled (as far as its last poll tells; a partition not fetched lately counts from the last event it handled, which
   * is older), 0 when none waits.
   */
  public double behindSeconds() {
    long oldest = Long.MAX_VALUE;
    for (long through : consumer.handledThrough().values()) {
      if (through > 0) {
        oldest = Math.min(oldest, through);
      }
    }
    return oldest == Long.MAX_VALUE ? 0 : Math.max(0, System.currentTimeMillis() - oldest) / 1000.0;
  }

  /** The bus consumer underneath (its counters feed the bus metrics). */
  public dev.rendezvous.bus.BusConsumer busConsumer() {
    return consumer;
  }

  /** Records handled and skipped so far (tests, benchmarks). */
  public long handledCount() {
    return consumer.handledCount();
  }

  /** A lane's waiting events, handed to the brain as one batch (one unit of work per cluster). */
  private CompletionStage<Void> dispatch(List<BusEvent> events) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    Future<Void> f;
    try {
      f = brain.handleBatch(events);
    } catch (RuntimeException e) {
      f = Future.failedFuture(e);
    }
    f.onComplete(ar -> {
      if (ar.succeeded()) {
        done.complete(null);
      } else {
        LOG.atWarn().setCause(ar.cause()).addKeyValue("events", events.size())
            .addKeyValue("first_event_id", events.get(0).eventId()).log("brain batch failed");
        done.completeExceptionally(ar.cause());
      }
    });
    return done;
  }

  @Override
  public void close() {
    monitor.stop();
    consumer.close();
  }
}
