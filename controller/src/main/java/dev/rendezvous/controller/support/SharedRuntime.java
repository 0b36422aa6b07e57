package dev.rendezvous.controller.support;

import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.PriorityBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Threads shared by every controller of the JVM: one small scheduler for all loops and timers, a bounded pool that
 * makes the service calls, and a small pool for the HTTP client's own work. A controller owns no thread; thousands
 * of dry-run controllers cost tasks, not threads. Daemon threads: they never keep a JVM alive.
 *
 * <p>Service calls use the HTTP client's blocking {@code send} on the bounded pool rather than {@code sendAsync}:
 * the JDK hands every {@code sendAsync} completion to the common fork-join pool, which on a machine with fewer than
 * three cores is a new thread per completion; a bounded pool also caps how hard a swarm presses on the service
 * ({@code -Drdv.controller.serviceCallThreads=N}, default 8). Calls that move an installation on (its
 * reports, and the ready state's read the installer waits for) go before polls waiting in that pool's queue.
 *
 * <p>Dry-run controllers of one JVM (a swarm's) also share a poll budget: each loop's interval is at least the number
 * of them running divided by {@code -Drdv.controller.dryRunPollsPerSecond} (default 20). In the 10,000-site swarm,
 * ~1,000 controllers per process polling each second wanted thousands of calls a second from a service that answered
 * ~100: every poll, and every report queued behind them, waited a minute and more. With the budget a poll waits for
 * its interval instead, the queue stays short, and what the controllers finish per second no longer falls as more of
 * them run (by Little's law it is about the budget divided by the polls a controller needs).
 */
public final class SharedRuntime {
  private static volatile SharedRuntime instance;

  private final ScheduledExecutorService scheduler;
  private final ExecutorService httpExecutor;
  private final ThreadPoolExecutor serviceCalls;
  private final Executor reports;
  private final Executor polls;
  private final AtomicLong callOrder = new AtomicLong();
  private final AtomicInteger dryRunControllers = new AtomicInteger();
  private final double dryRunPollsPerSecond;

  private SharedRuntime() {
    int n = Math.max(2, Math.min(4, Runtime.getRuntime().availableProcessors()));
    ScheduledThreadPoolExecutor s = new ScheduledThreadPoolExecutor(n, daemon("rdv-controller-loop"));
    s.setRemoveOnCancelPolicy(true);
    this.scheduler = s;
    this.httpExecutor = Executors.newFixedThreadPool(2, daemon("rdv-controller-http"));
    int calls = Integer.getInteger("rdv.controller.serviceCallThreads", 8);
    this.serviceCalls = new ThreadPoolExecutor(calls, calls, 0, TimeUnit.MILLISECONDS, new PriorityBlockingQueue<>(),
        daemon("rdv-controller-call"));
    this.reports = r -> serviceCalls.execute(new Ranked(0, callOrder.getAndIncrement(), r));
    this.polls = r -> serviceCalls.execute(new Ranked(1, callOrder.getAndIncrement(), r));
    this.dryRunPollsPerSecond = Math.max(0.001, Double.parseDouble(
        System.getProperty("rdv.controller.dryRunPollsPerSecond", "20")));
  }

  /** A queued service call: reports (rank 0) before polls (rank 1), each in the order they came. */
  private record Ranked(int rank, long order, Runnable call) implements Runnable, Comparable<Ranked> {
    @Override
    public void run() {
      call.run();
    }

    @Override
    public int compareTo(Ranked o) {
      return rank != o.rank ? Integer.compare(rank, o.rank) : Long.compare(order, o.order);
    }
  }

  public static SharedRuntime get() {
    SharedRuntime r = instance;
    if (r == null) {
      synchronized (SharedRuntime.class) {
        r = instance;
        if (r == null) {
          r = new SharedRuntime();
          instance = r;
        }
      }
    }
    return r;
  }

  public ScheduledExecutorService scheduler() {
    return scheduler;
  }

  /** The HTTP client's internal executor. */
  public ExecutorService httpExecutor() {
    return httpExecutor;
  }

  /** Where polls run (reads, log snapshots; each blocks a thread of the shared pool for one request). */
  public Executor serviceCalls() {
    return polls;
  }

  /** Where service calls that move an installation on run: the same threads, ahead of the polls waiting for them. */
  public Executor serviceReports() {
    return reports;
  }

  /** A dry-run controller started in this JVM; {@link #dryRunControllerEnded()} when it ends, once. */
  public void dryRunControllerStarted() {
    dryRunControllers.incrementAndGet();
  }

  public void dryRunControllerEnded() {
    dryRunControllers.decrementAndGet();
  }

  /** A dry-run loop's interval: {@code interval}, or longer while many dry-run controllers share this JVM. */
  public Duration dryRunSpacing(Duration interval) {
    long budgetNanos = (long) (dryRunControllers.get() * 1e9 / dryRunPollsPerSecond);
    return budgetNanos > interval.toNanos() ? Duration.ofNanos(budgetNanos) : interval;
  }

  private static ThreadFactory daemon(String prefix) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }
}
