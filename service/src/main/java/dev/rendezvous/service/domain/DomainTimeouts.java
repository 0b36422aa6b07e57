package dev.rendezvous.service.domain;

import dev.rendezvous.service.domain.cluster.FinalizingStage;
import dev.rendezvous.service.domain.host.HostStage;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;

/**
 * Every timeout the state machines apply (assisted-v2-api.md §3.5 and §4), upstream defaults. The
 * machines compare them against the {@code now} they are given, so tests drive time directly.
 */
public record DomainTimeouts(
    Duration hostDisconnection,
    Duration bootstrapExtraDisconnection,
    Duration hostPreparation,
    Duration installingWithoutProgress,
    Map<HostStage, Duration> hostStages,
    Duration hostStageDefault,
    Duration snoRebooting,
    Duration installingPendingUserAction,
    Duration reclaim,
    Duration hostLogCollection,
    Duration hostLogPending,
    Duration clusterPreparation,
    Duration clusterInstallation,
    Duration clusterFinalizing,
    Duration clusterLogCollection,
    Duration clusterLogPending,
    Map<String, Duration> finalizingStages,
    Duration finalizingStageDefault) {

  public DomainTimeouts {
    hostStages = Map.copyOf(hostStages);
    finalizingStages = Map.copyOf(finalizingStages);
  }

  public static DomainTimeouts defaults() {
    Map<HostStage, Duration> stages = new EnumMap<>(HostStage.class);
    stages.put(HostStage.STARTING_INSTALLATION, Duration.ofMinutes(30));
    stages.put(HostStage.WAITING_FOR_CONTROL_PLANE, Duration.ofMinutes(60));
    stages.put(HostStage.WAITING_FOR_CONTROLLER, Duration.ofMinutes(60));
    stages.put(HostStage.WAITING_FOR_BOOTKUBE, Duration.ofMinutes(60));
    stages.put(HostStage.INSTALLING, Duration.ofMinutes(60));
    stages.put(HostStage.JOINED, Duration.ofMinutes(60));
    stages.put(HostStage.WRITING_IMAGE_TO_DISK, Duration.ofMinutes(30));
    stages.put(HostStage.COPYING_REGISTRY_DATA_TO_DISK, Duration.ofMinutes(90));
    stages.put(HostStage.REBOOTING, Duration.ofMinutes(40));
    stages.put(HostStage.CONFIGURING, Duration.ofMinutes(60));
    stages.put(HostStage.WAITING_FOR_IGNITION, Duration.ofHours(24));
    return new DomainTimeouts(
        Duration.ofMinutes(3),
        Duration.ofMinutes(2),
        Duration.ofMinutes(8),
        Duration.ofMinutes(20),
        stages,
        Duration.ofMinutes(60),
        Duration.ofMinutes(80),
        Duration.ofMinutes(60),
        Duration.ofMinutes(60),
        Duration.ofMinutes(10),
        Duration.ofMinutes(2),
        Duration.ofMinutes(10),
        Duration.ofHours(24),
        Duration.ofHours(5),
        Duration.ofMinutes(60),
        Duration.ofMinutes(10),
        Map.of(
            FinalizingStage.WAITING_FOR_CLUSTER_OPERATORS, Duration.ofHours(10),
            FinalizingStage.APPLYING_OLM_MANIFESTS, Duration.ofMinutes(10),
            FinalizingStage.WAITING_FOR_OLM_OPERATOR_SETUP_JOBS, Duration.ofMinutes(10)),
        Duration.ofMinutes(70));
  }

  /** Same timeouts with another disconnection limit (e.g. shorter in tests, longer on slow labs). */
  public DomainTimeouts withHostDisconnection(Duration d) {
    return new DomainTimeouts(d, bootstrapExtraDisconnection, hostPreparation, installingWithoutProgress, hostStages,
        hostStageDefault, snoRebooting, installingPendingUserAction, reclaim, hostLogCollection, hostLogPending,
        clusterPreparation, clusterInstallation, clusterFinalizing, clusterLogCollection, clusterLogPending,
        finalizingStages, finalizingStageDefault);
  }

  /** Upstream HostStageTimeout plus the SNO reboot extension. */
  public Duration stageTimeout(HostStage stage, boolean singleNode) {
    if (stage == HostStage.REBOOTING && singleNode) {
      return snoRebooting;
    }
    return stage == null ? hostStageDefault : hostStages.getOrDefault(stage, hostStageDefault);
  }

  /** Hard-mode finalizing stage timeout; soft mode caps "Waiting for cluster operators" at 70 min. */
  public Duration finalizingStageTimeout(String stage, boolean softTimeouts) {
    if (softTimeouts && FinalizingStage.WAITING_FOR_CLUSTER_OPERATORS.equals(stage)) {
      return Duration.ofMinutes(70);
    }
    return finalizingStages.getOrDefault(stage, finalizingStageDefault);
  }

  public Duration disconnection(boolean bootstrap) {
    return bootstrap ? hostDisconnection.plus(bootstrapExtraDisconnection) : hostDisconnection;
  }
}
