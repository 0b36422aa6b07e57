package dev.rendezvous.gateway;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Step replies held while the service is behind. Stretching {@code next_instruction_seconds} ({@link Pacing}) slows
 * agents that poll, not one that sends its next reply as soon as the last is answered (a websocket agent with a
 * burst of results, a load tool): those filled the brain's lane with minutes of work while every reply was answered
 * at once. Here, while the brain's backlog is past its bound, a reply waits before it goes on the bus and is
 * answered: whoever waits for the answer slows to what the brain turns into state, and the state stays about a
 * bound's worth of events behind what was answered. A reply waits at most {@code holdMaxMs}, then goes on anyway:
 * nothing is refused or dropped, and none is answered before it is on the bus. Replies are let go in arrival order;
 * each resumes on its own connection's event loop, so {@link ReplyOrder} keeps one host's in order from there.
 */
final class ReplyAdmission {
    static final long CHECK_MS = 20;

    private record Waiting(Promise<Void> promise, Context context, long deadlineNanos) {}

    private final Vertx vertx;
    private final Pacing pacing;
    private final GatewayMetrics metrics;
    private volatile long holdMaxMs;
    private final ConcurrentLinkedQueue<Waiting> waiting = new ConcurrentLinkedQueue<>();
    private final AtomicInteger count = new AtomicInteger();
    private final AtomicBoolean armed = new AtomicBoolean();

    ReplyAdmission(Vertx vertx, Pacing pacing, GatewayMetrics metrics, long holdMaxMs) {
        this.vertx = vertx;
        this.pacing = pacing;
        this.metrics = metrics;
        this.holdMaxMs = holdMaxMs;
        metrics.heldReplies(count::get);
    }

    /** The longest a reply is held (0: never held). */
    void holdMax(long ms) {
        this.holdMaxMs = Math.max(0, ms);
    }

    /** Completes (on the caller's context) when the reply may go on the bus. */
    Future<Void> admit() {
        if (holdMaxMs <= 0 || (count.get() == 0 && pacing.factor() <= 1)) {
            return Future.succeededFuture();
        }
        Context context = Vertx.currentContext();
        Promise<Void> p = Promise.promise();
        waiting.add(new Waiting(p, context, System.nanoTime() + holdMaxMs * 1_000_000));
        count.incrementAndGet();
        metrics.replyHeld();
        arm();
        return p.future();
    }

    private void arm() {
        if (armed.compareAndSet(false, true)) {
            vertx.setTimer(CHECK_MS, t -> release());
        }
    }

    /** Lets every waiting reply go once the backlog is under its bound, else those that waited their longest. */
    private void release() {
        armed.set(false);
        boolean caughtUp = pacing.factor() <= 1;
        long now = System.nanoTime();
        Waiting w;
        while ((w = waiting.peek()) != null && (caughtUp || now - w.deadlineNanos() >= 0)) {
            if (waiting.remove(w)) {
                count.decrementAndGet();
                Waiting go = w;
                if (go.context() == null) {
                    go.promise().complete();
                } else {
                    go.context().runOnContext(v -> go.promise().complete());
                }
            }
        }
        if (!waiting.isEmpty()) {
            arm();
        }
    }
}
