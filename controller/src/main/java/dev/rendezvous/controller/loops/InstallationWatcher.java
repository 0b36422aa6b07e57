package dev.rendezvous.controller.loops;

import dev.rendezvous.controller.service.ClusterStatus;
import dev.rendezvous.controller.service.ServiceException;
import dev.rendezvous.controller.support.ControllerLog;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Upstream's waitForInstallation: every minute (first after one interval), GET the cluster: {@code installed} and
 * {@code adding-hosts} end the run well, {@code error} and {@code cancelled} end it as failed. The cluster is gone
 * after three strikes in a row: a 404 counts three (deleted: at once), a 401 one; other errors keep polling.
 */
public final class InstallationWatcher {
  static final int STRIKES_BEFORE_GONE = 3;

  /** How the cluster ended, as far as this controller is concerned. */
  public enum End { INSTALLED, FAILED, GONE }

  private final ControllerContext ctx;

  public InstallationWatcher(ControllerContext ctx) {
    this.ctx = ctx;
  }

  public CompletableFuture<End> run() {
    ctx.log.info("monitor cluster installation status");
    AtomicInteger strikes = new AtomicInteger();
    AtomicReference<End> end = new AtomicReference<>();
    AtomicReference<String> lastStatus = new AtomicReference<>();
    return ctx.task("installation status", ctx.config.timings().installationPoll(), () -> ctx.service.getCluster(true)
        .handle((cluster, t) -> {
          if (t != null) {
            ServiceException se = ServiceException.find(t);
            if (se != null && se.isNotFound()) {
              strikes.addAndGet(STRIKES_BEFORE_GONE);
              ctx.log.error("Cluster was not found in inventory or user is not authorized");
            } else if (se != null && se.isUnauthorized()) {
              strikes.incrementAndGet();
              ctx.log.error("User is not authenticated to perform the operation");
            } else {
              ctx.log.warn("Failed to get the cluster: {}", ControllerLog.describe(t));
            }
            if (strikes.get() >= STRIKES_BEFORE_GONE) {
              ctx.log.info("Got more than {} errors from assisted service in a row, exiting", STRIKES_BEFORE_GONE);
              end.set(End.GONE);
              return true;
            }
            return false;
          }
          strikes.set(0);
          if (!java.util.Objects.equals(lastStatus.getAndSet(cluster.status()), cluster.status())) {
            ctx.log.info("Checking if the cluster installation finished... (status {})", cluster.status());
          } else {
            ctx.log.debug("Checking if the cluster installation finished... (status {})", cluster.status());
          }
          switch (cluster.status() == null ? "" : cluster.status()) {
            case ClusterStatus.ERROR -> {
              ctx.log.info("Cluster installation failed.");
              ctx.markError();
              end.set(End.FAILED);
            }
            case ClusterStatus.CANCELLED -> {
              ctx.log.info("Cluster installation aborted. Signal the status");
              end.set(End.FAILED);
            }
            case ClusterStatus.INSTALLED -> {
              ctx.log.info("Cluster installation successfully finished.");
              end.set(End.INSTALLED);
            }
            case ClusterStatus.ADDING_HOSTS -> {
              ctx.log.info("Cluster is day2");
              end.set(End.INSTALLED);
            }
            default -> {
              return false;
            }
          }
          return true;
        })).start(ctx.config.timings().installationPoll()).thenApply(v -> end.get());
  }
}
