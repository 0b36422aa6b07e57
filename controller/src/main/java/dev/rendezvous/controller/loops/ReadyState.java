package dev.rendezvous.controller.loops;

import dev.rendezvous.controller.service.Cluster;
import dev.rendezvous.controller.support.ControllerLog;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Upstream's SetReadyState: every second, until it works or WaitTimeout passes, reach the service (GET cluster) and
 * the API server (list nodes), then create the event {@code AssistedControllerIsReady} in the controller's
 * namespace, which the bootstrap installer waits for. An event left by an earlier run is fine (AlreadyExists).
 */
public final class ReadyState {
  public static final String EVENT_NAME = "AssistedControllerIsReady";
  public static final String INVOLVED_OBJECT = "assisted-installer-controller";
  public static final String MESSAGE =
      "Assisted controller managed to connect to assisted service and kube-apiserver and is ready to start";

  private final ControllerContext ctx;

  public ReadyState(ControllerContext ctx) {
    this.ctx = ctx;
  }

  /** Completes with the cluster once ready; fails with a TimeoutException after WaitTimeout. */
  public CompletableFuture<Cluster> run() {
    ctx.log.info("Start waiting to be ready");
    AtomicReference<Cluster> cluster = new AtomicReference<>();
    Instant deadline = Instant.now().plus(ctx.config.timings().waitTimeout());
    // the read goes ahead of waiting polls: the installer waits for this
    return ctx.waitFor("ready state", ctx.config.timings().readyPoll(), deadline, () -> ctx.service
        .getCluster(true, true)
        .handle((c, t) -> {
          if (t != null) {
            ctx.log.warn("Failed to connect to assisted service: {}", ControllerLog.describe(t));
            if (ctx.hasHandedOverHosts()) {
              // agent-based: the service ran on the rendezvous host, which rebooted into this cluster; the Job
              // carries the hosts, so the cluster-side work (CSRs, labels) goes on without it
              ctx.log.warn("working from the host list handed over in the Job: the service is gone");
              return true;
            }
            return false;
          }
          cluster.set(c);
          ctx.log.info("assisted-service is available");
          return true;
        })
        .thenCompose(serviceUp -> !serviceUp ? CompletableFuture.completedFuture(false) : ctx.cluster.ping()
            .handle((v, t) -> {
              if (t != null) {
                ctx.log.warn("Failed to connect to ocp cluster: {}", ControllerLog.describe(t));
                return false;
              }
              ctx.log.info("kube-apiserver is available");
              return true;
            }))
        .thenCompose(apiUp -> !apiUp ? CompletableFuture.completedFuture(false) : sendReadyEvent()),
        null, null)
        .thenApply(end -> {
          if (end != ControllerContext.WaitEnd.SATISFIED) {
            throw new java.util.concurrent.CompletionException(
                new TimeoutException("not ready after " + ctx.config.timings().waitTimeout()));
          }
          return cluster.get();
        });
  }

  private CompletableFuture<Boolean> sendReadyEvent() {
    ctx.log.info("Sending ready event");
    return ctx.cluster.createEvent(ctx.config.namespace(), EVENT_NAME, EVENT_NAME, MESSAGE, INVOLVED_OBJECT)
        .handle((created, t) -> {
          if (t != null) {
            ctx.log.error("Failed to spawn event: {}", ControllerLog.describe(t));
            return false;
          }
          ctx.log.info("Ready event {}", created == dev.rendezvous.controller.cluster.Views.EventCreation.CREATED
              ? "created" : "already there");
          return true;
        });
  }
}
