package dev.rendezvous.controller.loops;

import dev.rendezvous.controller.cluster.Views;
import dev.rendezvous.controller.service.ClusterStatus;
import dev.rendezvous.controller.service.HostRole;
import dev.rendezvous.controller.support.ControllerLog;
import dev.rendezvous.controller.support.RepeatingTask;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Upstream's UpdateNodeLabels: applies the {@code node_labels} the user set on hosts (not disabled, not in error)
 * to their Ready nodes with a merge patch, pausing the worker MachineConfigPool meanwhile when a labelled worker
 * has a custom pool. Ends once every such host's node carries its labels. Idempotent: a node that already has the
 * labels is not patched.
 */
public final class NodeLabelsLoop {
  static final String WORKER_POOL = "worker";
  private final ControllerContext ctx;

  public NodeLabelsLoop(ControllerContext ctx) {
    this.ctx = ctx;
  }

  public CompletableFuture<Void> run() {
    ctx.log.info("Updating host labels if required");
    RepeatingTask task = ctx.task("node labels", ctx.config.timings().checkInterval(), this::round);
    ctx.cluster.addChangeListener(task::poke);
    return task.start().whenComplete((v, t) -> ctx.log.info("Finished UpdateNodeLabels"));
  }

  private CompletableFuture<Boolean> round() {
    return ctx.hosts(ctx.config.timings().checkInterval()).thenCompose(all -> {
      List<ClusterHost> labelled = ClusterHost.of(all.stream()
          .filter(h -> !ClusterStatus.HOST_DISABLED.equals(h.status()) && !ClusterStatus.HOST_ERROR.equals(h.status()))
          .filter(h -> !h.parsedNodeLabels().isEmpty()).toList(), ctx.singleNode());
      if (labelled.isEmpty()) {
        ctx.log.info("No hosts with labels, skipping update node labels");
        return CompletableFuture.completedFuture(true);
      }
      boolean pause = labelled.stream().anyMatch(h -> h.host.effectiveRole() == HostRole.WORKER
          && h.host.machineConfigPoolName() != null && !h.host.machineConfigPoolName().isBlank());
      CompletableFuture<Boolean> paused = pause ? pausePool(true) : CompletableFuture.completedFuture(true);
      return paused.thenCompose(ok -> {
        if (!ok) {
          return CompletableFuture.completedFuture(false);
        }
        return patchNodes(labelled).thenCompose(patched -> {
          if (patched < labelled.size()) {
            ctx.log.info("Not all host labels where added yet, keep trying");
            return CompletableFuture.completedFuture(false);
          }
          return pause ? pausePool(false) : CompletableFuture.completedFuture(true);
        });
      });
    });
  }

  private CompletableFuture<Boolean> pausePool(boolean paused) {
    return ctx.cluster.setMachineConfigPoolPaused(WORKER_POOL, paused).handle((v, t) -> {
      if (t != null) {
        ctx.log.warn("Failed to {} pool {}: {}", paused ? "pause" : "unpause", WORKER_POOL, ControllerLog.describe(t));
        return false;
      }
      return true;
    });
  }

  private CompletableFuture<Integer> patchNodes(List<ClusterHost> labelled) {
    AtomicInteger patched = new AtomicInteger();
    CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
    for (Views.Node node : ctx.cluster.nodes()) {
      if (!node.ready()) {
        continue;
      }
      ClusterHost host = ClusterHost.match(node, labelled);
      if (host == null) {
        continue;
      }
      Map<String, String> wanted = host.host.parsedNodeLabels();
      boolean present = wanted.entrySet().stream().allMatch(e -> e.getValue().equals(node.labels().get(e.getKey())));
      if (present) {
        patched.incrementAndGet();
        continue;
      }
      chain = chain.thenCompose(v -> ctx.cluster.mergeNodeLabels(node.name(), wanted).handle((x, t) -> {
        if (t != null) {
          ctx.log.error("Failed to patch node {} with node labels {}: {}", node.name(), wanted, ControllerLog.describe(t));
        } else {
          ctx.log.info("Successfully patched label for host {}", node.name());
          patched.incrementAndGet();
        }
        return null;
      }));
    }
    return chain.thenApply(v -> patched.get());
  }
}
