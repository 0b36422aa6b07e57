package dev.rendezvous.controller.support;

import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Upstream's "wait for predicate" loops without a thread: a round runs on the shared scheduler, and when it says
 * "not yet" the next one is scheduled one interval later. A failed round is logged and counts as "not yet".
 * {@link #poke()} brings the next round forward (watches call it when the cluster changed), never closer than the
 * reaction delay to the previous round's start, so bursts of watch events cost one round.
 */
public final class RepeatingTask {
  private final String name;
  private final ScheduledExecutorService scheduler;
  private final Supplier<Duration> interval;
  private final Duration reactionDelay;
  private final Supplier<CompletableFuture<Boolean>> round;
  private final ControllerLog log;
  private static final java.util.Set<Class<?>> PROGRAMMING_ERRORS = java.util.Set.of(NullPointerException.class,
      ClassCastException.class, IndexOutOfBoundsException.class, ArrayIndexOutOfBoundsException.class,
      IllegalStateException.class, IllegalArgumentException.class, ArithmeticException.class);
  private final java.util.Set<Class<?>> stackShown = java.util.concurrent.ConcurrentHashMap.newKeySet();
  private final Lifecycle lifecycle;
  private final CompletableFuture<Void> done = new CompletableFuture<>();

  private boolean running;
  private boolean pokedWhileRunning;
  private ScheduledFuture<?> next;
  private long nextAtNanos;
  private long lastStartNanos = Long.MIN_VALUE;

  public RepeatingTask(String name, ScheduledExecutorService scheduler, Duration interval, Duration reactionDelay,
      Supplier<CompletableFuture<Boolean>> round, ControllerLog log, Lifecycle lifecycle) {
    this(name, scheduler, () -> interval, reactionDelay, round, log, lifecycle);
  }

  /** {@code interval} is asked after each round (dry-run controllers space their polls by how many share the JVM). */
  public RepeatingTask(String name, ScheduledExecutorService scheduler, Supplier<Duration> interval,
      Duration reactionDelay, Supplier<CompletableFuture<Boolean>> round, ControllerLog log, Lifecycle lifecycle) {
    this.name = name;
    this.scheduler = scheduler;
    this.interval = interval;
    this.reactionDelay = reactionDelay;
    this.round = round;
    this.log = log;
    this.lifecycle = lifecycle;
  }

  /** Runs the first round now; the future completes when a round returns true, or is cancelled on stop. */
  public CompletableFuture<Void> start() {
    return start(Duration.ZERO);
  }

  /** Runs the first round after {@code delay} (upstream's tickers wait one interval before the first round). */
  public CompletableFuture<Void> start(Duration delay) {
    lifecycle.register(this);
    done.whenComplete((v, e) -> lifecycle.deregister(this));
    synchronized (this) {
      if (!done.isDone()) {
        schedule(delay.toNanos());
      }
    }
    return done;
  }

  public String name() {
    return name;
  }

  /** Run a round soon: the cluster or the service changed. */
  public void poke() {
    synchronized (this) {
      if (done.isDone()) {
        return;
      }
      if (running) {
        pokedWhileRunning = true;
        return;
      }
      long now = System.nanoTime();
      long earliest = lastStartNanos == Long.MIN_VALUE ? now : Math.max(now, lastStartNanos + reactionDelay.toNanos());
      if (next == null || nextAtNanos > earliest) {
        if (next != null) {
          next.cancel(false);
        }
        schedule(earliest - now);
      }
    }
  }

  public void cancel() {
    synchronized (this) {
      if (next != null) {
        next.cancel(false);
        next = null;
      }
    }
    done.completeExceptionally(new CancellationException(name + " stopped"));
  }

  private void schedule(long delayNanos) {
    nextAtNanos = System.nanoTime() + Math.max(0, delayNanos);
    next = scheduler.schedule(this::runRound, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
  }

  private void runRound() {
    synchronized (this) {
      if (done.isDone() || running) {
        return;
      }
      running = true;
      pokedWhileRunning = false;
      next = null;
      lastStartNanos = System.nanoTime();
    }
    CompletableFuture<Boolean> result;
    try {
      result = lifecycle.stopped() ? CompletableFuture.failedFuture(new CancellationException()) : round.get();
    } catch (RuntimeException e) {
      result = CompletableFuture.failedFuture(e);
    }
    result.whenComplete((finished, failure) -> {
      if (failure != null && !lifecycle.stopped()) {
        Throwable cause = failure;
        while (cause instanceof java.util.concurrent.CompletionException && cause.getCause() != null) {
          cause = cause.getCause();
        }
        // a programming error says where, once per kind and task; a service or network failure is its message
        if (PROGRAMMING_ERRORS.contains(cause.getClass()) && stackShown.add(cause.getClass())) {
          log.warn("{}: round failed, retrying in {}: {}", name, interval.get(), ControllerLog.describe(failure),
              cause);
        } else {
          log.warn("{}: round failed, retrying in {}: {}", name, interval.get(), ControllerLog.describe(failure));
        }
      }
      if (failure == null && Boolean.TRUE.equals(finished)) {
        synchronized (this) {
          running = false;
        }
        done.complete(null);
        return;
      }
      synchronized (this) {
        running = false;
        if (done.isDone()) {
          return;
        }
        if (lifecycle.stopped()) {
          done.completeExceptionally(new CancellationException(name + " stopped"));
          return;
        }
        long delay = pokedWhileRunning ? reactionDelay.toNanos() : interval.get().toNanos();
        schedule(delay);
      }
    });
  }
}
