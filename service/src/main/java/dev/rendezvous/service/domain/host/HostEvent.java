package dev.rendezvous.service.domain.host;

import java.util.UUID;

/** Everything that can happen to a host; each kind is one upstream transition type (or user update). */
public sealed interface HostEvent {

  /** Agent registration (POST .../hosts). A host with {@code status == null} is a new row. */
  record Register(String discoveryAgentVersion) implements HostEvent {}

  /** Periodic monitor pass: re-evaluate validations, timeouts and cluster-driven moves. */
  record Refresh() implements HostEvent {}

  /** PUT .../progress from the installer or the controller. */
  record ProgressReported(HostStage stage, String progressInfo) implements HostEvent {}

  /** The install step returned a non-zero exit code. */
  record InstallationFailed(String reason) implements HostEvent {}

  record CancelInstallation(String reason) implements HostEvent {}

  /** Day-2 single host install. */
  record InstallHost() implements HostEvent {}

  /** Cluster or host reset: the host must boot the discovery image again. */
  record ResetPendingUserAction() implements HostEvent {}

  /** A step reply with exit code 256: the virtual media went away. */
  record MediaDisconnected() implements HostEvent {}

  record Bind(UUID clusterId) implements HostEvent {}

  record Unbind() implements HostEvent {}

  /**
   * Unbind reclaiming the host for reuse (upstream's kube-API unbind): an installed host is given the discovery
   * image's boot artifacts, {@code bootArtifacts} (download-boot-artifacts' request, signed for its infra-env), and
   * reboots into discovery.
   */
  record Reclaim(String bootArtifacts) implements HostEvent {}

  record RebootingForReclaim() implements HostEvent {}

  record ReclaimFailed() implements HostEvent {}

  /** PATCH host_role; re-evaluates the host right away. */
  record RoleUpdated(HostRole role) implements HostEvent {}

  /** PATCH disks_selected_config (role install); re-evaluates the host right away. */
  record InstallationDiskSelected(String diskId) implements HostEvent {}

  /** PATCH host_name; re-evaluates the host right away. */
  record HostnameUpdated(String hostname) implements HostEvent {}
}
