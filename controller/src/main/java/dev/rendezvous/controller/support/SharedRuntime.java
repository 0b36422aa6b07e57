package dev.rendezvous.controller.support;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Threads shared by every controller of the JVM: one small scheduler for all loops and timers, a bounded pool that
 * makes the service calls, and a small pool for the HTTP client's own work. A controller owns no thread; thousands
 * of dry-run controllers cost tasks, not threads. Daemon threads: they never keep a JVM alive.
 *
 * <p>Service calls use the HTTP client's blocking {@code send} on the bounded pool rather than {@code sendAsync}:
 * the JDK hands every {@code sendAsync} completion to the common fork-join pool, which on a machine with fewer than
 * three cores is a new thread per completion; a bounded pool also caps how hard a swarm presses on the service
 * ({@code -Drdv.controller.serviceCallThreads=N}, default 8).
 */
public final class SharedRuntime {
  private static volatile SharedRuntime instance;

  private final ScheduledExecutorService scheduler;
  private final ExecutorService httpExecutor;
  private final ExecutorService serviceCalls;

  private SharedRuntime() {
    int n = Math.max(2, Math.min(4, Runtime.getRuntime().availableProcessors()));
    ScheduledThreadPoolExecutor s = new ScheduledThreadPoolExecutor(n, daemon("rdv-controller-loop"));
    s.setRemoveOnCancelPolicy(true);
    this.scheduler = s;
    this.httpExecutor = Executors.newFixedThreadPool(2, daemon("rdv-controller-http"));
    this.serviceCalls = Executors.newFixedThreadPool(Integer.getInteger("rdv.controller.serviceCallThreads", 8),
        daemon("rdv-controller-call"));
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

  /** Where service calls run (each blocks its thread for one request). */
  public ExecutorService serviceCalls() {
    return serviceCalls;
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
