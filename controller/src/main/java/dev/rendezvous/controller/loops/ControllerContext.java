package dev.rendezvous.controller.loops;

import dev.rendezvous.controller.cluster.ClusterPort;
import dev.rendezvous.controller.config.ControllerConfig;
import dev.rendezvous.controller.service.AssistedServiceClient;
import dev.rendezvous.controller.service.Host;
import dev.rendezvous.controller.support.ControllerLog;
import dev.rendezvous.controller.support.Lifecycle;
import dev.rendezvous.controller.support.RepeatingTask;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * What the loops of one controller share: settings, the service and the cluster, the log, the shared scheduler,
 * the stop switch, the error flags (upstream's ControllerStatus, which decide what the final log bundle says),
 * and the latest host list (so the CSR and label loops need not fetch it again each round).
 */
public final class ControllerContext {
  public final ControllerConfig config;
  public final AssistedServiceClient service;
  public final ClusterPort cluster;
  public final ControllerLog log;
  public final ScheduledExecutorService scheduler;
  public final Lifecycle lifecycle;
  private final AtomicBoolean error = new AtomicBoolean();
  private final Set<String> operatorsInError = ConcurrentHashMap.newKeySet();
  private final AtomicReference<HostsSeen> hosts = new AtomicReference<>();

  private record HostsSeen(List<Host> hosts, Instant at) {
  }

  public ControllerContext(ControllerConfig config, AssistedServiceClient service, ClusterPort cluster,
      ControllerLog log, ScheduledExecutorService scheduler, Lifecycle lifecycle) {
    this.config = config;
    this.service = service;
    this.cluster = cluster;
    this.log = log;
    this.scheduler = scheduler;
    this.lifecycle = lifecycle;
    if (config.handoverHosts() != null) {
      try {
        List<Host> handed = dev.rendezvous.controller.service.Json.MAPPER.readValue(config.handoverHosts(),
            new com.fasterxml.jackson.core.type.TypeReference<List<Host>>() { });
        hosts.set(new HostsSeen(List.copyOf(handed), Instant.EPOCH)); // never fresh: the service is asked first
      } catch (java.io.IOException e) {
        log.warn("the host list handed over in the Job is not readable: {}", e.getMessage());
      }
    }
    service.addListener(new AssistedServiceClient.Listener() {
      @Override
      public void onHosts(List<Host> list) {
        hosts.set(new HostsSeen(List.copyOf(list), Instant.now()));
      }
    });
  }

  /** Whether the Job handed over a host list (an agent-based installation, whose service may be gone). */
  public boolean hasHandedOverHosts() {
    return config.handoverHosts() != null;
  }

  public boolean singleNode() {
    return config.controlPlaneCount() == 1;
  }

  /** The controller ran into an error (upstream's status.Error()): the final bundle carries diagnostics. */
  public void markError() {
    error.set(true);
  }

  public boolean hasError() {
    return error.get();
  }

  public void markOperatorError(String name) {
    operatorsInError.add(name);
  }

  public Set<String> operatorsInError() {
    return Set.copyOf(operatorsInError);
  }

  /**
   * The host list, as last fetched if not older than {@code maxAge}, else fetched now. When the service cannot be
   * reached and the Job handed a list over, the last list read: with the agent-based installer the service ran on
   * the rendezvous host, which is gone once it rebooted into the cluster, and the controller must still approve that
   * host's node (its CSRs).
   */
  public CompletableFuture<List<Host>> hosts(Duration maxAge) {
    HostsSeen seen = hosts.get();
    if (seen != null && seen.at().plus(maxAge).isAfter(Instant.now())) {
      return CompletableFuture.completedFuture(seen.hosts());
    }
    return service.getHosts().handle((list, failure) -> {
      if (failure == null) {
        return CompletableFuture.completedFuture(list);
      }
      HostsSeen last = hosts.get();
      if (last == null || config.handoverHosts() == null) {
        // a hub's service comes back: its callers retry rather than act on an old list
        return CompletableFuture.<List<Host>>failedFuture(failure);
      }
      log.warn("the service cannot be reached ({}): using the host list {}", ControllerLog.describe(failure),
          last.at().equals(Instant.EPOCH) ? "handed over in the Job" : "read at " + last.at());
      return CompletableFuture.completedFuture(last.hosts());
    }).thenCompose(f -> f);
  }

  public RepeatingTask task(String name, Duration interval, Supplier<CompletableFuture<Boolean>> round) {
    if (config.dryRun()) {
      dev.rendezvous.controller.support.SharedRuntime runtime = dev.rendezvous.controller.support.SharedRuntime.get();
      return new RepeatingTask(name, scheduler, () -> runtime.dryRunSpacing(interval),
          config.timings().reactionDelay(), round, log, lifecycle);
    }
    return new RepeatingTask(name, scheduler, interval, config.timings().reactionDelay(), round, log, lifecycle);
  }

  /** How a {@link #waitFor} ended. */
  public enum WaitEnd { SATISFIED, TIMED_OUT, CANCELLED }

  /**
   * Upstream's WaitForPredicate family: runs {@code round} now and then every {@code interval} until it answers
   * true ({@code SATISFIED}), the deadline passes ({@code TIMED_OUT}, checked before each round and woken on time),
   * or {@code cancelWhen} answers true after a false round ({@code CANCELLED}). Watch events may poke it sooner.
   */
  public CompletableFuture<WaitEnd> waitFor(String name, Duration interval, Instant deadline,
      Supplier<CompletableFuture<Boolean>> round, Supplier<CompletableFuture<Boolean>> cancelWhen,
      AtomicReference<RepeatingTask> current) {
    AtomicReference<WaitEnd> end = new AtomicReference<>(WaitEnd.SATISFIED);
    RepeatingTask task = task(name, interval, () -> {
      if (deadline != null && !Instant.now().isBefore(deadline)) {
        end.set(WaitEnd.TIMED_OUT);
        return CompletableFuture.completedFuture(true);
      }
      return round.get().thenCompose(ok -> {
        if (ok || cancelWhen == null) {
          return CompletableFuture.completedFuture(ok);
        }
        return cancelWhen.get().exceptionally(t -> false).thenApply(cancel -> {
          if (cancel) {
            end.set(WaitEnd.CANCELLED);
          }
          return cancel;
        });
      });
    });
    if (current != null) {
      current.set(task);
    }
    if (deadline != null) {
      long ms = Math.max(0, Duration.between(Instant.now(), deadline).toMillis()) + 1;
      scheduler.schedule(task::poke, ms, TimeUnit.MILLISECONDS);
    }
    return task.start().thenApply(v -> end.get());
  }

  /** Retries {@code call} every {@code interval} until it succeeds (or the controller stops). */
  public CompletableFuture<Void> untilAccepted(String name, Duration interval, Supplier<CompletableFuture<?>> call) {
    return task(name, interval, () -> call.get().thenApply(v -> true)).start();
  }

  /** Like {@link #untilAccepted} but gives up after {@code attempts}; completes true when it got through. */
  public CompletableFuture<Boolean> retry(String name, int attempts, Duration interval,
      Supplier<CompletableFuture<?>> call) {
    int[] left = {attempts};
    AtomicBoolean ok = new AtomicBoolean();
    return task(name, interval, () -> {
      left[0]--;
      return call.get().handle((v, t) -> {
        if (t == null) {
          ok.set(true);
          return true;
        }
        log.warn("{}: {} (attempts left {})", name, ControllerLog.describe(t), left[0]);
        return left[0] <= 0;
      });
    }).start().thenApply(v -> ok.get());
  }

  public BooleanSupplier stopped() {
    return lifecycle::stopped;
  }
}
