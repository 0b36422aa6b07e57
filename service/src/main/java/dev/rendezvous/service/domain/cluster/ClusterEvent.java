package dev.rendezvous.service.domain.cluster;

/** Cluster transition types (upstream internal/cluster/statemachine.go). */
public sealed interface ClusterEvent {
  /** Monitor pass (every 10 s upstream). */
  record Refresh() implements ClusterEvent {}

  /** Install action accepted: ready → preparing-for-installation. */
  record PrepareForInstallation() implements ClusterEvent {}

  record CancelInstallation(String reason) implements ClusterEvent {}

  record ResetInstallation(String reason) implements ClusterEvent {}
}
