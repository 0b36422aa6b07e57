package dev.rendezvous.bus;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link KafkaConsumer} on its own thread and hands every {@link BusEvent} to an asynchronous handler.
 *
 * <h2>Guarantees</h2>
 * <ul>
 *   <li><b>Order</b>: the records of one partition are handled one at a time, in offset order: the next one is
 *       handed over only when the previous one's stage completed. Partitions proceed in parallel.
 *       With {@link Builder#orderAcrossTopics()} the same holds for the same partition number of all the
 *       subscribed topics (same key ⇒ same partition number when topics have equal partition counts), so one
 *       cluster's events are handled one at a time even across topics.</li>
 *   <li><b>At-least-once</b> (group mode): an offset is committed only after the handler's stage for that record
 *       (and all before it in the partition) completed; commits are asynchronous every
 *       {@link Builder#commitInterval}, synchronous on partition revocation and on close. After a crash, the
 *       records after the last commit are handled again: handlers deduplicate on {@code event_id}.</li>
 *   <li><b>Failures</b> (the rule): a handler that throws, completes exceptionally, or does not complete within
 *       {@link Builder#handlerTimeout} is retried up to {@link Builder#maxRetries} more times with doubling
 *       back-off (from {@link Builder#retryBackoff}, capped at 5 s), the partition waiting meanwhile; after the
 *       last attempt the record is skipped and logged at ERROR with its event id, topic, partition and offset.
 *       A record that does not decode is logged at ERROR and skipped at once. The partition never wedges on a
 *       failure and the consumer thread never dies of a handler error.</li>
 *   <li><b>Versions</b> (rolling upgrades): a record of a payload type this build does not know, or of a payload
 *       version above the one it reads, was written by a newer build. In group mode its lane waits at it, not
 *       committing past it, until the partition goes to an instance that reads it; fan-out readers skip it. Either
 *       way an ERROR line and {@link #refusedCount()}. Older versions are read.</li>
 *   <li><b>Back-pressure</b>: a partition with {@link Builder#maxBufferedPerPartition} fetched-but-unhandled
 *       records, or {@link Builder#maxBufferedBytesPerPartition} bytes of them, is paused until half of them are
 *       handled, and while all partitions together hold {@link Builder#maxBufferedBytes} every partition holding any
 *       is: a lagging handler's backlog waits on the broker's disk, not in the heap (one 1,000-host cluster's
 *       connectivity replies are ~300 KB each: 1,000 of them were 200-300 MB of heap).</li>
 *   <li><b>Batches</b> ({@link Builder#batchHandler}): instead of one record, a lane hands over every record waiting
 *       in it (up to the batch size and {@link Builder#maxBatchBytes}, in order) as one list; the guarantees above
 *       hold for the batch as a whole. A batch that still fails after its retries is split: its records are handled
 *       again one by one (each with its own retries), so one bad record is skipped alone.
 *       {@link Builder#maxInFlight} caps how many lanes are handled at once: the others wait (oldest first, and never
 *       past a bound) and their batches grow meanwhile.</li>
 * </ul>
 *
 * <h2>Threads</h2>
 * The handler is called on this consumer's thread (never a Vert.x event loop). It must return quickly: start the
 * work elsewhere (e.g. {@code context.runOnContext}, a worker pool) and return a stage. Its stage may complete on
 * any thread.
 *
 * <h2>Modes</h2>
 * Group mode ({@link #group}): partitions shared among the instances of a consumer group, offsets committed.
 * Fan-out mode ({@link #fanOut}): no group, every partition of the topics assigned to this instance from the
 * earliest or latest position, nothing committed: every instance reads everything (the gateways' steps topic).
 * Partitions added to a topic later are not picked up in fan-out mode.
 */
public final class BusConsumer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(BusConsumer.class);
    private static final AtomicLong INSTANCES = new AtomicLong();
    /** Records a poll returns at most; a poll that returned fewer is followed by the pace ({@link Builder#pollPacing}). */
    private static final int MAX_POLL_RECORDS = 500;
    /** A group member's session and heartbeat (see the constructor). */
    private static final int GROUP_SESSION_TIMEOUT_MS = 10_000;
    private static final int GROUP_HEARTBEAT_INTERVAL_MS = 3_000;

    /** Where to start reading when there is no committed offset (group mode) or always (fan-out mode). */
    public enum StartFrom { EARLIEST, LATEST }

    private final Builder config;
    private final String name;
    private final KafkaConsumer<String, byte[]> consumer;
    private final Thread thread;
    private final CompletableFuture<Void> started = new CompletableFuture<>();
    private final CompletableFuture<Void> stopped = new CompletableFuture<>();
    private final AtomicLong handled = new AtomicLong();
    private final AtomicLong skipped = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong retried = new AtomicLong();
    private final AtomicLong split = new AtomicLong();
    private volatile boolean running = true;
    /** When the next poll may be made, with {@link Builder#pollPacing} (nanoTime; poll thread only). */
    private long nextPollAt = System.nanoTime();

    // its parts (package-private classes): each one's doc says which of its state only the poll thread touches
    private final PartitionOffsets partitions;
    private final HandlerAttempts attempts;
    private final ConsumerLanes lanes;
    private final BackPressure backPressure;

    private BusConsumer(Builder config) {
        long createdNanos = System.nanoTime(); // the first commit interval starts here
        this.config = config;
        long n = INSTANCES.incrementAndGet();
        this.name = (config.groupId != null ? config.groupId : "fanout") + "-" + n;
        Map<String, Object> conf = new HashMap<>();
        conf.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers);
        conf.put(ConsumerConfig.CLIENT_ID_CONFIG, config.clientId != null ? config.clientId : "rdv-" + name);
        conf.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        conf.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, config.startFrom == StartFrom.LATEST ? "latest" : "earliest");
        conf.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, MAX_POLL_RECORDS);
        if (config.groupId != null) {
            conf.put(ConsumerConfig.GROUP_ID_CONFIG, config.groupId);
            // an instance that dies (kill -9, a lost machine) hands its partitions to the others after 10 s, not
            // Kafka's default 45 s; and a restart after a crash, stopped while the dead member's session lasted,
            // waited 5 s more to close (its join pending behind it)
            conf.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, GROUP_SESSION_TIMEOUT_MS);
            conf.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, GROUP_HEARTBEAT_INTERVAL_MS);
        }
        conf.putAll(config.overrides);
        this.consumer = new KafkaConsumer<>(conf, new StringDeserializer(), new ByteArrayDeserializer());
        this.thread = new Thread(this::run, "rdv-bus-consumer-" + name);
        this.thread.setDaemon(true);
        this.partitions = new PartitionOffsets(config, name, consumer, createdNanos);
        this.attempts = new HandlerAttempts(config, name, consumer, thread, () -> running, handled, retried, skipped,
                split);
        this.lanes = new ConsumerLanes(config, name, () -> running, skipped, refused, attempts);
        this.backPressure = new BackPressure(config, consumer);
    }

    /** A group consumer, new groups starting from the earliest records; started. */
    public static BusConsumer group(String bootstrapServers, String groupId, List<String> topics,
            Function<BusEvent, CompletionStage<Void>> handler) {
        return builder(bootstrapServers).groupId(groupId).topics(topics).handler(handler).start();
    }

    /** A fan-out consumer (no group, all partitions, no commits) reading from {@code from}; started. */
    public static BusConsumer fanOut(String bootstrapServers, List<String> topics, StartFrom from,
            Function<BusEvent, CompletionStage<Void>> handler) {
        return builder(bootstrapServers).topics(topics).startFrom(from).handler(handler).start();
    }

    public static Builder builder(String bootstrapServers) {
        return new Builder(bootstrapServers);
    }

    /**
     * Completes once partitions are assigned and their start positions resolved: records published after this
     * are seen even from {@link StartFrom#LATEST}. In group mode, completes on the first assignment.
     */
    public CompletableFuture<Void> started() {
        return started;
    }

    /** Completes when the consumer thread has finished (after {@link #close()}). */
    public CompletableFuture<Void> stopped() {
        return stopped;
    }

    /** Records whose handler succeeded. */
    public long handledCount() {
        return handled.get();
    }

    /** Handler attempts that failed and were scheduled again (a batch counts once). */
    /** Batches that failed after their retries and were handled again record by record. */
    public long splitCount() {
        return split.get();
    }

    public long retriedCount() {
        return retried.get();
    }

    /** Records a newer build wrote that this one refused to read (held at, or in fan-out mode skipped). */
    public long refusedCount() {
        return refused.get();
    }

    /** Records skipped: undecodable, from a newer build in fan-out mode, or failed after all retries. */
    public long skippedCount() {
        return skipped.get();
    }

    /**
     * How far behind this consumer is: the records of its partitions not yet handled (those the broker has past the
     * fetch position, and those fetched but not yet handled), as of its last poll.
     */
    public long backlog() {
        return backPressure.backlog();
    }

    /**
     * For each partition number this consumer owns (across its topics), the time (epoch ms, the records' own
     * timestamps) through which every record was handled: just before the oldest one fetched and not handled yet, or
     * {@code Long.MAX_VALUE} when none waits. What a handler judges by the clock (who went quiet, what timed out) is known only up to
     * there. Partitions not owned are absent; measured on every poll.
     */
    public java.util.Map<Integer, Long> handledThrough() {
        return backPressure.handledThrough();
    }

    /** The bytes of the records fetched but not yet handled, as of the last poll (bounded per partition). */
    public long bufferedBytes() {
        return backPressure.bufferedBytes();
    }

    /** Fetch requests this consumer has sent (Kafka's fetch-total; its metrics are read from any thread). */
    double fetchCount() {
        for (var e : consumer.metrics().entrySet()) {
            if (e.getKey().name().equals("fetch-total") && e.getKey().group().equals("consumer-fetch-manager-metrics")) {
                return ((Number) e.getValue().metricValue()).doubleValue();
            }
        }
        return 0;
    }

    /** The partitions this consumer currently owns (an immutable snapshot; a new object after every change). */
    public java.util.Set<TopicPartition> assignment() {
        return partitions.assignment();
    }

    /** Successful offset commits so far (group mode). */
    public long commitCount() {
        return partitions.commitCount();
    }

    /**
     * Stops polling, waits up to the close timeout for handlers in flight, commits what completed, closes the
     * Kafka consumer. Idempotent; blocks (not for an event loop).
     */
    @Override
    public void close() {
        running = false;
        consumer.wakeup();
        if (Thread.currentThread() == thread) {
            return; // called from a handler: the loop ends after this record
        }
        try {
            stopped.get(config.closeTimeout.toMillis() + 10_000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            LOG.warn("bus consumer {} did not stop in time: {}", name, e.toString());
        }
    }

    // ------------------------------------------------------------------------------------------------ poll thread

    private void run() {
        try {
            if (config.groupId != null) {
                consumer.subscribe(config.topics,
                        new ConsumerRebalance(config, name, consumer, partitions, lanes, attempts, started));
            } else {
                assignAll();
            }
            while (running) {
                try {
                    processSignalsAndDispatch();
                    partitions.commitIfDue(false);
                    backPressure.applyBackPressure(partitions.states());
                    long pause = nextPollAt - System.nanoTime();
                    if (pause > 0) {
                        // completions, and a held-back lane falling due, are handled at the loop's top meanwhile
                        attempts.awaitRemoteSignal(Math.min(pause, lanes.pollTimeout().toNanos()));
                        continue;
                    }
                    ConsumerRecords<String, byte[]> records = consumer.poll(lanes.pollTimeout());
                    if (!records.isEmpty() && records.count() < MAX_POLL_RECORDS) {
                        nextPollAt = System.nanoTime() + config.pollPace.toNanos();
                    }
                    lanes.enqueue(records, partitions);
                    backPressure.measureBacklog(partitions.states());
                } catch (WakeupException wakeup) {
                    // a handler completed on another thread, or close() was called
                } catch (RuntimeException e) {
                    if (!running) {
                        break;
                    }
                    LOG.error("bus consumer {}: poll loop error, retrying in 1 s", name, e);
                    sleepQuietly(1000);
                }
            }
            shutdown();
        } catch (Throwable t) {
            LOG.error("bus consumer {} failed", name, t);
            started.completeExceptionally(t);
        } finally {
            attempts.shutdownTimers();
            try {
                consumer.close(Duration.ofSeconds(5));
            } catch (RuntimeException e) {
                LOG.warn("bus consumer {}: close: {}", name, e.toString());
            }
            started.completeExceptionally(new IllegalStateException("bus consumer " + name + " stopped"));
            stopped.complete(null);
        }
    }

    private void assignAll() {
        List<TopicPartition> all = new ArrayList<>();
        for (String topic : config.topics) {
            List<PartitionInfo> infos = retryOnWakeup(() -> consumer.partitionsFor(topic));
            if (infos == null || infos.isEmpty()) {
                throw new IllegalStateException("topic " + topic + " does not exist (run TopicSetup.ensure first)");
            }
            infos.forEach(i -> all.add(new TopicPartition(i.topic(), i.partition())));
        }
        consumer.assign(all);
        if (config.startFrom == StartFrom.LATEST) {
            consumer.seekToEnd(all);
        } else {
            consumer.seekToBeginning(all);
        }
        for (TopicPartition tp : all) {
            retryOnWakeup(() -> consumer.position(tp)); // resolve now so later records are not missed
            partitions.add(tp, lanes.join(tp));
        }
        started.complete(null);
        LOG.debug("bus consumer {} reads {} partitions of {} from {}", name, all.size(), config.topics,
                config.startFrom);
    }

    /** Handles completions and starts the next record of every idle lane, until nothing moves. */
    private void processSignalsAndDispatch() {
        boolean progress = true;
        while (progress) {
            progress = attempts.drainSignals(true);
            progress |= lanes.dispatchIdle();
        }
    }

    private void shutdown() {
        attempts.awaitInFlight(new ArrayList<>(partitions.states()), config.closeTimeout);
        partitions.commitIfDue(true);
        // done with every partition: the revocation that KafkaConsumer.close() triggers finds nothing to wait for
        partitions.remove(new ArrayList<>(partitions.owned()), lanes::leave);
        LOG.debug("bus consumer {} stopped: {} handled, {} skipped", name, handled.get(), skipped.get());
    }

    /** Makes a blocking call, again when a wakeup interrupts it. */
    static <T> T retryOnWakeup(Supplier<T> call) {
        while (true) {
            try {
                return call.get();
            } catch (WakeupException e) {
                // wakeups are only nudges to look at completions (or to stop); the blocking call is still wanted
            }
        }
    }

    private static void sleepQuietly(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ---------------------------------------------------------------------------------------------------- builder

    /** Settings of a {@link BusConsumer}; {@link #start()} builds and starts it. */
    public static final class Builder {
        // package-private: the consumer's parts read them
        final String bootstrapServers;
        String groupId;
        String clientId;
        List<String> topics = List.of();
        Function<BusEvent, CompletionStage<Void>> handler;
        Function<List<BusEvent>, CompletionStage<Void>> batchHandler;
        int maxBatch = 1;
        long maxBatchBytes = Long.MAX_VALUE;
        int maxInFlight;
        Duration maxWait = Duration.ofMillis(200);
        StartFrom startFrom;
        int maxRetries = 3;
        java.util.function.Predicate<Throwable> unavailable = t -> false;
        Duration retryBackoff = Duration.ofMillis(200);
        Duration handlerTimeout = Duration.ofSeconds(60);
        Duration closeTimeout = Duration.ofSeconds(10);
        Duration revokeTimeout = Duration.ofSeconds(10);
        Duration commitInterval = Duration.ofMillis(200);
        Duration pollTimeout = Duration.ofMillis(500);
        Duration pollPace = Duration.ZERO;
        int maxBufferedPerPartition = 1000;
        long maxBufferedBytesPerPartition = 64L << 20;
        long maxBufferedBytes = 256L << 20;
        boolean orderAcrossTopics;
        final Map<String, Object> overrides = new HashMap<>();

        private Builder(String bootstrapServers) {
            this.bootstrapServers = Objects.requireNonNull(bootstrapServers, "bootstrapServers");
        }

        /** Group mode with this group id; without it the consumer runs in fan-out mode. */
        public Builder groupId(String groupId) {
            this.groupId = groupId;
            return this;
        }

        public Builder clientId(String clientId) {
            this.clientId = clientId;
            return this;
        }

        public Builder topics(List<String> topics) {
            this.topics = List.copyOf(topics);
            return this;
        }

        public Builder handler(Function<BusEvent, CompletionStage<Void>> handler) {
            this.handler = handler;
            return this;
        }

        /**
         * Batch mode: each lane hands over the records waiting in it, up to {@code maxBatch}, as one ordered list
         * (see the class doc); replaces {@link #handler}.
         */
        public Builder batchHandler(Function<List<BusEvent>, CompletionStage<Void>> batchHandler, int maxBatch) {
            this.batchHandler = batchHandler;
            this.maxBatch = Math.max(1, maxBatch);
            return this;
        }

        /**
         * Batch mode: a batch ends once its records' values reach this many bytes (its first record alone may be
         * more). A handler whose work grows with a record's size (a 300 KB report) then gets batches of about equal
         * work, and what waits behind one is not held for seconds. Default: no bound but {@code maxBatch}.
         */
        public Builder maxBatchBytes(long max) {
            this.maxBatchBytes = Math.max(1, max);
            return this;
        }

        /**
         * At most this many lanes handled at once (0, the default: every lane with work). A handler whose work is
         * CPU-bound gains nothing from more batches in flight than it has cores; capped, the waiting lanes gather what
         * arrives meanwhile into fewer, larger batches (whose fixed cost — a transaction, a pass over a cluster — is
         * paid once for all their records). Idle lanes start oldest record first, so none starves, and a lane whose
         * next record has waited {@code maxWait} starts whatever is in flight (a slow batch holds up the others no
         * longer than that).
         */
        public Builder maxInFlight(int maxInFlight, Duration maxWait) {
            this.maxInFlight = Math.max(0, maxInFlight);
            this.maxWait = Objects.requireNonNull(maxWait);
            return this;
        }

        /** Default: EARLIEST in group mode (for a group without commits), LATEST in fan-out mode. */
        public Builder startFrom(StartFrom startFrom) {
            this.startFrom = startFrom;
            return this;
        }

        /** Retries after the first failed attempt before the record is skipped (default 3). */
        public Builder maxRetries(int maxRetries) {
            this.maxRetries = Math.max(0, maxRetries);
            return this;
        }

        /**
         * Failures that mean a dependency is unavailable (e.g. the database restarting): such a record is retried
         * without limit (back-off capped at 5 s), never split or skipped, so nothing is lost to an outage.
         */
        public Builder retryWithoutLimitWhen(java.util.function.Predicate<Throwable> unavailable) {
            this.unavailable = Objects.requireNonNull(unavailable);
            return this;
        }

        /** First retry delay, doubled at each retry, capped at 5 s (default 200 ms). */
        public Builder retryBackoff(Duration retryBackoff) {
            this.retryBackoff = retryBackoff;
            return this;
        }

        /** A handler stage not complete after this counts as a failed attempt (default 60 s). */
        public Builder handlerTimeout(Duration handlerTimeout) {
            this.handlerTimeout = handlerTimeout;
            return this;
        }

        /** How long close() waits for handlers in flight (default 10 s). */
        public Builder closeTimeout(Duration closeTimeout) {
            this.closeTimeout = closeTimeout;
            return this;
        }

        /** How long a revocation waits for handlers in flight before giving the partition up (default 10 s). */
        public Builder revokeTimeout(Duration revokeTimeout) {
            this.revokeTimeout = revokeTimeout;
            return this;
        }

        /** Minimum time between asynchronous commits (default 200 ms). */
        public Builder commitInterval(Duration commitInterval) {
            this.commitInterval = commitInterval;
            return this;
        }

        public Builder maxBufferedPerPartition(int max) {
            this.maxBufferedPerPartition = Math.max(2, max);
            return this;
        }

        /**
         * Fetched-but-unhandled bytes (keys and values) of one partition before it is paused (default 64 MiB: a batch
         * handler gets up to that much of one key's backlog at once, ~200 replies of a 1,000-host cluster).
         */
        public Builder maxBufferedBytesPerPartition(long max) {
            this.maxBufferedBytesPerPartition = Math.max(2, max);
            return this;
        }

        /** Fetched-but-unhandled bytes of all partitions before every partition holding any is paused (256 MiB). */
        public Builder maxBufferedBytes(long max) {
            this.maxBufferedBytes = Math.max(2, max);
            return this;
        }

        /** Serialize records with the same partition number across all subscribed topics (see class doc). */
        public Builder orderAcrossTopics() {
            this.orderAcrossTopics = true;
            return this;
        }

        /**
         * Gathers records by pacing the polls, not by a broker-side wait: a poll that returned records (fewer than a
         * poll's most) is followed by the next one no sooner than {@code pace} later, so under load one fetch carries
         * what came in a pace's time instead of each producer batch waking this consumer for a fetch of its own
         * (docs/benchmarks.md, session 19). The fetch itself keeps Kafka's defaults, answered at the first record or
         * after 500 ms: a quiet bus costs a fetch per half second and a lone record is not held back. A broker-side
         * wait (fetch.min.bytes with fetch.max.wait.ms) fetched every few ms on an idle bus: an idle service spent
         * ~10 % of a core on fetches with nothing in them (session 37). Completions are handled during the pause.
         */
        public Builder pollPacing(Duration pace) {
            if (pace.isNegative()) {
                throw new IllegalArgumentException("a poll pace must be 0 or more");
            }
            this.pollPace = pace;
            return this;
        }

        /** Extra {@link ConsumerConfig} settings, e.g. {@code group.protocol=consumer}. */
        public Builder config(String key, Object value) {
            this.overrides.put(key, value);
            return this;
        }

        public BusConsumer start() {
            if (topics.isEmpty()) {
                throw new IllegalArgumentException("no topics to consume");
            }
            if (handler == null && batchHandler == null) {
                throw new NullPointerException("handler");
            }
            if (startFrom == null) {
                startFrom = groupId != null ? StartFrom.EARLIEST : StartFrom.LATEST;
            }
            BusConsumer consumer = new BusConsumer(this);
            consumer.thread.start();
            return consumer;
        }
    }
}
