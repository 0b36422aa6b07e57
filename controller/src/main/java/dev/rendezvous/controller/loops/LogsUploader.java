package dev.rendezvous.controller.loops;

import dev.rendezvous.controller.cluster.Views;
import dev.rendezvous.controller.service.LogsState;
import dev.rendezvous.controller.support.ControllerLog;
import dev.rendezvous.controller.support.Lifecycle;
import dev.rendezvous.controller.support.RepeatingTask;
import dev.rendezvous.controller.support.TarGz;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Upstream's UploadLogs. While the controller runs: every LogsUploadPeriod, a {@code controller_logs.tar.gz} with
 * the controller's log. At the end: logs-progress {@code requested}, then the summary bundle (the controller's log
 * and what a client can gather of the cluster: its namespace's pod logs and events, the cluster operators), retried
 * every SummaryLogsPeriod up to WaitTimeout, then logs-progress {@code completed}.
 *
 * <p>The controller's log is its pod's log when it runs in a pod the API shows, else its own retained tail (an
 * in-process dry-run controller has no pod).
 */
public final class LogsUploader {
  public static final String CONTROLLER_LOG_FILE = "assisted-installer-controller.logs";

  private final ControllerContext ctx;
  private RepeatingTask periodic;

  public LogsUploader(ControllerContext ctx) {
    this.ctx = ctx;
  }

  /** Periodic snapshots, first one after one period. */
  public void startPeriodic() {
    ctx.log.info("Start sending logs");
    periodic = ctx.task("controller logs", ctx.config.timings().logsUploadPeriod(), () -> {
      ctx.log.info("Start uploading controller logs (intermediate snapshot)");
      return controllerLog().thenCompose(log -> ctx.service.uploadControllerLogs(
          TarGz.write(List.of(new TarGz.Entry(CONTROLLER_LOG_FILE, log)), Instant.now().getEpochSecond())))
          .handle((v, t) -> {
            if (t != null) {
              ctx.log.warn("Failed to upload controller logs: {}", ControllerLog.describe(t));
            }
            return false;
          });
    });
    periodic.start(ctx.config.timings().logsUploadPeriod());
  }

  /**
   * The final upload, on {@code finalLifecycle} (the loops' lifecycle is stopped by then). Never fails: what could
   * not be sent is logged.
   */
  public CompletableFuture<Void> uploadSummary(Lifecycle finalLifecycle) {
    if (periodic != null) {
      periodic.cancel();
    }
    ctx.log.info("Upload final controller and cluster logs before exit");
    ControllerContext last = new ControllerContext(ctx.config, ctx.service, ctx.cluster, ctx.log, ctx.scheduler,
        finalLifecycle);
    Instant deadline = Instant.now().plus(ctx.config.timings().waitTimeout());
    return ctx.service.updateLogsProgress(LogsState.REQUESTED)
        .exceptionally(t -> {
          ctx.log.warn("Failed to report logs progress requested: {}", ControllerLog.describe(t));
          return null;
        })
        .thenCompose(v -> last.waitFor("summary logs", ctx.config.timings().summaryLogsPeriod(), deadline,
            () -> summary().thenCompose(ctx.service::uploadControllerLogs).handle((x, t) -> {
              if (t != null) {
                ctx.log.info("retry uploading logs in {}: {}", ctx.config.timings().summaryLogsPeriod(),
                    ControllerLog.describe(t));
                return false;
              }
              ctx.log.info("Summary logs uploaded");
              return true;
            }), null, null))
        .thenCompose(end -> ctx.service.updateLogsProgress(LogsState.COMPLETED))
        .exceptionally(t -> {
          ctx.log.warn("Final log upload incomplete: {}", ControllerLog.describe(t));
          return null;
        });
  }

  private CompletableFuture<byte[]> controllerLog() {
    return ctx.cluster.controllerPodLog(ctx.config.namespace())
        .exceptionally(t -> Optional.empty())
        .thenApply(pod -> pod.orElseGet(ctx.log::snapshot));
  }

  private CompletableFuture<byte[]> summary() {
    if (ctx.hasError() || !ctx.operatorsInError().isEmpty()) {
      ctx.log.info("Controller ran into errors (operators in error: {}); adding the cluster's diagnostics",
          ctx.operatorsInError());
      if (!ctx.config.mustGatherImage().isBlank()) {
        ctx.log.info("MUST_GATHER_IMAGE {} is not run: this controller gathers through the API only",
            ctx.config.mustGatherImage());
      }
    }
    return ctx.cluster.namespaceDiagnostics(ctx.config.namespace())
        .exceptionally(t -> {
          ctx.log.warn("Some logs were not collected in summary: {}", ControllerLog.describe(t));
          return List.of();
        })
        .thenCompose(diag -> controllerLog().thenApply(log -> {
          List<TarGz.Entry> entries = new ArrayList<>();
          for (Views.NamedFile f : diag) {
            entries.add(new TarGz.Entry(f.name(), f.content()));
          }
          entries.add(new TarGz.Entry(CONTROLLER_LOG_FILE, log));
          entries.add(new TarGz.Entry("controller-status.txt", status().getBytes(StandardCharsets.UTF_8)));
          return TarGz.write(entries, Instant.now().getEpochSecond());
        }));
  }

  private String status() {
    return "cluster_id=" + ctx.log.clusterId() + "\nerror=" + ctx.hasError() + "\noperators_in_error="
        + String.join(",", ctx.operatorsInError()) + "\n";
  }
}
