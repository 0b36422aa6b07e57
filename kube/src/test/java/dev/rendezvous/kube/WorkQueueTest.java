package dev.rendezvous.kube;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class WorkQueueTest {

  @Test
  void aKeyIsNeverReconciledTwiceAtOnceAndAnAddDuringItsReconcileRunsItOnceMore() throws Exception {
    CountDownLatch inside = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger running = new AtomicInteger();
    AtomicBoolean overlapped = new AtomicBoolean();
    List<String> done = new CopyOnWriteArrayList<>();
    try (WorkQueue q = new WorkQueue(4, key -> {
      if (running.incrementAndGet() > 1) {
        overlapped.set(true);
      }
      try {
        if (done.isEmpty()) {
          inside.countDown();
          release.await(5, TimeUnit.SECONDS);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        running.decrementAndGet();
        done.add(key);
      }
    })) {
      q.add("a");
      assertTrue(inside.await(5, TimeUnit.SECONDS));
      for (int i = 0; i < 10; i++) {
        q.add("a"); // a burst while "a" runs: one more reconcile, not ten, and never beside the first
      }
      release.countDown();
      waitFor(() -> done.size() == 2);
      Thread.sleep(200);
      assertEquals(List.of("a", "a"), done);
      assertFalse(overlapped.get());
    }
  }

  @Test
  void delayedAddsCoalesceAndASoonerOneWins() throws Exception {
    Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    try (WorkQueue q = new WorkQueue(2, key -> runs.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet())) {
      for (int i = 0; i < 20; i++) {
        q.addAfter("burst", Duration.ofMillis(150));
      }
      q.addAfter("late", Duration.ofSeconds(30));
      q.addAfter("late", Duration.ofMillis(100)); // sooner than what is pending: scheduled too
      waitFor(() -> runs.containsKey("burst") && runs.containsKey("late"));
      Thread.sleep(300);
      assertEquals(1, runs.get("burst").get(), "twenty events within the delay: one reconcile");
      assertEquals(1, runs.get("late").get());
    }
  }

  @Test
  void aFailureComesBackWithBackOffAndARequeueAfterItsDelay() throws Exception {
    AtomicInteger failing = new AtomicInteger();
    AtomicInteger waiting = new AtomicInteger();
    try (WorkQueue q = new WorkQueue(1, key -> {
      if (key.equals("fails") && failing.incrementAndGet() < 3) {
        throw new IllegalStateException("the service is down");
      }
      if (key.equals("waits") && waiting.incrementAndGet() < 2) {
        throw new WorkQueue.Requeue(Duration.ofMillis(200));
      }
    })) {
      long t0 = System.nanoTime();
      q.add("fails");
      q.add("waits");
      waitFor(() -> failing.get() == 3 && waiting.get() == 2);
      long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
      assertTrue(ms >= 1_400, "retried after 0.5 s then 1 s, not at once: " + ms + " ms");
      assertEquals(2, q.reconciles(), "one success each");
    }
  }

  private static void waitFor(java.util.function.BooleanSupplier c) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!c.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out");
      }
      Thread.sleep(10);
    }
  }
}
