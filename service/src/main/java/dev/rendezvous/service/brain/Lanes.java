package dev.rendezvous.service.brain;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * One serial queue per work key, so everything done to one cluster in this process (bus handlers, the
 * monitor, REST updates) runs one unit at a time. Keys are spread over a few event-loop contexts so
 * clusters proceed in parallel on every core; a key always runs on the same context, where its queue lives.
 */
final class Lanes {
  private final Context[] contexts;
  private final KeyQueues[] queues;

  @SuppressWarnings("unchecked")
  Lanes(Vertx vertx, int count) {
    contexts = new Context[Math.max(1, count)];
    queues = new KeyQueues[contexts.length];
    for (int i = 0; i < contexts.length; i++) {
      contexts[i] = newContext(vertx);
      queues[i] = new KeyQueues();
    }
  }

  /** A context of its own: getOrCreateContext is sticky per non-Vert.x thread, so ask from a fresh thread. */
  private static Context newContext(Vertx vertx) {
    AtomicReference<Context> ref = new AtomicReference<>();
    Thread t = new Thread(() -> ref.set(vertx.getOrCreateContext()), "rdv-brain-context");
    t.start();
    try {
      t.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    return ref.get();
  }

  int count() {
    return contexts.length;
  }

  Context contextFor(WorkKey key) {
    return contexts[Math.floorMod(key.hashCode(), contexts.length)];
  }

  /** Runs {@code task} on the key's context once every earlier task of the key completed. */
  <T> Future<T> submit(WorkKey key, Supplier<Future<T>> task) {
    int i = Math.floorMod(key.hashCode(), contexts.length);
    Context ctx = contexts[i];
    Promise<T> result = Promise.promise();
    ctx.runOnContext(v -> queues[i].add(key, ctx, () -> {
      Future<T> f;
      try {
        f = task.get();
      } catch (RuntimeException e) {
        f = Future.failedFuture(e);
      }
      f.onComplete(result);
      return f.mapEmpty();
    }));
    return result.future();
  }

  /** The queues of one context; touched only on that context. */
  private static final class KeyQueues {
    private final Map<WorkKey, ArrayDeque<Supplier<Future<Void>>>> waiting = new HashMap<>();

    void add(WorkKey key, Context ctx, Supplier<Future<Void>> task) {
      ArrayDeque<Supplier<Future<Void>>> q = waiting.get(key);
      if (q != null) {
        q.add(task); // the running task of this key starts it when done
        return;
      }
      waiting.put(key, new ArrayDeque<>());
      run(key, ctx, task);
    }

    private void run(WorkKey key, Context ctx, Supplier<Future<Void>> task) {
      task.get().onComplete(ar -> ctx.runOnContext(v -> {
        ArrayDeque<Supplier<Future<Void>>> q = waiting.get(key);
        Supplier<Future<Void>> next = q.poll();
        if (next == null) {
          waiting.remove(key);
        } else {
          run(key, ctx, next);
        }
      }));
    }
  }
}
