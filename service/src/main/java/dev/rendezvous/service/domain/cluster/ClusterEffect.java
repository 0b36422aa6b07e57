package dev.rendezvous.service.domain.cluster;

import java.time.Instant;

/** A change to the cluster row besides status/status_info. */
public sealed interface ClusterEffect {
  record SetInstallStartedAt(Instant at) implements ClusterEffect {}

  /** install_completed_at, set when entering installed, error or cancelled. */
  record SetInstallCompletedAt(Instant at) implements ClusterEffect {}

  /** last-installation-preparation back to not_started and logs info cleared. */
  record ResetPreparation() implements ClusterEffect {}

  record SetFinalizingStageTimedOut(boolean timedOut) implements ClusterEffect {}

  record SetLogsInfo(String logsInfo) implements ClusterEffect {}
}
