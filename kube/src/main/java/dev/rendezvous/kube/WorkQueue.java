package dev.rendezvous.kube;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keys of objects to reconcile, as client-go's work queue: a key waiting is not added twice (a burst of events about
 * one object is one reconcile: latest wins), one key is never reconciled by two workers at once, and a key added while
 * it is being reconciled runs once more afterwards. Failures come back with a growing delay (0.5 s doubling to 60 s).
 * Workers are plain threads: reconciles call the Kubernetes API and the service's REST API, never on an event loop.
 */
public final class WorkQueue implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(WorkQueue.class);

  private final Deque<String> queue = new ArrayDeque<>();
  private final Set<String> dirty = new HashSet<>();
  private final Set<String> processing = new HashSet<>();
  private final Map<String, Long> scheduled = new HashMap<>();
  private final Map<String, Integer> failures = new HashMap<>();
  private final ScheduledExecutorService timer;
  private final Thread[] workers;
  private final AtomicLong reconciles = new AtomicLong();
  private volatile boolean closed;

  /** {@code reconcile} throws to ask for a retry; {@link Requeue} asks for one later without counting a failure. */
  public WorkQueue(int workerCount, Consumer<String> reconcile) {
    this.timer = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "rdv-kube-timer"));
    this.workers = new Thread[workerCount];
    for (int i = 0; i < workerCount; i++) {
      workers[i] = daemon(() -> work(reconcile), "rdv-kube-worker-" + i);
      workers[i].start();
    }
  }

  /** Thrown by a reconcile that waits for something (a Secret, an image set): the key comes back after the delay. */
  public static final class Requeue extends RuntimeException {
    final Duration after;

    public Requeue(Duration after) {
      super(null, null, false, false);
      this.after = after;
    }
  }

  public synchronized void add(String key) {
    if (closed || dirty.contains(key)) {
      return;
    }
    dirty.add(key);
    if (!processing.contains(key)) {
      queue.addLast(key);
      notifyAll();
    }
  }

  /**
   * Adds the key after a delay; while an earlier or equal one is pending for the key, this one is dropped (coalescing:
   * a burst of events is one reconcile). A sooner one than what is pending is scheduled too.
   */
  public void addAfter(String key, Duration delay) {
    long delayMillis = Math.max(1, delay.toMillis());
    long due = System.nanoTime() / 1_000_000 + delayMillis;
    synchronized (this) {
      Long pending = scheduled.get(key);
      if (closed || pending != null && pending <= due) {
        return;
      }
      scheduled.put(key, due);
    }
    try {
      timer.schedule(() -> {
        synchronized (this) {
          if (scheduled.getOrDefault(key, Long.MIN_VALUE) == due) {
            scheduled.remove(key);
          }
        }
        add(key);
      }, delayMillis, TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // closing: nothing more is reconciled
    }
  }

  public synchronized int depth() {
    return queue.size() + processing.size();
  }

  public long reconciles() {
    return reconciles.get();
  }

  private synchronized String take() throws InterruptedException {
    while (queue.isEmpty() && !closed) {
      wait();
    }
    if (closed) {
      return null;
    }
    String key = queue.pollFirst();
    dirty.remove(key);
    processing.add(key);
    return key;
  }

  private synchronized void done(String key) {
    processing.remove(key);
    if (dirty.contains(key)) {
      queue.addLast(key);
      notifyAll();
    }
  }

  private void work(Consumer<String> reconcile) {
    while (!closed) {
      String key;
      try {
        key = take();
      } catch (InterruptedException e) {
        return;
      }
      if (key == null) {
        return;
      }
      try {
        reconcile.accept(key);
        reconciles.incrementAndGet();
        synchronized (this) {
          failures.remove(key);
        }
      } catch (Requeue r) {
        addAfter(key, r.after);
      } catch (RuntimeException | Error e) { // an Error too: a worker that died would leave its keys unserved
        int n;
        synchronized (this) {
          n = failures.merge(key, 1, Integer::sum);
        }
        long delay = Math.min(60_000, 500L << Math.min(n - 1, 7));
        LOG.atWarn().addKeyValue("key", key).addKeyValue("attempt", n).addKeyValue("retry_ms", delay)
            .log("reconcile failed: " + e);
        addAfter(key, Duration.ofMillis(delay));
      } finally {
        done(key);
      }
    }
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  @Override
  public void close() {
    synchronized (this) {
      closed = true;
      notifyAll();
    }
    timer.shutdownNow();
    for (Thread w : workers) {
      try {
        w.join(5_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
