package dev.rendezvous.controller.testing;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waits for an asynchronous outcome. The limit only guards against hanging: tests assert outcomes, not timings. */
public final class Eventually {
  public static final Duration LIMIT = Duration.ofSeconds(30);

  private Eventually() {
  }

  public static void until(String what, BooleanSupplier condition) {
    long end = System.nanoTime() + LIMIT.toNanos();
    while (System.nanoTime() < end) {
      try {
        if (condition.getAsBoolean()) {
          return;
        }
      } catch (RuntimeException e) {
        // not yet
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted waiting for " + what);
      }
    }
    throw new AssertionError("never happened: " + what);
  }
}
