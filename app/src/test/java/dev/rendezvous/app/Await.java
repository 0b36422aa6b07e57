package dev.rendezvous.app;

import java.time.Duration;
import java.util.function.Supplier;

/** Polls a condition until it holds or a deadline passes (for effects that cross the bus). */
final class Await {
  private Await() {}

  /**
   * Waits this long or longer are printed (to the class's output file) with their limit: where a slow test spends its
   * time, and which waits come near their limit on a loaded machine (the next flaky failure).
   */
  private static final long REPORTED_NANOS = 2_000_000_000L;

  static <T> T until(String what, Duration timeout, Supplier<T> probe) {
    long start = System.nanoTime();
    long deadline = start + timeout.toNanos();
    while (true) {
      T v = probe.get();
      if (v != null && !Boolean.FALSE.equals(v)) {
        long took = System.nanoTime() - start;
        if (took >= REPORTED_NANOS) {
          System.out.printf(java.util.Locale.ROOT, "awaited %.1f s of %d s (%.0f %%): %s%n", took / 1e9,
              timeout.toSeconds(), 100.0 * took / timeout.toNanos(), what);
        }
        return v;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out after " + timeout + " waiting for " + what);
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }
}
