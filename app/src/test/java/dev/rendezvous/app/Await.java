package dev.rendezvous.app;

import java.time.Duration;
import java.util.function.Supplier;

/** Polls a condition until it holds or a deadline passes (for effects that cross the bus). */
final class Await {
  private Await() {}

  static <T> T until(String what, Duration timeout, Supplier<T> probe) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      T v = probe.get();
      if (v != null && !Boolean.FALSE.equals(v)) {
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
