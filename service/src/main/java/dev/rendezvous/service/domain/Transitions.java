package dev.rendezvous.service.domain;

import dev.rendezvous.service.domain.cluster.ClusterContext;
import dev.rendezvous.service.domain.cluster.ClusterEffect;
import dev.rendezvous.service.domain.cluster.ClusterTransition;
import dev.rendezvous.service.domain.host.HostEffect;
import dev.rendezvous.service.domain.host.HostProgress;
import dev.rendezvous.service.domain.host.HostRole;
import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.host.HostTransition;
import java.time.Instant;
import java.util.List;

/**
 * Applies the result of a state machine to the snapshot it was computed from: the new status (and
 * status_updated_at when it changed), the new validations, and every effect. Pure; the adapters then
 * persist the difference. Effects that touch only row columns the snapshot does not model (install
 * completion time, machine config pool) are read by the adapter from the transition itself.
 */
public final class Transitions {
  private Transitions() {}

  /** The host after {@code t}; a rejected transition changes nothing. */
  public static HostSnapshot applied(HostSnapshot h, HostTransition t, Instant now) {
    if (t.rejected()) {
      return h;
    }
    HostSnapshot.Builder b = h.toBuilder();
    if (t.status() != h.status()) {
      b.status(t.status()).statusUpdatedAt(now);
    }
    b.statusInfo(t.statusInfo());
    if (t.validationsInfo() != null) {
      b.validationsInfo(t.validationsInfo());
    }
    HostProgress progress = h.progress();
    for (HostEffect e : t.effects()) {
      if (e instanceof HostEffect.ClearDiscoveryData c) {
        b.inventory(null).bootstrap(false).imagesStatus(List.of()).ntpSources(null).logsInfo("")
            .logsStartedAt(null).logsCollectedAt(null);
        progress = HostProgress.NONE;
        if (c.discoveryAgentVersion() != null) {
          b.discoveryAgentVersion(c.discoveryAgentVersion());
        }
        b.agentUpgradeFailed(null); // an agent that registers again may be asked to upgrade again
        b.reclaimBootArtifacts(null); // a reclaimed host that registers again is back in discovery
      } else if (e instanceof HostEffect.RegistrationDefaults d) {
        b.role(d.role()).suggestedRole(d.role()).bootstrap(d.bootstrap()).day2(d.day2());
      } else if (e instanceof HostEffect.ClearForUnbind) {
        b.clusterId(null).day2(false).connectivity(null).domainResolutions(null).imagesStatus(List.of())
            .installationDiskId(null).installationDiskPath(null).role(HostRole.AUTO_ASSIGN).suggestedRole(null)
            .bootstrap(false).apiVipConnectivity(null).vipVerifications(null).vipsFree(null);
        progress = HostProgress.NONE;
      } else if (e instanceof HostEffect.SetReclaimBootArtifacts r) {
        b.reclaimBootArtifacts(r.request());
      } else if (e instanceof HostEffect.SetCluster s) {
        b.clusterId(s.clusterId());
      } else if (e instanceof HostEffect.SetMediaDisconnected m) {
        b.mediaDisconnected(m.disconnected());
      } else if (e instanceof HostEffect.SetProgress p) {
        progress = p.progress();
      } else if (e instanceof HostEffect.SetConnectionTimedOut c) {
        b.connectionTimedOut(c.timedOut());
      } else if (e instanceof HostEffect.SetStageTimedOut s) {
        b.stageTimedOut(s.timedOut());
      } else if (e instanceof HostEffect.RefreshStageUpdatedAt r) {
        progress = new HostProgress(progress.currentStage(), progress.progressInfo(), progress.stageStartedAt(), r.at(),
            progress.installationPercentage());
      } else if (e instanceof HostEffect.SetLogsInfo l) {
        b.logsInfo(l.logsInfo());
      } else if (e instanceof HostEffect.ResetLogs) {
        b.logsInfo("").logsStartedAt(null).logsCollectedAt(null);
      } else if (e instanceof HostEffect.ClearImagesStatus) {
        b.imagesStatus(List.of());
      } else if (e instanceof HostEffect.SetRole r) {
        b.role(r.role()).suggestedRole(r.role()); // upstream's UpdateRole: the user's choice is the suggestion too
        if (r.clearBootstrap()) {
          b.bootstrap(false);
        }
      } else if (e instanceof HostEffect.SetInstallationDisk d) {
        b.installationDiskId(d.diskId()).installationDiskPath(d.diskPath());
      } else if (e instanceof HostEffect.SetRequestedHostname n) {
        b.requestedHostname(n.hostname());
      } else if (!(e instanceof HostEffect.ResetClusterPreparation)) {
        throw new IllegalStateException("unhandled host effect " + e);
      }
    }
    return b.progress(progress).build();
  }

  /** True when the host transition also resets the cluster's last installation preparation. */
  public static boolean resetsClusterPreparation(HostTransition t) {
    return !t.rejected() && t.effect(HostEffect.ResetClusterPreparation.class).isPresent();
  }

  /** The cluster (its own fields; hosts untouched) after {@code t}; a rejected transition changes nothing. */
  public static ClusterContext applied(ClusterContext c, ClusterTransition t, Instant now) {
    if (t.rejected()) {
      return c;
    }
    ClusterContext.Builder b = c.toBuilder();
    if (t.status() != c.status()) {
      b.status(t.status()).statusUpdatedAt(now);
    }
    b.statusInfo(t.statusInfo());
    if (t.validationsInfo() != null) {
      b.validationsInfo(t.validationsInfo());
    }
    for (ClusterEffect e : t.effects()) {
      if (e instanceof ClusterEffect.SetInstallStartedAt s) {
        b.installStartedAt(s.at());
      } else if (e instanceof ClusterEffect.ResetPreparation) {
        // a new preparation (or a reset) starts from nothing the previous installation reported
        b.lastPreparationStatus("not_started").lastPreparationReason(null).logsInfo("").kubeconfigExists(false)
            .finalizingStage(null).finalizingStageStartedAt(null).finalizingStageTimedOut(false)
            .controllerLogsStartedAt(null).controllerLogsCollectedAt(null);
      } else if (e instanceof ClusterEffect.SetFinalizingStageTimedOut f) {
        b.finalizingStageTimedOut(f.timedOut());
      } else if (e instanceof ClusterEffect.SetLogsInfo l) {
        b.logsInfo(l.logsInfo());
      } else if (e instanceof ClusterEffect.SetMonitoredOperators m) {
        b.monitoredOperators(m.operators());
      } else if (e instanceof ClusterEffect.SetPreparationResult p) {
        b.lastPreparationStatus(p.status()).lastPreparationReason(p.reason());
      } else if (e instanceof ClusterEffect.SetFinalizingStage f) {
        b.finalizingStage(f.stage()).finalizingStageStartedAt(f.at()).finalizingStageTimedOut(false);
      } else if (e instanceof ClusterEffect.SetOperatorStatus o) {
        List<ClusterContext.MonitoredOperator> ops = new java.util.ArrayList<>();
        for (ClusterContext.MonitoredOperator m : c.monitoredOperators()) {
          ops.add(m.name().equals(o.name()) ? m.reported(o.status(), o.statusInfo(), o.version(), o.at()) : m);
        }
        b.monitoredOperators(ops);
      } else if (e instanceof ClusterEffect.SetKubeconfigExists) {
        b.kubeconfigExists(true);
      } else if (e instanceof ClusterEffect.SetControllerLogs l) {
        if (l.logsInfo() != null) {
          b.logsInfo(l.logsInfo());
        }
        if (l.startedAt() != null) {
          b.controllerLogsStartedAt(l.startedAt());
        }
        if (l.collectedAt() != null) {
          b.controllerLogsCollectedAt(l.collectedAt());
        }
      } else if (!(e instanceof ClusterEffect.SetInstallCompletedAt)) {
        throw new IllegalStateException("unhandled cluster effect " + e);
      }
    }
    return b.build();
  }

  /** The cluster after a host reset its preparation (re-registration while preparing). */
  public static ClusterContext preparationReset(ClusterContext c) {
    return c.toBuilder().lastPreparationStatus("not_started").lastPreparationReason(null).build();
  }
}
