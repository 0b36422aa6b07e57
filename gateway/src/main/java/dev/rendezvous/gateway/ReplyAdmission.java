package dev.rendezvous.gateway;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.DoubleSupplier;

/**
 * Step replies held while the service is behind (registrations and installer progress too, in the same queue).
 * Stretching {@code next_instruction_seconds} ({@link Pacing}) slows agents that poll, not one that sends its next
 * reply as soon as the last is answered (a websocket agent with a burst of results, a load tool): those filled the
 * brain's lane with minutes of work while every reply was answered at once. Here, once the brain's backlog is past its
 * bound, replies wait before they go on the bus and are answered, and are let go in arrival order at a metered rate
 * ({@link #releaseRate}: about what the brain turns into state), until none waits and the backlog was under its bound
 * for a second: whoever waits for the answer slows to the brain's pace, and the state stays about a bound's worth of
 * events behind what was answered. Without a rate, all are let go at once when the backlog is under its bound: 256
 * connections into one cluster then took ~9,000 replies in the 0.3 s before the next measure and waited ~1.5 s after
 * (p99 1.5 s). A reply waits at most {@code holdMaxMs}, then goes on anyway: nothing is refused or dropped, and none is
 * answered before it is on the bus. Each resumes on its own connection's event loop, so {@link ReplyOrder} keeps one
 * host's in order from there.
 */
final class ReplyAdmission {
    /** How often waiting replies are looked at: the metered rate is let go in steps this long. */
    static final long CHECK_MS = 10;
    /** The most the meter saves up (ms of its rate): no burst after a quiet spell. */
    static final long CREDIT_MAX_MS = 50;

    private record Waiting(Promise<Void> promise, Context context, long deadlineNanos) {}

    private final Vertx vertx;
    private final Pacing pacing;
    private final GatewayMetrics metrics;
    private volatile long holdMaxMs;
    private final ConcurrentLinkedQueue<Waiting> waiting = new ConcurrentLinkedQueue<>();
    private final AtomicInteger count = new AtomicInteger();
    private final AtomicBoolean armed = new AtomicBoolean();
    /** Replies per second to let go while metered; infinite: all of them. Read at most once per check. */
    private volatile DoubleSupplier releaseRate;
    // the meter (under this object's monitor): the rate read last and when, what may go now (a fraction carries
    // over), and up to when that was counted
    private double rate;
    private long rateAt;
    private double credit;
    private long creditAt;
    /**
     * Replies go through the meter until then (nanoTime): a while after the backlog was last seen past its bound, not
     * only while some wait. The backlog is measured as the brain polls, and between two measures the edge took
     * thousands at full speed whenever the meter had just let the last waiting one go.
     */
    private volatile long meteredUntil = System.nanoTime();
    static final long METERED_NANOS = 1_000_000_000L;

    ReplyAdmission(Vertx vertx, Pacing pacing, GatewayMetrics metrics, long holdMaxMs) {
        this.vertx = vertx;
        this.pacing = pacing;
        this.metrics = metrics;
        this.holdMaxMs = holdMaxMs;
        this.releaseRate = allOnceCaughtUp();
        metrics.heldReplies(count::get);
    }

    /**
     * The rate (replies per second) replies are let go at while metered; read every {@link #CHECK_MS}. Unset: none
     * while the backlog is past its bound, all once it is under (so is null).
     */
    void releaseRate(DoubleSupplier rate) {
        this.releaseRate = rate != null ? rate : allOnceCaughtUp();
    }

    private DoubleSupplier allOnceCaughtUp() {
        return () -> pacing.factor() <= 1 ? Double.POSITIVE_INFINITY : 0;
    }

    /** The longest a reply is held (0: never held). */
    void holdMax(long ms) {
        this.holdMaxMs = Math.max(0, ms);
    }

    /** Completes (on the caller's context) when the reply may go on the bus. */
    Future<Void> admit() {
        if (holdMaxMs <= 0) {
            return Future.succeededFuture();
        }
        long now = System.nanoTime();
        if (pacing.factor() > 1) {
            meteredUntil = now + METERED_NANOS;
        } else if (count.get() == 0 && now - meteredUntil >= 0) {
            return Future.succeededFuture();
        }
        if (count.get() == 0 && take(now)) {
            return Future.succeededFuture(); // metered, none waiting before it and room in the meter: no tick to wait
        }
        Context context = Vertx.currentContext();
        Promise<Void> p = Promise.promise();
        waiting.add(new Waiting(p, context, now + holdMaxMs * 1_000_000));
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

    /** Takes one release from the meter if it has one (the credit brought up to {@code now} first). */
    private synchronized boolean take(long now) {
        refill(now);
        if (credit < 1) {
            return false;
        }
        credit -= 1;
        return true;
    }

    /** Adds what the rate allows since the credit was last counted, at most {@link #CREDIT_MAX_MS} of it. */
    private void refill(long now) {
        if (rateAt == 0 || now - rateAt >= CHECK_MS * 1_000_000) {
            rate = releaseRate.getAsDouble();
            rateAt = now;
        }
        double seconds = creditAt == 0 ? 0 : Math.min(now - creditAt, CREDIT_MAX_MS * 1_000_000) / 1e9;
        creditAt = now;
        if (Double.isNaN(rate) || rate <= 0) {
            credit = 0;
        } else if (Double.isInfinite(rate)) {
            credit = Double.POSITIVE_INFINITY; // all may go
        } else {
            credit = Math.min(Math.max(1, rate * CREDIT_MAX_MS / 1000.0), credit + rate * seconds);
        }
    }

    /**
     * Lets waiting replies go, oldest first: as many as the meter allows, and those that waited their longest. One
     * check at a time: a new one may be armed while this one runs.
     */
    private synchronized void release() {
        armed.set(false);
        long now = System.nanoTime();
        refill(now);
        Waiting w;
        while ((w = waiting.peek()) != null) {
            boolean due = now - w.deadlineNanos() >= 0;
            if (!due && credit < 1) {
                break;
            }
            if (waiting.remove(w)) {
                if (!due) {
                    credit -= 1;
                }
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
