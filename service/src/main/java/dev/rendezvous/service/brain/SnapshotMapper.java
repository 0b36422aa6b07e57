package dev.rendezvous.service.brain;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rendezvous.service.domain.cluster.ClusterContext;
import dev.rendezvous.service.domain.cluster.ClusterProgress;
import dev.rendezvous.service.domain.cluster.ClusterStatus;
import dev.rendezvous.service.domain.cluster.DhcpVips;
import dev.rendezvous.service.domain.cluster.MajorityGroups;
import dev.rendezvous.service.domain.host.HostProgress;
import dev.rendezvous.service.domain.host.HostRole;
import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.host.HostStage;
import dev.rendezvous.service.domain.host.HostStatus;
import dev.rendezvous.service.domain.planning.StepOutputs;
import dev.rendezvous.service.domain.validation.ValidationsInfo;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * Rows ⇄ domain snapshots. Columns the REST view reads (status, role, inventory, connectivity,
 * validations_info, progress, ...) are authoritative; the domain-only fields live in the {@code state}
 * documents; other step outputs in {@code step_results} under upstream's host field names. Pure: no I/O.
 */
public final class SnapshotMapper {
  private static final ObjectMapper JSON = StepOutputs.JSON;

  private SnapshotMapper() {}

  // ------------------------------------------------------------------------------------------------ hosts

  public static HostRecord host(StoredHost s) {
    ObjectNode state = StoredJson.object(s.state());
    ObjectNode results = StoredJson.object(s.stepResults());
    ObjectNode spec = StoredJson.object(s.spec());
    HostSnapshot.Builder b = HostSnapshot.builder(s.id(), s.infraEnvId())
        .clusterId(s.clusterId())
        .status(HostStatus.fromWire(s.status()))
        .statusInfo(shared(s.statusInfo()))
        .statusUpdatedAt(s.statusUpdatedAt())
        .registeredAt(s.registeredAt())
        .checkedInAt(s.checkedInAt())
        .role(HostRole.fromWire(s.role()))
        .suggestedRole(s.suggestedRole() == null ? null : HostRole.fromWire(s.suggestedRole()))
        .bootstrap(s.bootstrap())
        .inventory(s.inventory() == null ? null : StepOutputs.inventory(s.inventory()))
        .requestedHostname(s.requestedHostname())
        .installationDiskId(s.installationDiskId())
        .installationDiskPath(s.installationDiskPath())
        .discoveryAgentVersion(shared(s.discoveryAgentVersion()))
        .connectivity(s.connectivity() == null ? null : StepOutputs.connectivity(s.connectivity()))
        .validationsInfo(s.validationsInfo() == null ? null : ValidationsInfo.parse(s.validationsInfo()))
        .progress(progress(s.progress()))
        .staticNetworking(s.staticNetworking())
        .day2(state.path("day2").asBoolean(false))
        .mediaDisconnected(state.path("media_disconnected").asBoolean(false))
        .hostTimestamp(state.path("timestamp").asLong(0))
        .connectionTimedOut(state.path("connection_timed_out").asBoolean(false))
        .stageTimedOut(state.path("stage_timed_out").asBoolean(false))
        .agentUpgradeFailed(state.hasNonNull("agent_upgrade_failed") ? state.get("agent_upgrade_failed").asText() : null)
        .reclaimBootArtifacts(state.hasNonNull("reclaim_boot_artifacts") ? state.get("reclaim_boot_artifacts").asText()
            : null)
        .logsInfo(state.path("logs_info").asText(""))
        .logsStartedAt(instant(state.get("logs_started_at")))
        .logsCollectedAt(instant(state.get("logs_collected_at")))
        .skipFormattingDiskIds(skipFormatting(spec))
        .installerArgs(strings(spec.get("installer_args")));
    if (results.has("ntp_sources")) {
      b.ntpSources(StepOutputs.ntp("{\"ntp_sources\":" + results.get("ntp_sources") + "}").ntpSources());
    }
    if (results.has("domain_name_resolutions")) {
      b.domainResolutions(StepOutputs.domainResolution(results.get("domain_name_resolutions").toString()));
    }
    if (results.has("images_status")) {
      b.imagesStatus(StepOutputs.imageAvailability("{\"images\":" + results.get("images_status") + "}").images());
    }
    if (results.has("disks_info")) {
      Map<String, HostSnapshot.DiskSpeed> speeds = new LinkedHashMap<>();
      for (JsonNode d : results.get("disks_info")) {
        JsonNode sp = d.path("disk_speed");
        speeds.put(d.path("path").asText(), new HostSnapshot.DiskSpeed(sp.path("tested").asBoolean(),
            sp.path("exit_code").asInt(), sp.path("speed_ms").asLong()));
      }
      b.diskSpeeds(speeds);
    }
    if (results.has("api_vip_connectivity")) {
      b.apiVipConnectivity(StepOutputs.apiVipConnectivity(results.get("api_vip_connectivity").toString()));
    }
    if (results.has("tang_connectivity")) {
      b.tangConnectivity(StepOutputs.tangConnectivity(results.get("tang_connectivity").toString()));
    }
    if (results.has("vips_verification")) {
      Map<String, String> v = new TreeMap<>();
      results.get("vips_verification").fields().forEachRemaining(e -> v.put(e.getKey(), e.getValue().asText()));
      b.vipVerifications(v);
    }
    if (results.has("vips_free")) {
      Map<String, Boolean> v = new TreeMap<>();
      results.get("vips_free").fields().forEachRemaining(e -> v.put(e.getKey(), e.getValue().asBoolean()));
      b.vipsFree(v);
    }
    for (String k : MODELED_RESULTS) {
      results.remove(k);
    }
    return new HostRecord(b.build(), s.rowVersion(), s.spec() == null ? "{}" : StoredJson.canonical(spec),
        StoredJson.canonical(results));
  }

  private static final List<String> MODELED_RESULTS = List.of("ntp_sources", "domain_name_resolutions",
      "images_status", "disks_info", "api_vip_connectivity", "tang_connectivity", "vips_verification", "vips_free");

  public static StoredHost stored(HostRecord r) {
    return stored(r, null, null);
  }

  /**
   * The row of {@code r}; documents equal to those of {@code prev} reuse their text from {@code prevStored}
   * (as read or last written) instead of being serialised again, so they also compare unchanged. {@code prevStored}
   * must be the row as stored of {@code prev} (the same cached key's): a document carried from another row would be
   * taken as unchanged and not written.
   */
  public static StoredHost stored(HostRecord r, HostRecord prev, StoredHost prevStored) {
    return stored(r, prev, prevStored, null, null);
  }

  /**
   * As {@link #stored(HostRecord, HostRecord, StoredHost)}, with the connectivity report's and the inventory's texts
   * as received, where known.
   */
  public static StoredHost stored(HostRecord r, HostRecord prev, StoredHost prevStored, String connectivityText,
      String inventoryText) {
    HostSnapshot h = r.snapshot();
    HostSnapshot p = prev == null || prevStored == null ? null : prev.snapshot();
    // every document the same as in the row as stored is carried, never made again: the cache tells a new text from
    // the stored one by its token alone (StoredHost), and a text made again would be written again
    String inventory = p != null && Objects.equals(p.inventory(), h.inventory()) ? prevStored.inventory()
        : h.inventory() == null ? null : inventoryText != null ? inventoryText : StepOutputs.toJson(h.inventory());
    String connectivity = p != null && Objects.equals(p.connectivity(), h.connectivity()) ? prevStored.connectivity()
        : h.connectivity() == null ? null
        : connectivityText != null ? connectivityText : StepOutputs.toJson(h.connectivity());
    String validations = p != null && Objects.equals(p.validationsInfo(), h.validationsInfo())
        ? prevStored.validationsInfo() : h.validationsInfo() == null ? null : h.validationsInfo().toJson();
    String progress = p != null && Objects.equals(p.progress(), h.progress()) ? prevStored.progress()
        : HostDocuments.progress(h.progress());
    String stepResults = p != null && HostDocuments.sameStepResults(prev, r) ? prevStored.stepResults()
        : HostDocuments.stepResults(r);
    String spec = p != null && Objects.equals(prev.spec(), r.spec()) ? prevStored.spec() : r.spec();
    String stateJson = p != null && HostDocuments.sameState(p, h) ? prevStored.state() : HostDocuments.state(h);
    return new StoredHost(h.id(), h.infraEnvId(), h.clusterId(), h.status().wire(), h.statusInfo(),
        h.statusUpdatedAt(), h.role().wire(), h.suggestedRole() == null ? null : h.suggestedRole().wire(),
        h.bootstrap(), h.requestedHostname(), h.installationDiskId(), h.installationDiskPath(),
        h.discoveryAgentVersion(), inventory, connectivity, validations, progress, stepResults, spec, stateJson,
        h.checkedInAt(), h.registeredAt(), r.rowVersion(), h.staticNetworking(),
        StoredHost.carried(prevStored, inventory, connectivity, validations, progress, stepResults, spec, stateJson));
  }

  static HostProgress progress(String json) {
    if (json == null) {
      return HostProgress.NONE;
    }
    ObjectNode o = StoredJson.object(json);
    String stage = o.path("current_stage").asText("");
    return new HostProgress(stage.isEmpty() ? null : HostStage.fromWire(stage), o.path("progress_info").asText(""),
        instant(o.get("stage_started_at")), instant(o.get("stage_updated_at")),
        o.path("installation_percentage").asInt(0));
  }

  private static List<String> skipFormatting(ObjectNode spec) {
    List<String> ids = new ArrayList<>();
    for (JsonNode d : spec.path("disks_skip_formatting")) {
      if (d.path("skip_formatting").asBoolean(false)) {
        ids.add(d.path("disk_id").asText());
      }
    }
    return ids;
  }

  // --------------------------------------------------------------------------------------------- clusters

  /** The cluster's context without hosts (the unit of work adds them). */
  public static ClusterRecord cluster(StoredCluster s) {
    ObjectNode spec = StoredJson.object(s.spec());
    ObjectNode state = StoredJson.object(s.state());
    JsonNode prep = state.path("last_installation_preparation");
    ClusterContext.Builder b = ClusterContext.builder(s.id())
        .name(s.name())
        .openshiftVersion(shared(s.openshiftVersion()))
        .status(ClusterStatus.fromWire(s.status()))
        .statusInfo(shared(s.statusInfo()))
        .statusUpdatedAt(instant(s.statusUpdatedAt()))
        .installStartedAt(instant(s.installStartedAt()))
        .baseDnsDomain(shared(spec.path("base_dns_domain").asText("")))
        .cpuArchitecture(shared(spec.path("cpu_architecture").asText("x86_64")))
        .controlPlaneCount(spec.path("control_plane_count").asInt(3))
        .userManagedNetworking(spec.path("user_managed_networking").asBoolean(false))
        .vipDhcpAllocation(spec.path("vip_dhcp_allocation").asBoolean(false))
        .platformType(shared(spec.path("platform").path("type").asText("baremetal")))
        .externalPlatformName(text(spec.path("platform").path("external"), "platform_name"))
        .customManifests(s.customManifests())
        .machineNetworks(field(spec.get("machine_networks"), "cidr"))
        .machineNetworksDerived(false)
        .serviceNetworks(field(spec.get("service_networks"), "cidr"))
        .apiVips(field(spec.get("api_vips"), "ip"))
        .ingressVips(field(spec.get("ingress_vips"), "ip"))
        .pullSecretSet(true) // required at creation, never cleared
        .networkType(text(spec, "network_type"))
        .additionalNtpSource(text(spec, "additional_ntp_source"))
        .olmOperators(field(spec.get("olm_operators"), "name"))
        .releaseImage(text(spec, "ocp_release_image"))
        .day2(state.path("day2").asBoolean(false))
        .softTimeoutsEnabled(state.path("soft_timeouts_enabled").asBoolean(false))
        .ignoredHostValidations(stringSet(state.get("ignored_host_validations")))
        .ignoredClusterValidations(stringSet(state.get("ignored_cluster_validations")))
        .lastPreparationStatus(shared(prep.path("status").asText("not_started")))
        .lastPreparationReason(prep.hasNonNull("reason") ? prep.get("reason").asText() : null)
        .kubeconfigExists(state.path("kubeconfig_exists").asBoolean(false))
        .finalizingStage(text(state, "finalizing_stage"))
        .finalizingStageStartedAt(instant(state.get("finalizing_stage_started_at")))
        .finalizingStageTimedOut(state.path("finalizing_stage_timed_out").asBoolean(false))
        .logsInfo(state.path("logs_info").asText(""))
        .controllerLogsStartedAt(instant(state.get("controller_logs_started_at")))
        .controllerLogsCollectedAt(instant(state.get("controller_logs_collected_at")))
        .validationsInfo(s.validationsInfo() == null ? null : ValidationsInfo.parse(s.validationsInfo()));
    if (spec.has("cluster_networks")) {
      List<ClusterContext.ClusterNetwork> nets = new ArrayList<>();
      for (JsonNode n : spec.get("cluster_networks")) {
        nets.add(new ClusterContext.ClusterNetwork(shared(n.path("cidr").asText()), n.path("host_prefix").asInt(23)));
      }
      b.clusterNetworks(nets);
    }
    if (spec.has("disk_encryption")) {
      JsonNode d = spec.get("disk_encryption");
      b.diskEncryption(new ClusterContext.DiskEncryption(d.path("enable_on").asText("none"), text(d, "mode"),
          text(d, "tang_servers")));
    }
    String http = text(spec, "http_proxy");
    String https = text(spec, "https_proxy");
    if (http != null || https != null) {
      b.proxy(new ClusterContext.Proxy(http, https, text(spec, "no_proxy")));
    }
    if (state.has("connectivity_majority_groups")) {
      b.connectivityMajorityGroups(MajorityGroups.parse(state.get("connectivity_majority_groups").toString()));
    }
    if (state.has("ip_collisions")) {
      Map<String, List<String>> ip = new TreeMap<>();
      state.get("ip_collisions").fields().forEachRemaining(e -> ip.put(e.getKey(), strings(e.getValue())));
      b.ipCollisions(ip);
    }
    List<String> userNetworks = field(spec.get("machine_networks"), "cidr");
    if ((userNetworks == null || userNetworks.isEmpty()) && state.has("derived_machine_networks")) {
      b.machineNetworks(strings(state.get("derived_machine_networks"))).machineNetworksDerived(true);
    }
    if (spec.path("vip_dhcp_allocation").asBoolean(false)) {
      // the VIPs are the DHCP server's (upstream refuses user VIPs in this mode): none until an agent leased them
      JsonNode d = state.path("dhcp_vips");
      DhcpVips leased = d.hasNonNull("api_vip") && d.hasNonNull("ingress_vip") ? new DhcpVips(d.get("api_vip").asText(),
          d.get("ingress_vip").asText(), d.path("api_vip_lease").asText(""), d.path("ingress_vip_lease").asText(""))
          : null;
      b.dhcpVips(leased).apiVips(leased == null ? List.of() : List.of(leased.apiVip()))
          .ingressVips(leased == null ? List.of() : List.of(leased.ingressVip()));
    }
    if (state.has("monitored_operators")) {
      List<ClusterContext.MonitoredOperator> ops = new ArrayList<>();
      for (JsonNode o : state.get("monitored_operators")) {
        ops.add(new ClusterContext.MonitoredOperator(o.path("name").asText(), o.path("operator_type").asText(),
            text(o, "namespace"), text(o, "subscription_name"), o.path("timeout_seconds").asLong(0), text(o, "status"),
            text(o, "status_info"), text(o, "version"), instant(o.get("status_updated_at"))));
      }
      b.monitoredOperators(ops);
    }
    return new ClusterRecord(b.build(), s.rowVersion(), shared(s.tenant()), instant(s.installCompletedAt()),
        shared(s.progress()));
  }

  public static StoredCluster stored(ClusterRecord r) {
    return stored(r, true);
  }

  /**
   * The row of {@code r}; without {@code withValidations} its validations_info is left null, not encoded (a commit that
   * did not change them does not write them).
   */
  public static StoredCluster stored(ClusterRecord r, boolean withValidations) {
    ClusterContext c = r.context();
    ObjectNode state = JSON.createObjectNode();
    state.put("day2", c.day2());
    state.put("soft_timeouts_enabled", c.softTimeoutsEnabled());
    if (c.connectivityMajorityGroups() != null) {
      state.set("connectivity_majority_groups", JSON.valueToTree(c.connectivityMajorityGroups()));
    }
    if (!c.ipCollisions().isEmpty()) {
      state.set("ip_collisions", JSON.valueToTree(new TreeMap<>(c.ipCollisions())));
    }
    state.set("ignored_host_validations", JSON.valueToTree(sorted(c.ignoredHostValidations())));
    state.set("ignored_cluster_validations", JSON.valueToTree(sorted(c.ignoredClusterValidations())));
    ObjectNode prep = state.putObject("last_installation_preparation").put("status", c.lastPreparationStatus());
    if (c.lastPreparationReason() != null) {
      prep.put("reason", c.lastPreparationReason());
    }
    state.put("kubeconfig_exists", c.kubeconfigExists());
    if (c.machineNetworksDerived()) {
      state.set("derived_machine_networks", JSON.valueToTree(c.machineNetworks()));
    }
    if (c.dhcpVips() != null) {
      state.putObject("dhcp_vips").put("api_vip", c.dhcpVips().apiVip()).put("ingress_vip", c.dhcpVips().ingressVip())
          .put("api_vip_lease", c.dhcpVips().apiVipLease()).put("ingress_vip_lease", c.dhcpVips().ingressVipLease());
    }
    if (!c.monitoredOperators().isEmpty()) {
      ArrayNode ops = state.putArray("monitored_operators");
      for (ClusterContext.MonitoredOperator o : c.monitoredOperators()) {
        ObjectNode n = ops.addObject().put("name", o.name()).put("operator_type", o.operatorType())
            .put("timeout_seconds", o.timeoutSeconds());
        putText(n, "namespace", o.namespace());
        putText(n, "subscription_name", o.subscriptionName());
        putText(n, "status", o.status());
        putText(n, "status_info", o.statusInfo());
        putText(n, "version", o.version());
        StoredJson.putInstant(n, "status_updated_at", o.statusUpdatedAt());
      }
    }
    if (c.finalizingStage() != null) {
      state.put("finalizing_stage", c.finalizingStage());
    }
    StoredJson.putInstant(state, "finalizing_stage_started_at", c.finalizingStageStartedAt());
    state.put("finalizing_stage_timed_out", c.finalizingStageTimedOut());
    state.put("logs_info", c.logsInfo());
    StoredJson.putInstant(state, "controller_logs_started_at", c.controllerLogsStartedAt());
    StoredJson.putInstant(state, "controller_logs_collected_at", c.controllerLogsCollectedAt());
    return new StoredCluster(c.id(), r.tenant(), c.name(), c.openshiftVersion(), c.status().wire(), c.statusInfo(),
        offset(c.statusUpdatedAt()), null,
        !withValidations || c.validationsInfo() == null ? null : c.validationsInfo().toJson(),
        r.progress(), offset(c.installStartedAt()), offset(r.installCompletedAt()), StoredJson.canonical(state),
        r.rowVersion());
  }

  private static void putText(ObjectNode n, String field, String v) {
    if (v != null) {
      n.put(field, v);
    }
  }

  /** Upstream cluster-progress-info for the cluster with its hosts. */
  public static String progressJson(ClusterContext withHosts) {
    ClusterProgress p = ClusterProgress.of(withHosts);
    ObjectNode o = JSON.createObjectNode();
    o.put("total_percentage", p.totalPercentage());
    o.put("preparing_for_installation_stage_percentage", p.preparingForInstallationStagePercentage());
    o.put("installing_stage_percentage", p.installingStagePercentage());
    o.put("finalizing_stage_percentage", p.finalizingStagePercentage());
    if (withHosts.finalizingStage() != null) {
      o.put("finalizing_stage", withHosts.finalizingStage());
      StoredJson.putInstant(o, "finalizing_stage_started_at", withHosts.finalizingStageStartedAt());
      o.put("finalizing_stage_timed_out", withHosts.finalizingStageTimedOut());
    }
    return StoredJson.canonical(o);
  }

  // -------------------------------------------------------------------------------------------- helpers

  /** Whether an infra-env spec has a non-empty static_network_config (its hosts then get --copy-network). */
  public static boolean hasStaticNetworking(String infraEnvSpec) {
    JsonNode n = StoredJson.object(infraEnvSpec).get("static_network_config");
    return n != null && ((n.isArray() && n.size() > 0) || (n.isTextual() && !n.asText().isBlank() && !n.asText().equals("[]")));
  }

  private static String text(JsonNode o, String k) {
    JsonNode n = o.get(k);
    return n == null || n.isNull() ? null : shared(n.asText());
  }

  /**
   * Settings every site repeats (a version, a base domain, the default networks, the release image, the agent's
   * version, a progress document): one copy, not one per row read (~700 bytes per cached single-node site).
   */
  static String shared(String s) {
    return s == null || s.length() > 256 ? s : dev.rendezvous.service.domain.SharedText.of(s);
  }

  private static List<String> field(JsonNode array, String key) {
    List<String> out = new ArrayList<>();
    if (array != null) {
      for (JsonNode n : array) {
        if (n.hasNonNull(key)) {
          out.add(shared(n.get(key).asText()));
        }
      }
    }
    return out;
  }

  private static List<String> strings(JsonNode array) {
    List<String> out = new ArrayList<>();
    if (array != null) {
      for (Iterator<JsonNode> it = array.elements(); it.hasNext(); ) {
        out.add(it.next().asText());
      }
    }
    return out;
  }

  private static Set<String> stringSet(JsonNode array) {
    return new LinkedHashSet<>(strings(array));
  }

  private static List<String> sorted(Set<String> s) {
    List<String> l = new ArrayList<>(s);
    l.sort(null);
    return l;
  }

  private static Instant instant(JsonNode n) {
    return n == null || n.isNull() ? null : Instant.parse(n.asText());
  }

  static Instant instant(OffsetDateTime t) {
    return t == null ? null : t.toInstant();
  }

  static OffsetDateTime offset(Instant t) {
    return t == null ? null : t.atOffset(ZoneOffset.UTC);
  }
}
