package dev.rendezvous.service.domain.host;

import java.time.Instant;
import java.util.UUID;

/** A change to the host row, besides status/status_info, that the repository applies with the transition. */
public sealed interface HostEffect {

  /** Re-registration: inventory, bootstrap flag, images status, progress, logs info and NTP sources cleared. */
  record ClearDiscoveryData(String discoveryAgentVersion) implements HostEffect {}

  /** Defaults of a new row: role, suggested role, bootstrap (SNO), kind (day-2) and machine config pool. */
  record RegistrationDefaults(HostRole role, boolean bootstrap, boolean day2, String machineConfigPool)
      implements HostEffect {}

  /** Unbind/reclaim: cluster id, kind, connectivity, DNS, free addresses, images, disk, MCP, roles, progress. */
  record ClearForUnbind() implements HostEffect {}

  /** Reclaim of an installed host: the download-boot-artifacts request it is to be given. */
  record SetReclaimBootArtifacts(String request) implements HostEffect {}

  record SetCluster(UUID clusterId) implements HostEffect {}

  record SetMediaDisconnected(boolean disconnected) implements HostEffect {}

  record SetProgress(HostProgress progress) implements HostEffect {}

  record SetConnectionTimedOut(boolean timedOut) implements HostEffect {}

  record SetStageTimedOut(boolean timedOut) implements HostEffect {}

  record RefreshStageUpdatedAt(Instant at) implements HostEffect {}

  record SetLogsInfo(String logsInfo) implements HostEffect {}

  record ResetLogs() implements HostEffect {}

  record ClearImagesStatus() implements HostEffect {}

  /** Cluster-level: last-installation-preparation back to not_started. */
  record ResetClusterPreparation() implements HostEffect {}

  record SetRole(HostRole role, boolean clearBootstrap) implements HostEffect {}

  record SetInstallationDisk(String diskId, String diskPath) implements HostEffect {}

  record SetRequestedHostname(String hostname) implements HostEffect {}
}
