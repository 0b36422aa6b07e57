package dev.rendezvous.service.db;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.ArrayDeque;
import java.util.function.Supplier;

/**
 * At most {@code limit} of one user's pool requests at once; the others wait here, in arrival order, and start on
 * the context that asked as requests end. The pool's own wait queue is bounded (see {@link Database}): a burst past it
 * is refused there, and a brain batch of 500 events for 500 clusters (each unit loading its cluster) failed whole
 * and came back as the same burst. Here a burst only waits.
 */
public final class PoolGate {
  private final int limit;
  private int inFlight;
  private final ArrayDeque<Runnable> waiting = new ArrayDeque<>();

  public PoolGate(int limit) {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be 1 or more");
    }
    this.limit = limit;
  }

  /** Runs {@code request} (one pool request: a query, a cursor read, a transaction) once a place is free. */
  public <T> Future<T> run(Supplier<Future<T>> request) {
    Context ctx = Vertx.currentContext();
    Promise<T> done = Promise.promise();
    Runnable start = () -> {
      Future<T> f;
      try {
        f = request.get();
      } catch (RuntimeException e) {
        f = Future.failedFuture(e);
      }
      f.onComplete(ar -> {
        release();
        done.handle(ar);
      });
    };
    boolean now;
    synchronized (this) {
      now = inFlight < limit;
      if (now) {
        inFlight++;
      } else {
        waiting.add(ctx == null ? start : () -> ctx.runOnContext(v -> start.run()));
      }
    }
    if (now) {
      start.run();
    }
    return done.future();
  }

  /** Requests started and not ended (tests, metrics). */
  public synchronized int inFlight() {
    return inFlight;
  }

  /** Requests waiting for a place. */
  public synchronized int waiting() {
    return waiting.size();
  }

  private void release() {
    Runnable next;
    synchronized (this) {
      next = waiting.poll();
      if (next == null) {
        inFlight--;
      }
    }
    if (next != null) {
      next.run(); // the place passes to it
    }
  }
}
