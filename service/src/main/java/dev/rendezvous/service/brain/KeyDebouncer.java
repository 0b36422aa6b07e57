package dev.rendezvous.service.brain;

import io.vertx.core.Vertx;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * One pass per key however many units ask for it meanwhile: the first ask arms a timer; while asks keep coming
 * (a burst of arrivals) the pass waits for a quiet spell, up to a bound from the first ask. The brain keeps one
 * per kind of pass (full refresh, targets pass).
 */
final class KeyDebouncer {
  private final Vertx vertx;
  /** Keys with a pass pending: when it was first asked for and when last (nanoTime). */
  private final Map<WorkKey, long[]> due = new ConcurrentHashMap<>();

  KeyDebouncer(Vertx vertx) {
    this.vertx = vertx;
  }

  /**
   * Asks for the key's pass: {@code pass} runs {@code delayMs} after the first ask, later by {@code quietMs} while
   * asks keep coming, and at most {@code maxMs} after the first. The first ask's arguments are the ones that count.
   */
  void ask(WorkKey key, long delayMs, long quietMs, long maxMs, Runnable pass) {
    long now = System.nanoTime();
    long[] asked = due.putIfAbsent(key, new long[] {now, now});
    if (asked != null) {
      asked[1] = now; // units and the timer run on the key's lane context
      return;
    }
    arm(key, delayMs, quietMs, maxMs, pass);
  }

  /** Whether the key's pass was asked for and has not run yet. */
  boolean pending(WorkKey key) {
    return due.containsKey(key);
  }

  private void arm(WorkKey key, long delayMs, long quietMs, long maxMs, Runnable pass) {
    vertx.setTimer(Math.max(1, delayMs), t -> {
      long[] asked = due.get(key);
      if (asked == null) {
        return;
      }
      long now = System.nanoTime();
      long sinceLast = TimeUnit.NANOSECONDS.toMillis(now - asked[1]);
      long sinceFirst = TimeUnit.NANOSECONDS.toMillis(now - asked[0]);
      if (sinceLast < quietMs && sinceFirst + quietMs <= maxMs) {
        arm(key, quietMs, quietMs, maxMs, pass); // still busy: later, once
        return;
      }
      due.remove(key);
      pass.run();
    });
  }
}
