package dev.rendezvous.service.domain.cluster;

import dev.rendezvous.service.domain.DomainEvent;
import dev.rendezvous.service.domain.EventSeverity;
import dev.rendezvous.service.domain.host.HostTransition.Rejection;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the installation's reporters do to a cluster, as transitions that keep its status (the refresh rules
 * move it): the service's own preparation result, and the controller's finalizing stages, operator statuses,
 * kubeconfig, logs and completion call. Pure; each answers a rejection (with upstream's HTTP status) when
 * the report does not fit the cluster.
 */
public final class InstallReports {
  private static final Set<String> OPERATOR_STATUSES = Set.of("available", "progressing", "failed");
  private static final Set<String> LOGS_STATES = Set.of("requested", "collecting", "completed", "timeout");

  private InstallReports() {}

  /**
   * The install-config, manifests and Ignition configs were generated (or not) for the preparation that started at
   * {@code preparationStartedAt}. A result for another preparation (cancelled, reset, started again) changes
   * nothing.
   */
  public static ClusterTransition preparationFinished(ClusterContext c, Instant preparationStartedAt, boolean succeeded,
      String reason) {
    if (c.status() != ClusterStatus.PREPARING_FOR_INSTALLATION || !"not_started".equals(c.lastPreparationStatus())
        || c.installStartedAt() == null || !c.installStartedAt().equals(preparationStartedAt)) {
      return keep(c, List.of(), List.of());
    }
    List<DomainEvent> events = new ArrayList<>();
    if (!succeeded) {
      events.add(DomainEvent.cluster("prepare_installation_failed", EventSeverity.WARNING,
          "Failed to prepare the installation due to an unexpected error: " + reason + ". Please retry later", c.id(),
          Map.of("error", reason == null ? "" : reason)));
    }
    return keep(c, List.of(new ClusterEffect.SetPreparationResult(succeeded ? "success" : "failed",
        succeeded ? null : reason)), events);
  }

  /** PUT .../progress from the controller: only while finalizing; a stage it already passed is a no-op. */
  public static ClusterTransition finalizingStage(ClusterContext c, String stage, Instant now) {
    int at = FinalizingStage.ORDER.indexOf(stage);
    if (at < 0) {
      return rejected(c, 400, "finalizing_stage: '" + stage + "' is not one of " + FinalizingStage.ORDER);
    }
    if (c.status() != ClusterStatus.FINALIZING) {
      return rejected(c, 409, "Cluster " + c.id() + " is in " + c.status().wire()
          + " state, finalizing stages are reported only while finalizing");
    }
    int current = c.finalizingStage() == null ? -1 : FinalizingStage.ORDER.indexOf(c.finalizingStage());
    if (at <= current) {
      return keep(c, List.of(), List.of()); // a restarted controller repeats what it already said
    }
    return keep(c, List.of(new ClusterEffect.SetFinalizingStage(stage, now)), List.of(DomainEvent.cluster(
        "cluster_finalizing_stage_updated", EventSeverity.INFO, "Cluster " + c.name() + ": finalizing stage " + stage,
        c.id(), Map.of("stage", stage))));
  }

  /** PUT .../monitored-operators: an event on every change of status or message. */
  public static ClusterTransition operatorStatus(ClusterContext c, String name, String status, String info,
      String version, Instant now) {
    if (!OPERATOR_STATUSES.contains(status)) {
      return rejected(c, 400, "status: '" + status + "' is not one of available, progressing, failed");
    }
    ClusterContext.MonitoredOperator op = c.monitoredOperators().stream().filter(o -> o.name().equals(name))
        .findFirst().orElse(null);
    if (op == null) {
      return rejected(c, 404, "Operator " + name + " is not monitored in cluster " + c.id());
    }
    String message = info == null ? "" : info;
    if (status.equals(op.status()) && message.equals(op.statusInfo() == null ? "" : op.statusInfo())
        && (version == null || version.isEmpty() || version.equals(op.version()))) {
      return keep(c, List.of(), List.of());
    }
    return keep(c, List.of(new ClusterEffect.SetOperatorStatus(name, status, message, version, now)),
        List.of(DomainEvent.cluster("cluster_operator_status", EventSeverity.INFO, "Operator " + name + " status: "
            + status + " message: " + message, c.id(), Map.of("operator_name", name, "status", status,
            "status_info", message))));
  }

  /** The admin kubeconfig was stored after the ingress certificate upload. */
  public static ClusterTransition kubeconfigStored(ClusterContext c) {
    return c.kubeconfigExists() ? keep(c, List.of(), List.of())
        : keep(c, List.of(new ClusterEffect.SetKubeconfigExists()), List.of());
  }

  /** Controller logs: logs-progress states, and {@code uploaded} when a bundle was stored. */
  public static ClusterTransition controllerLogs(ClusterContext c, String state, Instant now) {
    if ("uploaded".equals(state)) {
      return keep(c, List.of(new ClusterEffect.SetControllerLogs(null, null, now)),
          List.of(DomainEvent.cluster("cluster_logs_uploaded", EventSeverity.INFO, "Uploaded logs for the cluster",
              c.id(), Map.of())));
    }
    if (!LOGS_STATES.contains(state)) {
      return rejected(c, 400, "logs_state: '" + state + "' is not one of " + LOGS_STATES);
    }
    if (state.equals(c.logsInfo())) {
      return keep(c, List.of(), List.of());
    }
    Instant started = "requested".equals(state) ? now : null;
    return keep(c, List.of(new ClusterEffect.SetControllerLogs(state, started, null)), List.of());
  }

  /**
   * complete-installation: as upstream, the service decides completion itself; a failure report is kept as an
   * event for the user (with the operators that were not available).
   */
  public static ClusterTransition completionReported(ClusterContext c, boolean success, String errorInfo,
      String operatorsReport) {
    if (success) {
      return keep(c, List.of(), List.of());
    }
    String report = (errorInfo == null ? "" : errorInfo)
        + (operatorsReport == null || operatorsReport.isEmpty() ? "" : " " + operatorsReport);
    return keep(c, List.of(), List.of(DomainEvent.cluster("cluster_operator_report", EventSeverity.INFO,
        "The following operators are experiencing issues: " + report.strip(), c.id(), Map.of("report", report.strip()))));
  }

  private static ClusterTransition keep(ClusterContext c, List<ClusterEffect> effects, List<DomainEvent> events) {
    return new ClusterTransition(c.status(), c.status(), c.statusInfo(), "report", effects, events, null, Map.of(), null);
  }

  private static ClusterTransition rejected(ClusterContext c, int status, String message) {
    return new ClusterTransition(c.status(), c.status(), c.statusInfo(), "rejected", List.of(), List.of(), null,
        Map.of(), new Rejection(status, message));
  }
}
