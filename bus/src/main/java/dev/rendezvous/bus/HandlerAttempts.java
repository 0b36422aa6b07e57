package dev.rendezvous.bus;

import dev.rendezvous.bus.ConsumerLanes.Pending;
import dev.rendezvous.bus.PartitionOffsets.PartitionState;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts a {@link BusConsumer}'s handler attempts and applies the failure rule to their outcomes (retry, wait out an
 * unavailable dependency, split a batch, skip). Poll-thread only, except {@link #signal}, called from any thread.
 */
final class HandlerAttempts {

    private static final Logger LOG = LoggerFactory.getLogger(BusConsumer.class); // logs as the consumer
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(5);

    private final BusConsumer.Builder config;
    private final String name;
    private final KafkaConsumer<String, byte[]> consumer;
    private final Thread pollThread;
    private final BooleanSupplier running;
    private final AtomicLong handled;
    private final AtomicLong retried;
    private final AtomicLong skipped;
    private final AtomicLong split;
    private final ScheduledExecutorService timers;
    private final LinkedBlockingQueue<Signal> remoteSignals = new LinkedBlockingQueue<>();

    // poll-thread state only
    private final ArrayDeque<Signal> localSignals = new ArrayDeque<>();
    private final List<Signal> deferredRetries = new ArrayList<>();

    /** {@code running}: false once the consumer closes; the counters are the consumer's. */
    HandlerAttempts(BusConsumer.Builder config, String name, KafkaConsumer<String, byte[]> consumer, Thread pollThread,
            BooleanSupplier running, AtomicLong handled, AtomicLong retried, AtomicLong skipped, AtomicLong split) {
        this.config = config;
        this.name = name;
        this.consumer = consumer;
        this.pollThread = pollThread;
        this.running = running;
        this.handled = handled;
        this.retried = retried;
        this.skipped = skipped;
        this.split = split;
        this.timers = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "rdv-bus-retry-" + name);
            t.setDaemon(true);
            return t;
        });
    }

    /** Stops the retry timer (the consumer is done). */
    void shutdownTimers() {
        timers.shutdownNow();
    }

    boolean drainSignals(boolean allowRetries) {
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
        if (s instanceof Signal.RetryDue) {
            if (!allowRetries) {
                deferredRetries.add(s); // inside a revocation wait: start it once the wait is over
            } else if (running.getAsBoolean()) {
                start(p);
            }
            return;
        }
        Throwable error = ((Signal.Done) s).error;
        if (error == null) {
            handled.addAndGet(p.members == null ? 1 : p.members.size());
            ConsumerLanes.finish(p);
        } else if (!running.getAsBoolean()) {
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
            timers.schedule(() -> signal(new Signal.RetryDue(p)), backoff, TimeUnit.MILLISECONDS);
        } else if (p.members != null && p.attempts > config.maxRetries) {
            LOG.warn("bus consumer {}: a batch of {} events at {} failed {} times; handling them one by one: {}", name,
                    p.members.size(), p.ps.tp, p.attempts, describe(error));
            split.incrementAndGet();
            ConsumerLanes.split(p);
        } else if (p.attempts <= config.maxRetries) {
            long backoff = Math.min(MAX_BACKOFF.toMillis(), config.retryBackoff.toMillis() << (p.attempts - 1));
            LOG.warn("bus consumer {}: handler failed for event {} ({}) at {}@{}, attempt {}/{}, retrying in {} ms: {}",
                    name, p.event.eventId(), p.event.type(), p.ps.tp, p.record.offset(), p.attempts,
                    config.maxRetries + 1, backoff, describe(error));
            p.running = false;
            retried.incrementAndGet();
            timers.schedule(() -> signal(new Signal.RetryDue(p)), backoff, TimeUnit.MILLISECONDS);
        } else {
            LOG.error("bus consumer {}: SKIPPING event {} ({}) at {}@{} after {} failed attempts: {}", name,
                    p.event.eventId(), p.event.type(), p.ps.tp, p.record.offset(), p.attempts, describe(error), error);
            skipped.incrementAndGet();
            ConsumerLanes.finish(p);
        }
    }

    void start(Pending p) {
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
                signal(new Signal.Done(p, error));
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
                .whenComplete((v, e) -> signal(new Signal.Done(p, e)));
    }

    /** Any thread. */
    private void signal(Signal s) {
        if (Thread.currentThread() == pollThread) {
            localSignals.add(s);
        } else {
            remoteSignals.add(s);
            consumer.wakeup();
        }
    }

    /** Poll thread: waits up to {@code nanos} for a signal from another thread, kept for the next drain. */
    void awaitRemoteSignal(long nanos) {
        try {
            Signal s = remoteSignals.poll(nanos, TimeUnit.NANOSECONDS);
            if (s != null) {
                localSignals.add(s);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits (bounded) for running handlers of {@code states}, handling completions meanwhile; no new dispatch. */
    void awaitInFlight(Collection<PartitionState> states, Duration timeout) {
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

    private static String describe(Throwable e) {
        Throwable t = e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
        return t instanceof TimeoutException ? "handler did not complete in time" : t.toString();
    }
}
