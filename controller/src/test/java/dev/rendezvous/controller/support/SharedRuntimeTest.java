package dev.rendezvous.controller.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class SharedRuntimeTest {

  @Test
  void reportsWaitingForAThreadGoBeforeWaitingPolls() throws Exception {
    SharedRuntime runtime = SharedRuntime.get();
    int threads = Integer.getInteger("rdv.controller.serviceCallThreads", 8);
    // every call thread held, each by its own latch: freeing one lets that thread take the queue in its order
    List<CountDownLatch> holds = new ArrayList<>();
    CountDownLatch allHeld = new CountDownLatch(threads);
    for (int i = 0; i < threads; i++) {
      CountDownLatch hold = new CountDownLatch(1);
      holds.add(hold);
      runtime.serviceCalls().execute(() -> {
        allHeld.countDown();
        await(hold);
      });
    }
    assertTrue(allHeld.await(10, TimeUnit.SECONDS), "every call thread is busy");
    List<String> ran = new CopyOnWriteArrayList<>();
    CountDownLatch done = new CountDownLatch(4);
    for (String poll : List.of("poll-1", "poll-2")) {
      runtime.serviceCalls().execute(() -> {
        ran.add(poll);
        done.countDown();
      });
    }
    runtime.serviceReports().execute(() -> {
      ran.add("report");
      done.countDown();
    });
    runtime.serviceCalls().execute(() -> {
      ran.add("poll-3");
      done.countDown();
    });
    holds.get(0).countDown();
    assertTrue(done.await(10, TimeUnit.SECONDS));
    holds.forEach(CountDownLatch::countDown);
    assertEquals(List.of("report", "poll-1", "poll-2", "poll-3"), ran);
  }

  @Test
  void dryRunLoopsAreSpacedByHowManyControllersShareTheJvm() {
    SharedRuntime runtime = SharedRuntime.get();
    Duration alone = runtime.dryRunSpacing(Duration.ofMillis(1)); // other tests' controllers may still be counted
    for (int i = 0; i < 40; i++) {
      runtime.dryRunControllerStarted();
    }
    try {
      // 40 more at the default budget of 20 rounds a second per loop: each loop waits at least 2 s
      assertTrue(runtime.dryRunSpacing(Duration.ofMillis(1)).compareTo(alone.plusMillis(1999)) >= 0,
          runtime.dryRunSpacing(Duration.ofMillis(1)).toString());
      assertEquals(Duration.ofHours(1), runtime.dryRunSpacing(Duration.ofHours(1)), "a longer interval stays");
    } finally {
      for (int i = 0; i < 40; i++) {
        runtime.dryRunControllerEnded();
      }
    }
    assertEquals(alone, runtime.dryRunSpacing(Duration.ofMillis(1)));
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
