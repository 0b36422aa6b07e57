package dev.rendezvous.agent.step;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.agent.wire.Step;
import dev.rendezvous.agent.wire.StepReply;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class StepRunnerTest {
  final Vertx vertx = Vertx.vertx();
  final ExecutorService pool = Executors.newFixedThreadPool(2, r -> new Thread(r, "rdv-agent-step-test"));
  final AtomicBoolean interrupted = new AtomicBoolean();
  final CountDownLatch slowEnded = new CountDownLatch(1);

  final StepRunner runner = new StepRunner(vertx, pool, Map.of(
      "where", step -> StepOutcome.ok(Thread.currentThread().getName()),
      "boom", step -> {
        throw new IllegalStateException("disk on fire");
      },
      "bad-args", step -> {
        throw new IllegalArgumentException("bad-args: args[0] is missing");
      },
      "slow", new StepExecutor() {
        @Override
        public StepOutcome execute(Step step) {
          try {
            Thread.sleep(10_000);
          } catch (InterruptedException e) {
            interrupted.set(true);
          } finally {
            slowEnded.countDown();
          }
          return StepOutcome.ok("late");
        }

        @Override
        public Duration timeout(Step step, Duration dflt) {
          return Duration.ofMillis(200);
        }
      }), new UnsupportedStepExecutor(), Duration.ofMinutes(1));

  @AfterEach
  void tearDown() throws Exception {
    pool.shutdownNow();
    vertx.close().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
  }

  /** Runs on an event loop, as the agent does, and waits on the test thread. */
  StepReply run(String type) throws Exception {
    CompletableFuture<StepReply> result = new CompletableFuture<>();
    vertx.runOnContext(v -> runner.run(new Step(type, type + "-0001", List.of())).onSuccess(r -> {
      assertTrue(Vertx.currentContext() != null && Vertx.currentContext().isEventLoopContext(),
          "completes back on the event loop");
      result.complete(r);
    }));
    return result.get(5, TimeUnit.SECONDS);
  }

  @Test
  void blockingExecutorsRunOffTheEventLoop() throws Exception {
    StepReply r = run("where");
    assertEquals(0, r.exitCode());
    assertEquals("rdv-agent-step-test", r.output());
    assertEquals("where-0001", r.stepId());
  }

  @Test
  void unknownTypeIsAnsweredMinusOne() throws Exception {
    StepReply r = run("dhcp-lease-allocate");
    assertEquals(-1, r.exitCode());
    assertEquals("step type 'dhcp-lease-allocate' is not supported by rendezvous-agent 0.1.0", r.error());
  }

  @Test
  void failuresBecomeReplies() throws Exception {
    StepReply boom = run("boom");
    assertEquals(-1, boom.exitCode());
    assertTrue(boom.error().contains("disk on fire"));
    assertEquals("bad-args: args[0] is missing", run("bad-args").error());
  }

  @Test
  void timeLimitAnswers124AndInterruptsTheStep() throws Exception {
    long t0 = System.nanoTime();
    StepReply r = run("slow");
    assertEquals(124, r.exitCode());
    assertTrue(r.error().contains("timed out"));
    assertTrue(System.nanoTime() - t0 < 3_000_000_000L);
    assertTrue(slowEnded.await(5, TimeUnit.SECONDS));
    assertTrue(interrupted.get(), "the worker thread was interrupted");
    assertFalse(r.output().equals("late"));
  }
}
