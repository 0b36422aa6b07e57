package dev.rendezvous.agent.executor;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs a step's independent probes (one ping per address...) on at most {@code width} threads, started
 * for the step and gone after it, so an idle agent holds none. Interrupting the caller cancels them all.
 */
final class Parallel {
  private Parallel() {}

  static <T> List<T> run(String name, int width, List<Callable<T>> tasks) throws Exception {
    if (tasks.isEmpty()) {
      return List.of();
    }
    AtomicInteger n = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(Math.min(width, tasks.size()), r -> {
      Thread t = new Thread(r, "rdv-" + name + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    try {
      List<Future<T>> futures = new ArrayList<>();
      for (Callable<T> c : tasks) {
        futures.add(pool.submit(c));
      }
      List<T> results = new ArrayList<>(futures.size());
      for (Future<T> f : futures) {
        try {
          results.add(f.get());
        } catch (ExecutionException e) {
          if (e.getCause() instanceof Exception ex) {
            throw ex;
          }
          throw e;
        }
      }
      return results;
    } finally {
      pool.shutdownNow();
    }
  }
}
