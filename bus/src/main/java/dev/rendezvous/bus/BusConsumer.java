package dev.rendezvous.bus;

import dev.rendezvous.bus.event.UnknownPayload;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
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
 *       A record that does not decode, or whose payload type this build does not know, is logged and skipped
 *       at once. The partition never wedges and the consumer thread never dies of a handler error.</li>
 *   <li><b>Back-pressure</b>: a partition with {@link Builder#maxBufferedPerPartition} fetched-but-unhandled
 *       records, or {@link Builder#maxBufferedBytesPerPartition} bytes of them, is paused until half of them are
 *       handled, and while all partitions together hold {@link Builder#maxBufferedBytes} every partition holding any
 *       is: a lagging handler's backlog waits on the broker's disk, not in the heap (one 1,000-host cluster's
 *       connectivity replies are ~300 KB each: 1,000 of them were 200-300 MB of heap).</li>
 *   <li><b>Batches</b> ({@link Builder#batchHandler}): instead of one record, a lane hands over every record waiting
 *       in it (up to the batch size, in order) as one list; the guarantees above hold for the batch as a whole. A
 *       batch that still fails after its retries is split: its records are handled again one by one (each with its
 *       own retries), so one bad record is skipped alone. {@link Builder#maxInFlight} caps how many lanes are handled at
 *       once: the others wait (oldest first, and never past a bound) and their batches grow meanwhile.</li>
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
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(5);

    /** Where to start reading when there is no committed offset (group mode) or always (fan-out mode). */
    public enum StartFrom { EARLIEST, LATEST }

    private final Builder config;
    private final String name;
    private final KafkaConsumer<String, byte[]> consumer;
    private final Thread thread;
    private final ScheduledExecutorService timers;
    private final LinkedBlockingQueue<Signal> remoteSignals = new LinkedBlockingQueue<>();
    private final ArrayDeque<Signal> localSignals = new ArrayDeque<>();
    private final List<Signal> deferredRetries = new ArrayList<>();
    private final CompletableFuture<Void> started = new CompletableFuture<>();
    private final CompletableFuture<Void> stopped = new CompletableFuture<>();
    private final AtomicLong handled = new AtomicLong();
    private final AtomicLong skipped = new AtomicLong();
    private final AtomicLong retried = new AtomicLong();
    private final AtomicLong committed = new AtomicLong();
    private volatile boolean running = true;
    /** Records on the broker not yet handled here (lag of the owned partitions plus fetched-but-unhandled). */
    private volatile long backlog;
    private volatile long bufferedBytes;
    /** Snapshot of the partitions currently owned, replaced by the poll thread on every change. */
    private volatile java.util.Set<TopicPartition> assignment = java.util.Set.of();

    // poll-thread state only
    private final Map<TopicPartition, PartitionState> partitions = new HashMap<>();
    private final Map<Object, Lane> lanes = new HashMap<>();
    private long lastCommitNanos = System.nanoTime();

    private BusConsumer(Builder config) {
        this.config = config;
        long n = INSTANCES.incrementAndGet();
        this.name = (config.groupId != null ? config.groupId : "fanout") + "-" + n;
        Map<String, Object> conf = new HashMap<>();
        conf.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers);
        conf.put(ConsumerConfig.CLIENT_ID_CONFIG, config.clientId != null ? config.clientId : "rdv-" + name);
        conf.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        conf.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, config.startFrom == StartFrom.LATEST ? "latest" : "earliest");
        conf.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 500);
        if (config.groupId != null) {
            conf.put(ConsumerConfig.GROUP_ID_CONFIG, config.groupId);
        }
        conf.putAll(config.overrides);
        this.consumer = new KafkaConsumer<>(conf, new StringDeserializer(), new ByteArrayDeserializer());
        this.timers = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "rdv-bus-retry-" + name);
            t.setDaemon(true);
            return t;
        });
        this.thread = new Thread(this::run, "rdv-bus-consumer-" + name);
        this.thread.setDaemon(true);
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
    public long retriedCount() {
        return retried.get();
    }

    /** Records skipped: undecodable, unknown payload type, or failed after all retries. */
    public long skippedCount() {
        return skipped.get();
    }

    /**
     * How far behind this consumer is: the records of its partitions not yet handled (those the broker has past the
     * fetch position, and those fetched but not yet handled), as of its last poll.
     */
    public long backlog() {
        return backlog;
    }

    /** The bytes of the records fetched but not yet handled, as of the last poll (bounded per partition). */
    public long bufferedBytes() {
        return bufferedBytes;
    }

    /** The partitions this consumer currently owns (an immutable snapshot; a new object after every change). */
    public java.util.Set<TopicPartition> assignment() {
        return assignment;
    }

    /** Successful offset commits so far (group mode). */
    public long commitCount() {
        return committed.get();
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
                consumer.subscribe(config.topics, new Rebalance());
            } else {
                assignAll();
            }
            while (running) {
                try {
                    processSignalsAndDispatch();
                    commitIfDue(false);
                    applyBackPressure();
                    ConsumerRecords<String, byte[]> records = consumer.poll(pollTimeout());
                    enqueue(records);
                    measureBacklog();
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
            timers.shutdownNow();
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
            addPartition(tp);
        }
        started.complete(null);
        LOG.info("bus consumer {} reads {} partitions of {} from {}", name, all.size(), config.topics,
                config.startFrom);
    }

    private void enqueue(ConsumerRecords<String, byte[]> records) {
        for (ConsumerRecord<String, byte[]> record : records) {
            PartitionState ps = partitions.get(new TopicPartition(record.topic(), record.partition()));
            if (ps == null) {
                continue; // revoked between fetch and here: the new owner reads it
            }
            ps.buffered++;
            ps.bufferedBytes += size(record);
            ps.lane.queue.add(new Pending(record, ps));
        }
    }

    private static long size(ConsumerRecord<String, byte[]> record) {
        return Math.max(0, record.serializedValueSize()) + Math.max(0, record.serializedKeySize());
    }

    /** Handles completions and starts the next record of every idle lane, until nothing moves. */
    private void processSignalsAndDispatch() {
        boolean progress = true;
        while (progress) {
            progress = drainSignals(true);
            if (config.maxInFlight > 0) {
                progress |= dispatchOldestFirst();
                continue;
            }
            for (Lane lane : lanes.values()) {
                progress |= dispatch(lane);
            }
        }
    }

    /**
     * With {@link Builder#maxInFlight}: starts idle lanes, the one whose next record has waited longest first, while
     * fewer than that many lanes are in flight, or when that record has waited {@link Builder#maxInFlight}'s bound
     * (a lane held up by a slow batch of another does not wait on it longer). A lane that waits gathers what arrives
     * meanwhile into its next batch. Sets {@link #lingerUntil}: when a held-back lane is due ({@code Long.MAX_VALUE}:
     * none waits).
     */
    private boolean dispatchOldestFirst() {
        boolean any = false;
        while (true) {
            int inFlight = 0;
            Lane oldest = null;
            for (Lane lane : lanes.values()) {
                if (lane.inFlight != null) {
                    inFlight++;
                } else if (!lane.queue.isEmpty()
                        && (oldest == null || lane.queue.peek().enqueuedAt - oldest.queue.peek().enqueuedAt < 0)) {
                    oldest = lane;
                }
            }
            if (oldest == null) {
                lingerUntil = Long.MAX_VALUE;
                return any;
            }
            long due = oldest.queue.peek().enqueuedAt + config.maxWait.toNanos();
            if (inFlight >= config.maxInFlight && due - System.nanoTime() > 0) {
                lingerUntil = due;
                return any;
            }
            if (!dispatch(oldest)) {
                return any;
            }
            any = true;
        }
    }

    /** When a lane held back by {@link Builder#maxInFlight} is to be started anyway (nanoTime). */
    private long lingerUntil = Long.MAX_VALUE;

    /** The poll's timeout: shorter when a held-back lane is due before it ends. */
    private Duration pollTimeout() {
        if (lingerUntil == Long.MAX_VALUE) {
            return config.pollTimeout;
        }
        long left = TimeUnit.NANOSECONDS.toMillis(lingerUntil - System.nanoTime()) + 1;
        return left >= config.pollTimeout.toMillis() ? config.pollTimeout : Duration.ofMillis(Math.max(1, left));
    }

    private boolean drainSignals(boolean allowRetries) {
        boolean any = false;
        Signal s;
        while ((s = localSignals.poll()) != null || (s = remoteSignals.poll()) != null) {
            any = true;
            onSignal(s, allowRetries);
        }
        return any;
    }

    private void onSignal(Signal s, boolean allowRetries) {
        Pending p = s.pending;
        if (p.revoked() || p.ps.lane.inFlight != p) {
            return; // late news about a record we no longer own: its new owner handles it again
        }
        if (s instanceof RetryDue) {
            if (!allowRetries) {
                deferredRetries.add(s); // inside a revocation wait: start it once the wait is over
            } else if (running) {
                start(p);
            }
            return;
        }
        Throwable error = ((Done) s).error;
        if (error == null) {
            handled.addAndGet(p.members == null ? 1 : p.members.size());
            finish(p);
        } else if (!running) {
            // closing: leave it uncommitted so the next owner handles it again instead of skipping it
            p.running = false;
            LOG.warn("bus consumer {}: handler failed for event {} at {}@{} while closing, left for redelivery: {}",
                    name, p.event.eventId(), p.ps.tp, p.record.offset(), describe(error));
        } else if (config.unavailable.test(error)) {
            // what the handler needs is down (a database restarting): wait for it, however long, rather than skip
            long backoff = Math.min(MAX_BACKOFF.toMillis(),
                    config.retryBackoff.toMillis() << Math.min(p.attempts - 1, 10));
            LOG.warn("bus consumer {}: event {} at {}@{} waits for an unavailable dependency (attempt {}), retrying in {}"
                    + " ms: {}", name, p.event.eventId(), p.ps.tp, p.record.offset(), p.attempts, backoff,
                    describe(error));
            p.running = false;
            retried.incrementAndGet();
            timers.schedule(() -> signal(new RetryDue(p)), backoff, TimeUnit.MILLISECONDS);
        } else if (p.members != null && p.attempts > config.maxRetries) {
            LOG.warn("bus consumer {}: a batch of {} events at {} failed {} times; handling them one by one: {}", name,
                    p.members.size(), p.ps.tp, p.attempts, describe(error));
            split(p);
        } else if (p.attempts <= config.maxRetries) {
            long backoff = Math.min(MAX_BACKOFF.toMillis(), config.retryBackoff.toMillis() << (p.attempts - 1));
            LOG.warn("bus consumer {}: handler failed for event {} ({}) at {}@{}, attempt {}/{}, retrying in {} ms: {}",
                    name, p.event.eventId(), p.event.type(), p.ps.tp, p.record.offset(), p.attempts,
                    config.maxRetries + 1, backoff, describe(error));
            p.running = false;
            retried.incrementAndGet();
            timers.schedule(() -> signal(new RetryDue(p)), backoff, TimeUnit.MILLISECONDS);
        } else {
            LOG.error("bus consumer {}: SKIPPING event {} ({}) at {}@{} after {} failed attempts: {}", name,
                    p.event.eventId(), p.event.type(), p.ps.tp, p.record.offset(), p.attempts, describe(error), error);
            skipped.incrementAndGet();
            finish(p);
        }
    }

    /** Starts the lane's next record if the lane is idle; true when something happened. */
    private boolean dispatch(Lane lane) {
        boolean any = false;
        while (running && lane.inFlight == null && !lane.queue.isEmpty()) {
            Pending p = lane.queue.poll();
            if (p.ps.revoked) {
                continue;
            }
            any = true;
            lane.inFlight = p;
            if (p.event == null) {
                try {
                    p.event = BusCodec.decode(p.record.value());
                } catch (RuntimeException e) {
                    LOG.warn("bus consumer {}: skipping undecodable record at {}@{}: {}", name, p.ps.tp,
                            p.record.offset(), e.getMessage());
                    skipped.incrementAndGet();
                    finish(p);
                    continue;
                }
                if (p.event.payload() instanceof UnknownPayload) {
                    LOG.warn("bus consumer {}: skipping event {} at {}@{}: unknown payload type '{}' (version {})",
                            name, p.event.eventId(), p.ps.tp, p.record.offset(), p.event.type(),
                            p.event.payloadVersion());
                    skipped.incrementAndGet();
                    finish(p);
                    continue;
                }
            }
            if (config.batchHandler != null && !p.single) {
                p = batch(lane, p);
                lane.inFlight = p;
            }
            start(p);
        }
        return any;
    }

    /** The lane's first record with every decodable record queued behind it (up to the batch size), as one. */
    private Pending batch(Lane lane, Pending first) {
        if (lane.queue.isEmpty() || config.maxBatch <= 1) {
            return first;
        }
        List<Pending> members = new ArrayList<>();
        members.add(first);
        while (members.size() < config.maxBatch && !lane.queue.isEmpty() && !lane.queue.peek().single) {
            Pending p = lane.queue.poll();
            if (p.ps.revoked) {
                continue;
            }
            if (p.event == null) {
                try {
                    p.event = BusCodec.decode(p.record.value());
                } catch (RuntimeException e) {
                    LOG.warn("bus consumer {}: skipping undecodable record at {}@{}: {}", name, p.ps.tp,
                            p.record.offset(), e.getMessage());
                    skipped.incrementAndGet();
                    finishMember(p);
                    continue;
                }
            }
            if (p.event.payload() instanceof UnknownPayload) {
                LOG.warn("bus consumer {}: skipping event {} at {}@{}: unknown payload type '{}' (version {})",
                        name, p.event.eventId(), p.ps.tp, p.record.offset(), p.event.type(), p.event.payloadVersion());
                skipped.incrementAndGet();
                finishMember(p);
                continue;
            }
            members.add(p);
        }
        if (members.size() == 1) {
            return first;
        }
        Pending group = new Pending(members.get(members.size() - 1).record, first.ps);
        group.members = members;
        group.event = first.event; // what logs name the batch by
        return group;
    }

    private void start(Pending p) {
        p.attempts++;
        p.running = true;
        CompletableFuture<Void> outcome = new CompletableFuture<>();
        try {
            CompletionStage<Void> stage = config.batchHandler != null
                    ? config.batchHandler.apply(p.members == null ? List.of(p.event) : p.events())
                    : config.handler.apply(p.event);
            Objects.requireNonNull(stage, "handler returned null instead of a CompletionStage");
            if (stage instanceof CompletableFuture<Void> cf && cf.isDone()) {
                // already done (a synchronous handler): no timeout to arm, no thread hop
                Throwable error = null;
                if (cf.isCompletedExceptionally()) {
                    try {
                        cf.join();
                    } catch (RuntimeException e) {
                        error = e;
                    }
                }
                signal(new Done(p, error));
                return;
            }
            stage.whenComplete((v, e) -> {
                if (e != null) {
                    outcome.completeExceptionally(e);
                } else {
                    outcome.complete(null);
                }
            });
        } catch (Throwable e) {
            outcome.completeExceptionally(e);
        }
        outcome.orTimeout(config.handlerTimeout.toMillis(), TimeUnit.MILLISECONDS)
                .whenComplete((v, e) -> signal(new Done(p, e)));
    }

    private void finish(Pending p) {
        if (p.members != null) {
            p.members.forEach(this::finishMember);
            p.running = false;
            if (p.ps.lane.inFlight == p) {
                p.ps.lane.inFlight = null;
            }
            return;
        }
        finishMember(p);
    }

    /** A failed batch's records go back to the front of their lane, to be handled one at a time. */
    private void split(Pending group) {
        Lane lane = group.ps.lane;
        if (lane.inFlight == group) {
            lane.inFlight = null;
        }
        List<Pending> members = group.members;
        for (int i = members.size() - 1; i >= 0; i--) {
            Pending m = members.get(i);
            m.single = true;
            m.attempts = 0;
            m.running = false;
            if (!m.ps.revoked) {
                lane.queue.addFirst(m);
            }
        }
    }

    private void finishMember(Pending p) {
        p.running = false;
        PartitionState ps = p.ps;
        ps.buffered--;
        ps.bufferedBytes -= size(p.record);
        ps.nextOffset = p.record.offset() + 1;
        ps.dirty = true;
        if (ps.lane.inFlight == p) {
            ps.lane.inFlight = null;
        }
    }

    private void signal(Signal s) {
        if (Thread.currentThread() == thread) {
            localSignals.add(s);
        } else {
            remoteSignals.add(s);
            consumer.wakeup();
        }
    }

    private void measureBacklog() {
        long total = 0;
        for (PartitionState ps : partitions.values()) {
            total += ps.buffered;
            java.util.OptionalLong lag = consumer.currentLag(ps.tp); // from fetch metadata, no broker round trip
            if (lag.isPresent()) {
                total += lag.getAsLong();
            }
        }
        backlog = total;
        long bytes = 0;
        for (PartitionState ps : partitions.values()) {
            bytes += ps.bufferedBytes;
        }
        bufferedBytes = bytes;
    }

    private void applyBackPressure() {
        List<TopicPartition> pause = new ArrayList<>();
        List<TopicPartition> resume = new ArrayList<>();
        long total = 0;
        for (PartitionState ps : partitions.values()) {
            total += ps.bufferedBytes;
        }
        boolean full = total >= config.maxBufferedBytes;
        boolean roomAgain = total <= config.maxBufferedBytes / 2;
        for (PartitionState ps : partitions.values()) {
            if (!ps.paused && (ps.buffered >= config.maxBufferedPerPartition
                    || ps.bufferedBytes >= config.maxBufferedBytesPerPartition || full && ps.bufferedBytes > 0)) {
                ps.paused = true;
                pause.add(ps.tp);
            } else if (ps.paused && ps.buffered <= config.maxBufferedPerPartition / 2
                    && ps.bufferedBytes <= config.maxBufferedBytesPerPartition / 2 && roomAgain) {
                ps.paused = false;
                resume.add(ps.tp);
            }
        }
        if (!pause.isEmpty()) {
            consumer.pause(pause);
        }
        if (!resume.isEmpty()) {
            consumer.resume(resume);
        }
    }

    private void commitIfDue(boolean sync) {
        if (config.groupId == null) {
            return;
        }
        if (!sync && System.nanoTime() - lastCommitNanos < config.commitInterval.toNanos()) {
            return;
        }
        Map<TopicPartition, OffsetAndMetadata> offsets = takeDirtyOffsets(partitions.values());
        if (offsets.isEmpty()) {
            return;
        }
        lastCommitNanos = System.nanoTime();
        if (sync) {
            commitSync(offsets);
        } else {
            consumer.commitAsync(offsets, (done, error) -> {
                if (error != null) {
                    LOG.warn("bus consumer {}: async commit failed, will retry: {}", name, error.toString());
                    offsets.keySet().forEach(tp -> {
                        PartitionState ps = partitions.get(tp);
                        if (ps != null) {
                            ps.dirty = true;
                        }
                    });
                } else {
                    committed.incrementAndGet();
                }
            });
        }
    }

    private Map<TopicPartition, OffsetAndMetadata> takeDirtyOffsets(Collection<PartitionState> states) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (PartitionState ps : states) {
            if (ps.dirty) {
                offsets.put(ps.tp, new OffsetAndMetadata(ps.nextOffset));
                ps.dirty = false;
            }
        }
        return offsets;
    }

    private void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets) {
        if (offsets.isEmpty()) {
            return;
        }
        try {
            retryOnWakeup(() -> {
                consumer.commitSync(offsets, Duration.ofSeconds(10));
                return null;
            });
            committed.incrementAndGet();
        } catch (RuntimeException e) {
            LOG.warn("bus consumer {}: commit of {} failed (records will be handled again): {}", name, offsets,
                    e.toString());
        }
    }

    /** Waits (bounded) for running handlers of {@code states}, handling completions meanwhile; no new dispatch. */
    private void awaitInFlight(Collection<PartitionState> states, Duration timeout) {
        try {
            awaitInFlightUntil(states, System.nanoTime() + timeout.toNanos(), timeout);
        } finally {
            localSignals.addAll(deferredRetries);
            deferredRetries.clear();
        }
    }

    private void awaitInFlightUntil(Collection<PartitionState> states, long deadline, Duration timeout) {
        while (states.stream().anyMatch(ps -> ps.lane.inFlight != null && ps.lane.inFlight.touches(ps)
                && ps.lane.inFlight.running)) {
            drainSignals(false);
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                LOG.warn("bus consumer {}: handlers still running after {}, their records will be handled again",
                        name, timeout);
                return;
            }
            try {
                Signal s = remoteSignals.poll(Math.min(left, TimeUnit.MILLISECONDS.toNanos(50)), TimeUnit.NANOSECONDS);
                if (s != null) {
                    onSignal(s, false);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private void shutdown() {
        awaitInFlight(new ArrayList<>(partitions.values()), config.closeTimeout);
        commitIfDue(true);
        // done with every partition: the revocation that KafkaConsumer.close() triggers finds nothing to wait for
        removePartitions(new ArrayList<>(partitions.keySet()));
        LOG.info("bus consumer {} stopped: {} handled, {} skipped", name, handled.get(), skipped.get());
    }

    private void addPartition(TopicPartition tp) {
        Object laneKey = config.orderAcrossTopics ? (Object) tp.partition() : tp;
        Lane lane = lanes.computeIfAbsent(laneKey, k -> new Lane());
        lane.members++;
        partitions.put(tp, new PartitionState(tp, lane));
        assignment = java.util.Set.copyOf(partitions.keySet());
    }

    private void removePartitions(Collection<TopicPartition> tps) {
        for (TopicPartition tp : tps) {
            PartitionState ps = partitions.remove(tp);
            if (ps == null) {
                continue;
            }
            ps.revoked = true;
            Lane lane = ps.lane;
            lane.queue.removeIf(p -> p.ps == ps);
            if (lane.inFlight != null && lane.inFlight.touches(ps)) {
                lane.inFlight = null;
            }
            if (--lane.members == 0) {
                lanes.values().remove(lane);
            }
        }
        assignment = java.util.Set.copyOf(partitions.keySet());
    }

    private <T> T retryOnWakeup(Supplier<T> call) {
        while (true) {
            try {
                return call.get();
            } catch (WakeupException e) {
                // wakeups are only nudges to look at completions (or to stop); the blocking call is still wanted
            }
        }
    }

    private static String describe(Throwable e) {
        Throwable t = e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
        return t instanceof TimeoutException ? "handler did not complete in time" : t.toString();
    }

    private static void sleepQuietly(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private final class Rebalance implements ConsumerRebalanceListener {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> revoked) {
            List<PartitionState> states = new ArrayList<>();
            for (TopicPartition tp : revoked) {
                PartitionState ps = partitions.get(tp);
                if (ps != null) {
                    states.add(ps);
                }
            }
            if (states.isEmpty()) {
                return;
            }
            awaitInFlight(states, config.revokeTimeout);
            commitSync(takeDirtyOffsets(states));
            removePartitions(revoked);
            LOG.info("bus consumer {}: revoked {}", name, revoked);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> lost) {
            removePartitions(lost); // another member owns them already: committing would be wrong
            LOG.warn("bus consumer {}: lost {}", name, lost);
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> assigned) {
            for (TopicPartition tp : assigned) {
                if (!partitions.containsKey(tp)) {
                    addPartition(tp);
                }
                retryOnWakeup(() -> consumer.position(tp));
            }
            LOG.info("bus consumer {}: assigned {}", name, assigned);
            started.complete(null);
        }
    }

    // -------------------------------------------------------------------------------------------- state records

    private static final class Lane {
        final ArrayDeque<Pending> queue = new ArrayDeque<>();
        Pending inFlight;
        int members;
    }

    private static final class PartitionState {
        final TopicPartition tp;
        final Lane lane;
        long nextOffset;
        boolean dirty;
        boolean paused;
        boolean revoked;
        int buffered;
        long bufferedBytes;

        PartitionState(TopicPartition tp, Lane lane) {
            this.tp = tp;
            this.lane = lane;
        }
    }

    private static final class Pending {
        final ConsumerRecord<String, byte[]> record;
        final PartitionState ps;
        BusEvent event;
        int attempts;
        boolean running;
        /** A batch: its records in order (this pending stands for them all); null for a single record. */
        List<Pending> members;
        /** Handed over alone even in batch mode (its batch failed). */
        boolean single;

        /** When it was fetched (nanoTime): lanes capped by {@link Builder#maxInFlight} start oldest first. */
        final long enqueuedAt = System.nanoTime();

        Pending(ConsumerRecord<String, byte[]> record, PartitionState ps) {
            this.record = record;
            this.ps = ps;
        }

        List<BusEvent> events() {
            List<BusEvent> out = new ArrayList<>(members.size());
            members.forEach(m -> out.add(m.event));
            return out;
        }

        boolean touches(PartitionState state) {
            if (members == null) {
                return ps == state;
            }
            for (Pending m : members) {
                if (m.ps == state) {
                    return true;
                }
            }
            return false;
        }

        boolean revoked() {
            if (members == null) {
                return ps.revoked;
            }
            for (Pending m : members) {
                if (m.ps.revoked) {
                    return true;
                }
            }
            return false;
        }
    }

    private abstract static class Signal {
        final Pending pending;

        Signal(Pending pending) {
            this.pending = pending;
        }
    }

    private static final class Done extends Signal {
        final Throwable error;

        Done(Pending pending, Throwable error) {
            super(pending);
            this.error = error;
        }
    }

    private static final class RetryDue extends Signal {
        RetryDue(Pending pending) {
            super(pending);
        }
    }

    // ---------------------------------------------------------------------------------------------------- builder

    /** Settings of a {@link BusConsumer}; {@link #start()} builds and starts it. */
    public static final class Builder {
        private final String bootstrapServers;
        private String groupId;
        private String clientId;
        private List<String> topics = List.of();
        private Function<BusEvent, CompletionStage<Void>> handler;
        private Function<List<BusEvent>, CompletionStage<Void>> batchHandler;
        private int maxBatch = 1;
        private int maxInFlight;
        private Duration maxWait = Duration.ofMillis(200);
        private StartFrom startFrom;
        private int maxRetries = 3;
        private java.util.function.Predicate<Throwable> unavailable = t -> false;
        private Duration retryBackoff = Duration.ofMillis(200);
        private Duration handlerTimeout = Duration.ofSeconds(60);
        private Duration closeTimeout = Duration.ofSeconds(10);
        private Duration revokeTimeout = Duration.ofSeconds(10);
        private Duration commitInterval = Duration.ofMillis(200);
        private Duration pollTimeout = Duration.ofMillis(500);
        private int maxBufferedPerPartition = 1000;
        private long maxBufferedBytesPerPartition = 64L << 20;
        private long maxBufferedBytes = 256L << 20;
        private boolean orderAcrossTopics;
        private final Map<String, Object> overrides = new HashMap<>();

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
