package dev.rendezvous.controller.support;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Threads shared by every controller of the JVM: one small scheduler for all loops and timers, one small pool for
 * the HTTP client's callbacks. A controller owns no thread; thousands of dry-run controllers cost tasks, not threads.
 * Daemon threads: they never keep a JVM alive.
 */
public final class SharedRuntime {
  private static volatile SharedRuntime instance;

  private final ScheduledExecutorService scheduler;
  private final ExecutorService httpExecutor;

  private SharedRuntime() {
    int n = Math.max(2, Math.min(4, Runtime.getRuntime().availableProcessors()));
    ScheduledThreadPoolExecutor s = new ScheduledThreadPoolExecutor(n, daemon("rdv-controller-loop"));
    s.setRemoveOnCancelPolicy(true);
    this.scheduler = s;
    this.httpExecutor = Executors.newFixedThreadPool(n, daemon("rdv-controller-http"));
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

  public ExecutorService httpExecutor() {
    return httpExecutor;
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
