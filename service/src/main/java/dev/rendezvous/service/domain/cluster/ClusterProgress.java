package dev.rendezvous.service.domain.cluster;

import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.host.HostStage;
import dev.rendezvous.service.domain.host.StageSequences;
import java.util.List;

/**
 * Upstream cluster-progress-info: preparing, installing and finalizing percentages, and the total
 * weighted 0.1/0.7/0.15 (so it stays below 100 until the cluster is installed, where it is forced to 100).
 */
public record ClusterProgress(
    int totalPercentage, int preparingForInstallationStagePercentage, int installingStagePercentage,
    int finalizingStagePercentage) {

  public static ClusterProgress of(ClusterContext c) {
    ClusterStatus s = c.status();
    boolean pastPreparing = s == ClusterStatus.INSTALLING || s == ClusterStatus.INSTALLING_PENDING_USER_ACTION
        || s == ClusterStatus.FINALIZING || s == ClusterStatus.INSTALLED;
    int preparing = pastPreparing ? 100 : 0;
    long done = 0;
    long total = 0;
    // no host in an install stage (all of discovery): nothing done, so no pass over the hosts
    for (HostSnapshot h : c.hostTally().withStage() == 0 ? List.<HostSnapshot>of() : c.hosts()) {
      List<HostStage> stages = StageSequences.forHost(h, c.singleNode());
      total += stages.size();
      int i = h.stage() == null ? -1 : stages.indexOf(h.stage());
      done += i < 0 ? 0 : i + 1;
    }
    int installing = total == 0 ? 0 : (int) (done * 100 / total);
    int finalizing = 0;
    if (s == ClusterStatus.INSTALLED) {
      finalizing = 100;
    } else if (s == ClusterStatus.FINALIZING && c.finalizingStage() != null) {
      int i = FinalizingStage.ORDER.indexOf(c.finalizingStage());
      finalizing = i < 0 ? 0 : (int) ((long) i * 100 / FinalizingStage.ORDER.size());
    }
    int totalPct = s == ClusterStatus.INSTALLED ? 100
        : (int) Math.round(0.1 * preparing + 0.7 * installing + 0.15 * finalizing);
    return new ClusterProgress(totalPct, preparing, installing, finalizing);
  }
}
