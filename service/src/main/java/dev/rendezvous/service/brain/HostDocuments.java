package dev.rendezvous.service.brain;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rendezvous.service.domain.host.HostProgress;
import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.planning.StepOutputs;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The JSON documents of a host row that the brain makes from the snapshot (progress, step results, state), and
 * whether a snapshot's document is the one of another: a document the same as stored is carried, never made again
 * ({@link StoredHost}: the cache tells a new text by its token alone). Each comparison reads every field its document
 * writes; {@code SnapshotMapperTest} moves every snapshot component in turn to hold them so.
 */
final class HostDocuments {
  private static final ObjectMapper JSON = StepOutputs.JSON;

  private HostDocuments() {}

  /** The state column: the host's flags the domain models outside the upstream columns. */
  static String state(HostSnapshot h) {
    ObjectNode state = JSON.createObjectNode();
    state.put("day2", h.day2());
    state.put("media_disconnected", h.mediaDisconnected());
    state.put("timestamp", h.hostTimestamp());
    state.put("connection_timed_out", h.connectionTimedOut());
    state.put("stage_timed_out", h.stageTimedOut());
    if (h.agentUpgradeFailed() != null) {
      state.put("agent_upgrade_failed", h.agentUpgradeFailed());
    }
    if (h.reclaimBootArtifacts() != null) {
      state.put("reclaim_boot_artifacts", h.reclaimBootArtifacts());
    }
    state.put("logs_info", h.logsInfo());
    StoredJson.putInstant(state, "logs_started_at", h.logsStartedAt());
    StoredJson.putInstant(state, "logs_collected_at", h.logsCollectedAt());
    return StoredJson.canonical(state);
  }

  /** Whether the state column of {@code h} is that of {@code p}: every field {@link #state} writes. */
  static boolean sameState(HostSnapshot p, HostSnapshot h) {
    return p.day2() == h.day2() && p.mediaDisconnected() == h.mediaDisconnected()
        && p.hostTimestamp() == h.hostTimestamp() && p.connectionTimedOut() == h.connectionTimedOut()
        && p.stageTimedOut() == h.stageTimedOut() && Objects.equals(p.agentUpgradeFailed(), h.agentUpgradeFailed())
        && Objects.equals(p.reclaimBootArtifacts(), h.reclaimBootArtifacts())
        && Objects.equals(p.logsInfo(), h.logsInfo()) && Objects.equals(p.logsStartedAt(), h.logsStartedAt())
        && Objects.equals(p.logsCollectedAt(), h.logsCollectedAt());
  }

  /** The step_results column: the results the domain models, and those it keeps as they came. */
  static String stepResults(HostRecord r) {
    HostSnapshot h = r.snapshot();
    ObjectNode results = StoredJson.object(r.otherResults());
    if (h.ntpSources() != null) {
      results.set("ntp_sources", JSON.valueToTree(h.ntpSources()));
    }
    if (h.domainResolutions() != null) {
      results.set("domain_name_resolutions", JSON.valueToTree(h.domainResolutions()));
    }
    if (!h.imagesStatus().isEmpty()) {
      results.set("images_status", JSON.valueToTree(h.imagesStatus()));
    }
    if (!h.diskSpeeds().isEmpty()) {
      ArrayNode disks = results.putArray("disks_info");
      new TreeMap<>(h.diskSpeeds()).forEach((path, sp) -> {
        ObjectNode d = disks.addObject();
        d.put("path", path);
        d.putObject("disk_speed").put("tested", sp.tested()).put("exit_code", sp.exitCode())
            .put("speed_ms", sp.speedMs());
      });
    }
    if (h.apiVipConnectivity() != null) {
      results.set("api_vip_connectivity", JSON.valueToTree(h.apiVipConnectivity()));
    }
    if (h.tangConnectivity() != null) {
      results.set("tang_connectivity", JSON.valueToTree(h.tangConnectivity()));
    }
    if (!h.vipVerifications().isEmpty()) {
      results.set("vips_verification", JSON.valueToTree(new TreeMap<>(h.vipVerifications())));
    }
    if (!h.vipsFree().isEmpty()) {
      results.set("vips_free", JSON.valueToTree(new TreeMap<>(h.vipsFree())));
    }
    return StoredJson.canonical(results);
  }

  /** Whether the step_results column of {@code r} is that of {@code prev}: every field {@link #stepResults} writes. */
  static boolean sameStepResults(HostRecord prev, HostRecord r) {
    HostSnapshot p = prev.snapshot();
    HostSnapshot h = r.snapshot();
    return Objects.equals(prev.otherResults(), r.otherResults()) && Objects.equals(p.ntpSources(), h.ntpSources())
        && Objects.equals(p.domainResolutions(), h.domainResolutions())
        && Objects.equals(p.imagesStatus(), h.imagesStatus()) && Objects.equals(p.diskSpeeds(), h.diskSpeeds())
        && Objects.equals(p.apiVipConnectivity(), h.apiVipConnectivity())
        && Objects.equals(p.tangConnectivity(), h.tangConnectivity())
        && Objects.equals(p.vipVerifications(), h.vipVerifications()) && Objects.equals(p.vipsFree(), h.vipsFree());
  }

  /** Upstream host-progress-info; null when the host never reported progress. */
  static String progress(HostProgress p) {
    if (p == null || p.equals(HostProgress.NONE)) {
      return null;
    }
    ObjectNode o = JSON.createObjectNode();
    o.put("current_stage", p.currentStage() == null ? "" : p.currentStage().wire());
    o.put("progress_info", p.progressInfo());
    StoredJson.putInstant(o, "stage_started_at", p.stageStartedAt());
    StoredJson.putInstant(o, "stage_updated_at", p.stageUpdatedAt());
    o.put("installation_percentage", p.installationPercentage());
    return StoredJson.canonical(o);
  }
}
