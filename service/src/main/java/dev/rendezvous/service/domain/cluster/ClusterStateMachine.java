package dev.rendezvous.service.domain.cluster;

import static dev.rendezvous.service.domain.cluster.ClusterStatus.*;

import dev.rendezvous.service.domain.DomainConfig;
import dev.rendezvous.service.domain.DomainEvent;
import dev.rendezvous.service.domain.DomainTimeouts;
import dev.rendezvous.service.domain.EventSeverity;
import dev.rendezvous.service.domain.host.HostEvent;
import dev.rendezvous.service.domain.host.HostRole;
import dev.rendezvous.service.domain.host.HostStatus;
import dev.rendezvous.service.domain.host.HostTransition.Rejection;
import dev.rendezvous.service.domain.validation.ClusterValidation;
import dev.rendezvous.service.domain.validation.ClusterValidator;
import dev.rendezvous.service.domain.validation.ValidationChanges;
import dev.rendezvous.service.domain.validation.ValidationsInfo;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The cluster state machine of upstream internal/cluster (statemachine.go, transition.go) as a pure
 * function; refresh rules in upstream order, first match wins.
 */
public final class ClusterStateMachine {

  static final String INFO_READY = "Cluster ready to be installed";
  static final String INFO_INSUFFICIENT = "Cluster is not ready for install";
  static final String INFO_INSTALLING = "Installation in progress";
  static final String INFO_FINALIZING = "Finalizing cluster installation";
  static final String INFO_INSTALLED = "Cluster is installed";
  static final String INFO_DEGRADED = "Cluster is installed but degraded";
  static final String INFO_NOT_ALL_WORKERS = "Cluster is installed but some workers did not join";
  static final String INFO_PREPARING = "Preparing cluster for installation";
  static final String INFO_PREPARING_TIMEOUT = "Preparing cluster for installation timeout";
  static final String INFO_FINALIZING_TIMEOUT = "Cluster installation timeout while finalizing";
  static final String INFO_FINALIZING_STAGE_TIMEOUT = "Cluster finalizing stage '%s' has been timed out after timeout duration of %d minutes";
  static final String INFO_FINALIZING_STAGE_SOFT_TIMEOUT = "Cluster finalizing stage '%s' is taking longer than the expected duration (%d minutes). To troubleshoot use kubeconfig or connect to any node using ssh";
  static final String INFO_PENDING_FOR_INPUT = "User input required";
  static final String INFO_ERROR = "cluster has hosts in error";
  static final String INFO_PENDING_USER_ACTION_TIMEOUT = "cluster installation timed out while pending user action (a manual booting from installation disk)";
  static final String INFO_INSTALLATION_TIMEOUT = "cluster installation timeout (%d minutes) has expired";
  static final String INFO_PENDING_USER_ACTION = "Cluster has hosts pending user action";
  static final String INFO_UNPREPARING_HOST = "At least one host has stopped preparing for installation";
  static final String INFO_FAILED_TO_PREPARE = "Cluster failed to prepare for installation";
  static final String INFO_RESET = "Reset cluster installation";

  private final DomainConfig config;
  private final ClusterValidator validator;

  public ClusterStateMachine(DomainConfig config) {
    this.config = config;
    this.validator = new ClusterValidator(config);
  }

  private final class Facts {
    final ClusterContext c;
    final Instant now;
    private ClusterValidation v;

    Facts(ClusterContext c, Instant now) {
      this.c = c;
      this.now = now;
    }

    ClusterValidation v() {
      if (v == null) {
        v = validator.validate(c);
      }
      return v;
    }

    boolean pending() {
      return v().pendingInputComplete();
    }

    boolean vips() {
      return v().vipsDefined();
    }

    boolean req() {
      return v().requiredForInstall();
    }

    boolean installingEnough() {
      return InstallationQuorum.enough(c, c.hosts(), InstallationQuorum.INSTALLING_ENOUGH);
    }

    boolean finalizingEnough() {
      return InstallationQuorum.enough(c, c.hosts(), InstallationQuorum.FINALIZING_ENOUGH);
    }

    boolean anyHost(HostStatus s) {
      return c.hostTally().withStatus(s) > 0;
    }

    boolean olderThan(Instant from, Duration d) {
      return from != null && Duration.between(from, now).compareTo(d) > 0;
    }

    boolean installTimedOut() {
      return olderThan(c.installStartedAt(), config.timeouts().clusterInstallation());
    }

    Duration stageTimeout() {
      return config.timeouts().finalizingStageTimeout(c.finalizingStage(), c.softTimeoutsEnabled());
    }

    boolean finalizingStageTimedOut() {
      return c.finalizingStage() != null && olderThan(c.finalizingStageStartedAt(), stageTimeout());
    }
  }

  private record Post(String info, List<ClusterEffect> effects, List<DomainEvent> events) {
    static Post info(String info, ClusterEffect... effects) {
      return new Post(info, List.of(effects), List.of());
    }

    static Post keep(ClusterEffect... effects) {
      return new Post(null, List.of(effects), List.of());
    }

    Post with(DomainEvent e) {
      List<DomainEvent> l = new ArrayList<>(events);
      l.add(e);
      return new Post(info, effects, l);
    }
  }

  private record Rule(String name, Set<ClusterStatus> from, Predicate<Facts> when, ClusterStatus to, Function<Facts, Post> post) {}

  private static Set<ClusterStatus> of(ClusterStatus a, ClusterStatus... rest) {
    return EnumSet.of(a, rest);
  }

  private List<Rule> refreshRules() {
    Set<ClusterStatus> preInstall = of(PENDING_FOR_INPUT, READY, INSUFFICIENT);
    Set<HostStatus> preparingStatuses = EnumSet.of(HostStatus.PREPARING_FOR_INSTALLATION, HostStatus.PREPARING_SUCCESSFUL,
        HostStatus.PREPARING_FAILED, HostStatus.KNOWN);
    List<Rule> r = new ArrayList<>();
    r.add(new Rule("Refresh pre-install cluster: pending for input", preInstall,
        f -> f.c.vipDhcpAllocation() ? !f.pending() : !(f.vips() && f.pending()), PENDING_FOR_INPUT,
        f -> Post.info(INFO_PENDING_FOR_INPUT)));
    r.add(new Rule("Refresh pre-install cluster: insufficient", preInstall,
        f -> f.c.vipDhcpAllocation() ? f.pending() && !(f.req() && f.vips()) : f.vips() && f.pending() && !f.req(),
        INSUFFICIENT, f -> Post.info(INFO_INSUFFICIENT)));
    r.add(new Rule("Refresh pre-install cluster: ready", preInstall, f -> f.pending() && f.vips() && f.req(), READY,
        f -> Post.info(INFO_READY)));
    r.add(new Rule("Preparing timed out", of(PREPARING_FOR_INSTALLATION),
        f -> f.olderThan(f.c.statusUpdatedAt(), config.timeouts().clusterPreparation()) && !f.anyHost(HostStatus.PREPARING_FAILED),
        READY, f -> Post.info(INFO_PREPARING_TIMEOUT).with(DomainEvent.cluster("installation_preparing_timed_out",
            EventSeverity.WARNING, "Preparing for installation was timed out for the cluster, reason " + INFO_PREPARING_TIMEOUT,
            f.c.id(), Map.of("reason", INFO_PREPARING_TIMEOUT)))));
    r.add(new Rule("All hosts prepared: start installing", of(PREPARING_FOR_INSTALLATION),
        f -> !f.c.hosts().isEmpty() && f.c.hostTally().withStatus(HostStatus.PREPARING_SUCCESSFUL) == f.c.hosts().size()
            && "success".equals(f.c.lastPreparationStatus()), INSTALLING, f -> Post.info(INFO_INSTALLING)));
    r.add(new Rule("A host stopped preparing", of(PREPARING_FOR_INSTALLATION),
        f -> f.c.hostTally().withStatusIn(preparingStatuses) < f.c.hosts().size(), INSUFFICIENT,
        f -> Post.info(INFO_UNPREPARING_HOST)));
    r.add(new Rule("Preparation failed", of(PREPARING_FOR_INSTALLATION),
        f -> f.anyHost(HostStatus.PREPARING_FAILED) || "failed".equals(f.c.lastPreparationStatus()), READY,
        f -> Post.info(INFO_FAILED_TO_PREPARE)));
    r.add(new Rule("Pending user action without enough hosts", of(INSTALLING_PENDING_USER_ACTION),
        f -> !f.installingEnough() && !f.finalizingEnough(), ERROR, f -> failed(f, INFO_ERROR)));
    r.add(new Rule("Pending user action timed out", of(INSTALLING_PENDING_USER_ACTION), Facts::installTimedOut, ERROR,
        f -> failed(f, INFO_PENDING_USER_ACTION_TIMEOUT)));
    r.add(new Rule("Installation timed out (soft timeouts)", of(INSTALLING, FINALIZING),
        f -> f.installTimedOut() && f.c.softTimeoutsEnabled(), ERROR,
        f -> failed(f, String.format(INFO_INSTALLATION_TIMEOUT, config.timeouts().clusterInstallation().toMinutes()))));
    r.add(new Rule("Finalizing timed out", of(FINALIZING),
        f -> f.olderThan(f.c.statusUpdatedAt(), config.timeouts().clusterFinalizing()) && !f.c.softTimeoutsEnabled(), ERROR,
        f -> failed(f, INFO_FINALIZING_TIMEOUT)));
    r.add(new Rule("Finalizing stage timed out", of(FINALIZING),
        f -> f.finalizingStageTimedOut() && !f.c.softTimeoutsEnabled()
            && !FinalizingStage.OLM_NON_FAILING.contains(f.c.finalizingStage()), ERROR,
        f -> failed(f, String.format(INFO_FINALIZING_STAGE_TIMEOUT, f.c.finalizingStage(), f.stageTimeout().toMinutes()))));
    r.add(new Rule("Finalizing stage soft timeout", of(FINALIZING),
        f -> f.finalizingStageTimedOut() && !f.c.finalizingStageTimedOut()
            && (f.c.softTimeoutsEnabled() || FinalizingStage.OLM_NON_FAILING.contains(f.c.finalizingStage())), FINALIZING,
        f -> Post.info(String.format(INFO_FINALIZING_STAGE_SOFT_TIMEOUT, f.c.finalizingStage(), f.stageTimeout().toMinutes()),
            new ClusterEffect.SetFinalizingStageTimedOut(true)).with(DomainEvent.cluster("finalizing_stage_timed_out",
            EventSeverity.WARNING, String.format("Cluster %s: finalizing stage %s has been active more than the expected "
                + "completion time (%d minutes)", f.c.id(), f.c.finalizingStage(), f.stageTimeout().toMinutes()), f.c.id(),
            Map.of("stage", f.c.finalizingStage(), "minutes", Long.toString(f.stageTimeout().toMinutes()))))));
    r.add(new Rule("Stay pending user action", of(INSTALLING_PENDING_USER_ACTION),
        f -> f.anyHost(HostStatus.INSTALLING_PENDING_USER_ACTION) && (f.installingEnough() || f.finalizingEnough()), null,
        f -> Post.keep()));
    r.add(new Rule("User action done: back to installing", of(INSTALLING_PENDING_USER_ACTION),
        f -> !f.anyHost(HostStatus.INSTALLING_PENDING_USER_ACTION) && f.installingEnough() && !f.finalizingEnough(), INSTALLING,
        f -> Post.info(INFO_INSTALLING)));
    r.add(new Rule("User action done: finalizing", of(INSTALLING_PENDING_USER_ACTION),
        f -> !f.anyHost(HostStatus.INSTALLING_PENDING_USER_ACTION) && f.finalizingEnough(), FINALIZING,
        f -> Post.info(INFO_FINALIZING)));
    r.add(new Rule("A host waits for the user", of(INSTALLING, FINALIZING),
        f -> (f.installingEnough() || f.finalizingEnough()) && f.anyHost(HostStatus.INSTALLING_PENDING_USER_ACTION),
        INSTALLING_PENDING_USER_ACTION, f -> Post.info(INFO_PENDING_USER_ACTION)));
    r.add(new Rule("Enough hosts installed: finalizing", of(INSTALLING),
        f -> f.finalizingEnough() && !f.anyHost(HostStatus.INSTALLING_PENDING_USER_ACTION), FINALIZING,
        f -> Post.info(INFO_FINALIZING)));
    r.add(new Rule("Stay installing", of(INSTALLING),
        f -> f.installingEnough() && !f.finalizingEnough() && !f.anyHost(HostStatus.INSTALLING_PENDING_USER_ACTION), null,
        f -> Post.keep()));
    r.add(new Rule("Finalizing done: installed", of(FINALIZING), this::completed, INSTALLED, this::postInstalled));
    r.add(new Rule("Not enough hosts left: error", of(INSTALLING), f -> !f.finalizingEnough() && !f.installingEnough(), ERROR,
        f -> failed(f, INFO_ERROR)));
    r.add(new Rule("Log collection timed out", of(ERROR, CANCELLED), this::logsTimedOut, null,
        f -> Post.keep(new ClusterEffect.SetLogsInfo("timeout"))));
    r.add(new Rule("No-op refresh", of(PREPARING_FOR_INSTALLATION, FINALIZING, INSTALLED, ERROR, CANCELLED, ADDING_HOSTS,
        UNMONITORED), f -> true, null, f -> Post.keep()));
    return r;
  }

  private Post failed(Facts f, String reason) {
    return Post.info(reason).with(DomainEvent.cluster("cluster_installation_failed", EventSeverity.CRITICAL,
        "Failed installing cluster. Reason: " + reason, f.c.id(), Map.of("failure_reason", reason)));
  }

  private boolean completed(Facts f) {
    boolean hostsDone = f.c.hostTally().withStatus(HostStatus.INSTALLED) + f.c.hostTally().withStatus(HostStatus.ERROR)
        == f.c.hosts().size();
    boolean operatorsDone = f.c.monitoredOperators().stream().allMatch(o -> "available".equals(o.status())
        || ("olm".equals(o.operatorType()) && "failed".equals(o.status())));
    return hostsDone && f.c.kubeconfigExists() && operatorsDone;
  }

  private Post postInstalled(Facts f) {
    List<String> failedOlm = f.c.monitoredOperators().stream()
        .filter(o -> "olm".equals(o.operatorType()) && "failed".equals(o.status())).map(ClusterContext.MonitoredOperator::name).toList();
    boolean workerMissing = f.c.hosts().stream()
        .anyMatch(h -> h.effectiveRole() == HostRole.WORKER && h.status() == HostStatus.ERROR);
    String info = !failedOlm.isEmpty() ? INFO_DEGRADED : workerMissing ? INFO_NOT_ALL_WORKERS : INFO_INSTALLED;
    Post p = Post.info(info).with(DomainEvent.cluster("cluster_installation_completed", EventSeverity.INFO,
        "Successfully completed installing cluster", f.c.id(), Map.of()));
    if (!failedOlm.isEmpty()) {
      String names = String.join(", ", failedOlm);
      p = p.with(DomainEvent.cluster("cluster_degraded_OLM_operators_failed", EventSeverity.WARNING,
          "Cluster is installed but degraded due to failed OLM operators " + names, f.c.id(), Map.of("failed_operators", names)));
    }
    return p;
  }

  private boolean logsTimedOut(Facts f) {
    ClusterContext c = f.c;
    DomainTimeouts t = config.timeouts();
    return switch (c.logsInfo()) {
      case "" -> c.controllerLogsStartedAt() == null && f.olderThan(c.statusUpdatedAt(), t.clusterLogPending());
      case "requested" -> f.olderThan(c.controllerLogsCollectedAt() == null ? c.controllerLogsStartedAt() : c.controllerLogsCollectedAt(),
          t.clusterLogCollection());
      case "collecting" -> f.olderThan(c.controllerLogsCollectedAt(), t.clusterLogPending());
      default -> false;
    };
  }

  /** Applies one event to the cluster; {@code now} is the only clock used. */
  public ClusterTransition apply(ClusterContext cluster, ClusterEvent event, Instant now) {
    Facts f = new Facts(cluster, now);
    if (event instanceof ClusterEvent.Refresh) {
      ClusterTransition t = run(f, refreshRules(), Map.of());
      ValidationsInfo info = f.v().info();
      List<DomainEvent> events = new ArrayList<>(ValidationChanges.forCluster(cluster.id(), cluster.validationsInfo(), info));
      events.addAll(t.events());
      return new ClusterTransition(t.previousStatus(), t.status(), t.statusInfo(), t.rule(), t.effects(), events, info,
          t.hostEvents(), t.rejection());
    }
    if (event instanceof ClusterEvent.PrepareForInstallation) {
      return run(f, List.of(new Rule("Prepare for installation", of(READY), x -> true, PREPARING_FOR_INSTALLATION,
          x -> Post.info(INFO_PREPARING, new ClusterEffect.SetInstallStartedAt(now), new ClusterEffect.ResetPreparation(),
              new ClusterEffect.SetMonitoredOperators(MonitoredOperators.initial(cluster, config.checkClusterVersion())))
              .with(DomainEvent.cluster("cluster_prepare_installation_started", EventSeverity.INFO,
                  "Cluster starting to prepare for installation", cluster.id(), Map.of())))), Map.of());
    }
    if (event instanceof ClusterEvent.CancelInstallation c) {
      Map<UUID, HostEvent> hosts = new LinkedHashMap<>();
      cluster.hosts().forEach(h -> hosts.put(h.id(), new HostEvent.CancelInstallation(c.reason())));
      DomainEvent canceled = DomainEvent.cluster("cluster_installation_canceled", EventSeverity.INFO,
          "Canceled cluster installation", cluster.id(), Map.of());
      return run(f, List.of(
          new Rule("Cancel installation", of(INSTALLING, INSTALLING_PENDING_USER_ACTION, ERROR, FINALIZING), x -> true,
              CANCELLED, x -> Post.info(c.reason()).with(canceled)),
          new Rule("Cancel preparation", of(PREPARING_FOR_INSTALLATION), x -> true, READY,
              x -> Post.info(INFO_READY).with(canceled))), hosts);
    }
    if (event instanceof ClusterEvent.ResetInstallation r) {
      Map<UUID, HostEvent> hosts = new LinkedHashMap<>();
      cluster.hosts().forEach(h -> hosts.put(h.id(), new HostEvent.ResetPendingUserAction()));
      return run(f, List.of(new Rule("Reset installation", of(PREPARING_FOR_INSTALLATION, INSTALLING,
          INSTALLING_PENDING_USER_ACTION, ERROR, CANCELLED, FINALIZING), x -> true, INSUFFICIENT,
          x -> Post.info(r.reason() == null ? INFO_RESET : r.reason(), new ClusterEffect.ResetPreparation())
              .with(DomainEvent.cluster("cluster_installation_reset", EventSeverity.INFO, "Reset cluster installation",
                  cluster.id(), Map.of())))), hosts);
    }
    throw new IllegalArgumentException("unknown cluster event " + event);
  }

  private ClusterTransition run(Facts f, List<Rule> rules, Map<UUID, HostEvent> hostEvents) {
    ClusterContext c = f.c;
    for (Rule r : rules) {
      if (!r.from().contains(c.status()) || !r.when().test(f)) {
        continue;
      }
      Post p = r.post().apply(f);
      ClusterStatus to = r.to() == null ? c.status() : r.to();
      String info = p.info() == null ? c.statusInfo() : p.info();
      List<ClusterEffect> effects = new ArrayList<>(p.effects());
      List<DomainEvent> events = new ArrayList<>();
      if (to != c.status()) {
        Map<String, String> props = new java.util.LinkedHashMap<>(Map.of("cluster_status", to.wire(), "status_info", info));
        if (to == INSTALLED || to == ERROR || to == CANCELLED) {
          effects.add(new ClusterEffect.SetInstallCompletedAt(f.now));
          // what the install-duration metrics need, so a metrics consumer keeps no per-cluster state
          if (c.installStartedAt() != null && !c.installStartedAt().isAfter(f.now)) {
            props.put("install_duration_seconds",
                Double.toString(java.time.Duration.between(c.installStartedAt(), f.now).toMillis() / 1000.0));
          }
          props.put("topology", c.singleNode() ? "single-node" : "highly-available");
          props.put("host_count", Integer.toString(c.hosts().size()));
        }
        events.add(DomainEvent.cluster("cluster_status_updated", EventSeverity.INFO,
            "Updated status of the cluster to " + to.wire(), c.id(), props));
      }
      events.addAll(p.events());
      return new ClusterTransition(c.status(), to, info, r.name(), effects, events, null, hostEvents, null);
    }
    return new ClusterTransition(c.status(), c.status(), c.statusInfo(), "rejected", List.of(), List.of(), null, Map.of(),
        new Rejection(409, String.format("Cluster %s is in %s state, the requested operation is not allowed", c.id(), c.status())));
  }
}
