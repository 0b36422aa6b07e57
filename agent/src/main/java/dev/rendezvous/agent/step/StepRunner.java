package dev.rendezvous.agent.step;

import dev.rendezvous.agent.wire.Step;
import dev.rendezvous.agent.wire.StepReply;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Dispatches steps to executors by {@code step_type}. Blocking executors run on {@code pool} (never on
 * the event loop) under a time limit: when it passes, the step is answered exit 124 and its thread is
 * interrupted (which kills a running command). Unknown types are answered by {@code fallback}.
 */
public final class StepRunner {
  private static final Logger LOG = LoggerFactory.getLogger(StepRunner.class);

  private final Vertx vertx;
  private final ExecutorService pool;
  private final Map<String, StepExecutor> executors;
  private final StepExecutor fallback;
  private final Duration defaultTimeout;

  public StepRunner(
      Vertx vertx, ExecutorService pool, Map<String, StepExecutor> executors, StepExecutor fallback,
      Duration defaultTimeout) {
    this.vertx = vertx;
    this.pool = pool;
    this.executors = Map.copyOf(executors);
    this.fallback = fallback;
    this.defaultTimeout = defaultTimeout;
  }

  /** Runs {@code step}; the future completes on the caller's context and never fails. */
  public Future<StepReply> run(Step step) {
    StepExecutor executor = executors.getOrDefault(step.stepType(), fallback);
    if (executor.nonBlocking()) {
      return Future.succeededFuture(safely(executor, step).toReply(step));
    }
    Context context = vertx.getOrCreateContext();
    Promise<StepReply> promise = Promise.promise();
    Duration limit = executor.timeout(step, defaultTimeout);
    java.util.concurrent.Future<?> task;
    try {
      task = pool.submit(() -> {
        StepOutcome outcome = safely(executor, step);
        context.runOnContext(v -> promise.tryComplete(outcome.toReply(step)));
      });
    } catch (RejectedExecutionException e) {
      return Future.succeededFuture(
          StepOutcome.failure(StepOutcome.AGENT_ERROR, "agent is shutting down").toReply(step));
    }
    long timer = context.owner().setTimer(Math.max(1, limit.toMillis()), t -> {
      if (promise.tryComplete(StepOutcome.failure(StepOutcome.TIMED_OUT,
          "step " + step.stepType() + " timed out after " + limit.toSeconds() + " s").toReply(step))) {
        LOG.warn("step {} ({}) timed out after {}", step.stepId(), step.stepType(), limit);
        task.cancel(true);
      }
    });
    return promise.future().onComplete(r -> vertx.cancelTimer(timer));
  }

  private static StepOutcome safely(StepExecutor executor, Step step) {
    try {
      return executor.execute(step);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return StepOutcome.failure(StepOutcome.TIMED_OUT, "step " + step.stepType() + " interrupted");
    } catch (IllegalArgumentException e) {
      return StepOutcome.failure(StepOutcome.AGENT_ERROR, e.getMessage());
    } catch (Exception | LinkageError e) {
      LOG.warn("step {} ({}) failed", step.stepId(), step.stepType(), e);
      return StepOutcome.failure(StepOutcome.AGENT_ERROR, step.stepType() + " failed: " + e);
    }
  }
}
