package dev.rendezvous.controller.loops;

import dev.rendezvous.controller.cluster.Views;
import dev.rendezvous.controller.service.ClusterStatus;
import dev.rendezvous.controller.service.Host;
import dev.rendezvous.controller.support.ControllerLog;
import dev.rendezvous.controller.support.RepeatingTask;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Upstream's ApproveCsrs, with {@link CsrPolicy}'s stricter rule: each round (every check interval, and whenever a
 * CSR shows up) approves the pending CSRs of this cluster's nodes. Runs while the nodes loop runs. Idempotent: the
 * watch shows approved CSRs as approved, so nothing is approved twice; a failed approval is retried next round.
 */
final class CsrApprover {
  private final ControllerContext ctx;
  private final Set<String> explained = ConcurrentHashMap.newKeySet();
  private RepeatingTask task;

  CsrApprover(ControllerContext ctx) {
    this.ctx = ctx;
  }

  CompletableFuture<Void> start() {
    ctx.log.info("Start approving CSRs");
    task = ctx.task("approve CSRs", ctx.config.timings().checkInterval(), this::round);
    ctx.cluster.addChangeListener(task::poke);
    return task.start();
  }

  void stop() {
    if (task != null) {
      task.cancel();
      ctx.log.info("Finish approving CSRs");
    }
  }

  private CompletableFuture<Boolean> round() {
    List<Views.Csr> pending = ctx.cluster.csrs().stream().filter(Views.Csr::pending).toList();
    if (pending.isEmpty()) {
      return CompletableFuture.completedFuture(false);
    }
    return ctx.hosts(ctx.config.timings().checkInterval()).thenCompose(hosts -> {
      Set<String> names = new HashSet<>();
      for (ClusterHost h : ClusterHost.of(hosts.stream()
          .filter(x -> !ClusterStatus.HOST_DISABLED.equals(x.status())).toList(), ctx.singleNode())) {
        if (h.nodeName != null) {
          names.add(h.nodeName);
        }
      }
      CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
      for (Views.Csr csr : pending) {
        CsrPolicy.Decision d = CsrPolicy.decide(csr, names);
        if (!d.approve()) {
          if (explained.add(csr.name())) {
            ctx.log.warn("Leaving CSR {} pending: {}", csr.name(), d.reason());
          }
          continue;
        }
        chain = chain.thenCompose(v -> {
          ctx.log.info("Approving CSR {} ({})", csr.name(), d.reason());
          return ctx.cluster.approveCsr(csr.name(), CsrPolicy.REASON, CsrPolicy.MESSAGE)
              .exceptionally(t -> {
                ctx.log.warn("Failed to approve CSR {}, will retry: {}", csr.name(), ControllerLog.describe(t));
                return null;
              });
        });
      }
      return chain.thenApply(v -> false);
    });
  }

  static boolean isDisabled(Host h) {
    return ClusterStatus.HOST_DISABLED.equals(h.status());
  }
}
