package dev.rendezvous.controller.service;

import java.util.List;

/** The fields of the service's Cluster the controller reads ({@code GET /v2/clusters/{id}}). */
public record Cluster(
    String id,
    String kind,
    String name,
    String baseDnsDomain,
    String status,
    String statusInfo,
    String openshiftVersion,
    Integer controlPlaneCount,
    Platform platform,
    Progress progress,
    List<MonitoredOperator> monitoredOperators,
    List<Host> hosts) {

  public Cluster {
    monitoredOperators = monitoredOperators == null ? List.of() : List.copyOf(monitoredOperators);
    hosts = hosts == null ? List.of() : List.copyOf(hosts);
  }

  /** {@code platform} {type}. */
  public record Platform(String type) {
  }

  /** {@code cluster-progress-info}: the finalizing stage and whether the service timed it out. */
  public record Progress(FinalizingStage finalizingStage, Boolean finalizingStageTimedOut) {
    public boolean timedOut() {
      return Boolean.TRUE.equals(finalizingStageTimedOut);
    }
  }

  public FinalizingStage finalizingStage() {
    return progress == null ? null : progress.finalizingStage();
  }

  /** Whether the service marked this finalizing stage timed out (OLM waits stop then). */
  public boolean finalizingStageTimedOut(FinalizingStage stage) {
    return progress != null && progress.finalizingStage() == stage && progress.timedOut();
  }

  public String platformType() {
    return platform == null ? null : platform.type();
  }
}
