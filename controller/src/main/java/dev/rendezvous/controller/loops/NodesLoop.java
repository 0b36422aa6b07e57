package dev.rendezvous.controller.loops;

import dev.rendezvous.controller.cluster.Views;
import dev.rendezvous.controller.service.ClusterStatus;
import dev.rendezvous.controller.service.HostStage;
import dev.rendezvous.controller.support.ControllerLog;
import dev.rendezvous.controller.support.RepeatingTask;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.slf4j.event.Level;

/**
 * Upstream's WaitAndUpdateNodesStatus. Each round (every check interval, and whenever a node changed): read the
 * hosts from the service, match nodes to hosts, report {@code Joined} for a host whose node exists while it is
 * Rebooting, Waiting for ignition or Configuring, and {@code Done} once its node is Ready; then report
 * {@code Configuring} for hosts whose addresses fetched Ignition from the machine-config server. Ends when no host
 * is left in progress (or all of those are in error); the CSR approver runs alongside until then.
 *
 * <p>Idempotent and restartable: every round starts from the stages the service holds (or the ones this controller
 * was answered for, when a read does not show them yet), and a stage is reported only if it lies ahead of the host's
 * current one in its role's sequence ({@link StageOrder}); a report that fails
 * is not resent blindly but reconsidered from fresh data next round. A restarted controller therefore continues
 * where the cluster is, and never reports a stage twice or backwards.
 */
public final class NodesLoop {
  private static final Set<HostStage> JOINABLE = Set.of(HostStage.REBOOTING, HostStage.WAITING_FOR_IGNITION,
      HostStage.CONFIGURING);
  private static final Set<HostStage> PAST_IGNITION = Set.of(HostStage.CONFIGURING, HostStage.JOINED, HostStage.DONE);
  private static final Duration MCS_LOG_WINDOW = Duration.ofSeconds(300);

  private final ControllerContext ctx;
  private final boolean removeUninitializedTaint;
  private final CsrApprover csrs;
  private volatile String lastSummary;
  /**
   * The furthest stage of each host this controller was answered for. The service applies a report through its bus,
   * so a round's read right after an accepted report may not show it yet; reporting from that read would send a stage
   * behind the host's (Joined after Done: refused 409, an ERROR line). A restarted controller starts from the
   * service's stages alone, as before.
   */
  private final Map<String, HostStage> accepted = new ConcurrentHashMap<>();

  public NodesLoop(ControllerContext ctx, boolean removeUninitializedTaint) {
    this.ctx = ctx;
    this.removeUninitializedTaint = removeUninitializedTaint;
    this.csrs = new CsrApprover(ctx);
  }

  public CompletableFuture<Void> run() {
    ctx.log.info("Waiting till all nodes will join and update status to assisted installer");
    csrs.start();
    RepeatingTask task = ctx.task("nodes", ctx.config.timings().checkInterval(), this::round);
    ctx.cluster.addChangeListener(task::poke);
    return task.start().whenComplete((v, t) -> {
      csrs.stop();
      ctx.log.info("WaitAndUpdateNodesStatus finished");
    });
  }

  private CompletableFuture<Boolean> round() {
    return ctx.service.getHosts().thenCompose(all -> {
      List<ClusterHost> hosts = ClusterHost.of(all.stream()
          .filter(h -> !ClusterStatus.HOST_DISABLED.equals(h.status())).toList(), ctx.singleNode());
      for (ClusterHost h : hosts) {
        HostStage reported = accepted.get(h.id());
        if (reported != null && h.canMoveTo(reported)) {
          h.reached(reported); // the read is behind what was accepted
        }
      }
      List<ClusterHost> inProgress = hosts.stream()
          .filter(h -> !ClusterStatus.HOST_INSTALLED.equals(h.host.status())).toList();
      long inError = inProgress.stream().filter(h -> ClusterStatus.HOST_ERROR.equals(h.host.status())).count();
      if (inError > 0 && inError == inProgress.size()) {
        ctx.log.info("Done waiting for all the nodes. Nodes in error status: {}", inError);
        return CompletableFuture.completedFuture(true);
      }
      if (inProgress.isEmpty()) {
        ctx.log.info("All nodes were successfully installed");
        return CompletableFuture.completedFuture(true);
      }
      String summary = inProgress.stream().map(h -> h.nodeName + "=" + h.stage()).collect(Collectors.joining(", "));
      if (!summary.equals(lastSummary)) {
        lastSummary = summary;
        ctx.log.info("Checking if cluster nodes are ready. {} nodes remaining: {}", inProgress.size(), summary);
      }
      CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
      for (Views.Node node : ctx.cluster.nodes()) {
        ClusterHost host = ClusterHost.match(node, inProgress);
        if (host == null) {
          ctx.log.debug("Node {} is not in inventory hosts", node.name());
          continue;
        }
        chain = chain.thenCompose(v -> advance(host, node));
      }
      return chain.thenCompose(v -> configuringFromIgnitionFetches(inProgress)).thenApply(v -> false);
    });
  }

  /** Joined and Done for one matched node, in order; a failure stops this host until the next round. */
  private CompletableFuture<Void> advance(ClusterHost host, Views.Node node) {
    CompletableFuture<Boolean> f = CompletableFuture.completedFuture(true);
    if (host.stage() != null && JOINABLE.contains(host.stage()) && host.canMoveTo(HostStage.JOINED)) {
      ctx.log.host(Level.INFO, host.id(), "Found new joined node {} with inventory id {}, kubernetes id {}, updating its status to {}",
          node.name(), host.id(), node.systemUuid(), HostStage.JOINED);
      f = report(host, HostStage.JOINED);
    }
    if (!node.ready() && removeUninitializedTaint && node.uninitializedTaint()) {
      f = f.thenCompose(ok -> !ok ? CompletableFuture.completedFuture(false)
          : ctx.cluster.removeUninitializedTaint(node.name()).handle((v, t) -> {
            if (t != null) {
              ctx.log.warn("Failed to remove uninitialized taint from node {}: {}", node.name(),
                  ControllerLog.describe(t));
              return false;
            }
            return true;
          }));
    }
    return f.thenCompose(ok -> {
      if (ok && node.ready() && host.stage() != HostStage.DONE && host.canMoveTo(HostStage.DONE)) {
        ctx.log.host(Level.INFO, host.id(), "Found new ready node {} with inventory id {}, kubernetes id {}, updating its status to {}",
            node.name(), host.id(), node.systemUuid(), HostStage.DONE);
        return report(host, HostStage.DONE).thenApply(x -> null);
      }
      return CompletableFuture.completedFuture(null);
    });
  }

  private CompletableFuture<Boolean> report(ClusterHost host, HostStage stage) {
    return ctx.service.updateHostProgress(host.host.infraEnvId(), host.id(), stage, "").handle((v, t) -> {
      if (t != null) {
        ctx.log.host(Level.ERROR, host.id(), "Failed to update node {} installation status to {}: {}", host.nodeName,
            stage, ControllerLog.describe(t));
        return false;
      }
      host.reached(stage);
      accepted.put(host.id(), stage);
      return true;
    });
  }

  /**
   * Upstream's updateConfiguringStatusIfNeeded: a host not yet Configuring (or later) whose address shows up in the
   * machine-config server's log fetching Ignition is moving: report Configuring (workers too).
   */
  private CompletableFuture<Void> configuringFromIgnitionFetches(List<ClusterHost> inProgress) {
    List<ClusterHost> candidates = new ArrayList<>();
    for (ClusterHost h : inProgress) {
      // a host with no stage yet (its installer has not reported) is not past Ignition (Set.of refuses null lookups)
      if ((h.stage() == null || !PAST_IGNITION.contains(h.stage())) && h.canMoveTo(HostStage.CONFIGURING)
          && !h.ips.isEmpty()) {
        candidates.add(h);
      }
    }
    if (candidates.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    return ctx.cluster.machineConfigServerLogs(MCS_LOG_WINDOW).handle((logs, t) -> {
      if (t != null) {
        ctx.log.warn("Failed to get mcs logs: {}", ControllerLog.describe(t));
        return "";
      }
      return logs;
    }).thenCompose(logs -> {
      CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
      if (logs.isEmpty()) {
        return chain;
      }
      for (ClusterHost h : candidates) {
        if (ignitionFetchedBy(h.ips).matcher(logs).find()) {
          ctx.log.host(Level.INFO, h.id(), "Host {} found in mcs logs, moving it to {} state", h.id(),
              HostStage.CONFIGURING);
          chain = chain.thenCompose(v -> report(h, HostStage.CONFIGURING).thenApply(x -> null));
        }
      }
      return chain;
    });
  }

  /** A request line of the machine-config server from one of these addresses with an Ignition user agent. */
  static Pattern ignitionFetchedBy(List<String> ips) {
    String alternatives = ips.stream().map(Pattern::quote).collect(Collectors.joining("|"));
    return Pattern.compile("(?<![0-9A-Za-z.:])(?:" + alternatives + ")(?:%[^\\]\\s\"]+)?\\]?:\\d+\"? User-Agent:\"Ignition");
  }
}
