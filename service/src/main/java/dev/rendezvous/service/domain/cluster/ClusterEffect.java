package dev.rendezvous.service.domain.cluster;

import java.time.Instant;
import java.util.List;

/** A change to the cluster row besides status/status_info. */
public sealed interface ClusterEffect {
  record SetInstallStartedAt(Instant at) implements ClusterEffect {}

  /** install_completed_at, set when entering installed, error or cancelled. */
  record SetInstallCompletedAt(Instant at) implements ClusterEffect {}

  /** last-installation-preparation back to not_started and logs info cleared. */
  record ResetPreparation() implements ClusterEffect {}

  record SetFinalizingStageTimedOut(boolean timedOut) implements ClusterEffect {}

  record SetLogsInfo(String logsInfo) implements ClusterEffect {}

  /** The operators the installation will wait for, set when it starts. */
  record SetMonitoredOperators(List<ClusterContext.MonitoredOperator> operators) implements ClusterEffect {}

  /** last-installation-preparation: success or failed (with the reason). */
  record SetPreparationResult(String status, String reason) implements ClusterEffect {}

  /** The controller reached a finalizing stage at {@code at}. */
  record SetFinalizingStage(String stage, Instant at) implements ClusterEffect {}

  /** A monitored operator's reported state. */
  record SetOperatorStatus(String name, String status, String statusInfo, String version, Instant at)
      implements ClusterEffect {}

  /** The admin kubeconfig (ingress CA merged) exists. */
  record SetKubeconfigExists() implements ClusterEffect {}

  /** Controller log collection: logs_info and its times (null: unchanged). */
  record SetControllerLogs(String logsInfo, Instant startedAt, Instant collectedAt) implements ClusterEffect {}
}
