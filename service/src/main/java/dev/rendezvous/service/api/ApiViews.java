package dev.rendezvous.service.api;

import dev.rendezvous.service.catalog.ReleaseCatalog;
import dev.rendezvous.service.repo.ClusterRepository.ClusterRow;
import dev.rendezvous.service.repo.HostRepository;
import dev.rendezvous.service.repo.HostRepository.HostRow;
import dev.rendezvous.service.repo.InfraEnvRepository.InfraEnvRow;
import dev.rendezvous.service.repo.Times;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;

/** Rows to upstream's JSON models (cluster, infra-env, host). */
public final class ApiViews {
  public static final String BASE = "/api/assisted-install/v2";

  private ApiViews() {}

  public static JsonObject cluster(ClusterRow c, ReleaseCatalog catalog, List<HostRow> hosts, boolean withHosts) {
    JsonObject o = cluster(c, catalog, new HostRepository.HostCounts(hosts.size(),
        hosts.stream().filter(h -> "known".equals(h.status())).count()));
    if (withHosts) {
      JsonArray hs = new JsonArray();
      hosts.forEach(h -> hs.add(host(h)));
      o.put("hosts", hs);
      HostNetworks networks = new HostNetworks();
      hosts.forEach(networks::add);
      o.put("host_networks", networks.json());
    }
    return o;
  }

  /** The cluster without its hosts, with their counts. */
  public static JsonObject cluster(ClusterRow c, ReleaseCatalog catalog, HostRepository.HostCounts counts) {
    JsonObject o = withoutHosts(c, catalog);
    putCounts(o, counts);
    return o;
  }

  /**
   * A cluster's view with its hosts, in the two parts around them for a view written as its hosts are read
   * ({@link HostViewStream}): this one ends in {@code "hosts":[}, and {@link #clusterTail} closes it.
   */
  static Buffer clusterHead(ClusterRow c, ReleaseCatalog catalog) {
    Buffer object = withoutHosts(c, catalog).toBuffer();
    return object.getBuffer(0, object.length() - 1).appendString(",\"hosts\":[");
  }

  /** After the hosts: their networks and counts, and the end of the cluster. */
  static Buffer clusterTail(HostNetworks networks, HostRepository.HostCounts counts) {
    JsonObject after = new JsonObject().put("host_networks", networks.json());
    putCounts(after, counts);
    Buffer object = after.toBuffer();
    return Buffer.buffer("],").appendBuffer(object, 1, object.length() - 1);
  }

  private static void putCounts(JsonObject o, HostRepository.HostCounts counts) {
    o.put("total_host_count", counts.total());
    o.put("enabled_host_count", counts.total());
    o.put("ready_host_count", counts.known());
  }

  /** The cluster's own fields: all but its hosts, their networks and their counts. */
  private static JsonObject withoutHosts(ClusterRow c, ReleaseCatalog catalog) {
    JsonObject o = c.spec().copy()
        .put("kind", kind(c))
        .put("id", c.id().toString())
        .put("href", BASE + "/clusters/" + c.id())
        .put("name", c.name())
        .put("openshift_version", c.openshiftVersion())
        .put("status", c.status())
        .put("status_info", c.statusInfo())
        .put("status_updated_at", Times.format(c.statusUpdatedAt()))
        .put("pull_secret_set", true)
        .put("image_info", new JsonObject().put("created_at", Times.ZERO).put("expires_at", Times.ZERO))
        .put("install_started_at", Times.format(c.installStartedAt()))
        .put("install_completed_at", Times.format(c.installCompletedAt()))
        .put("progress", c.progress() == null ? new JsonObject() : c.progress())
        .put("created_at", Times.format(c.createdAt()))
        .put("updated_at", Times.format(c.updatedAt()));
    if (c.spec().getBoolean("vip_dhcp_allocation", false)) {
      o.put("api_vips", c.vips("api_vips")).put("ingress_vips", c.vips("ingress_vips"));
    }
    if (c.spec().getString("ocp_release_image") == null) {
      catalog.find(c.openshiftVersion()).ifPresent(r -> o.put("ocp_release_image", r.releaseImage()));
    }
    if (c.validationsInfo() != null) {
      o.put("validations_info", c.validationsInfo().toString());
    }
    JsonObject state = c.state() == null ? new JsonObject() : c.state();
    JsonArray ops = new JsonArray();
    monitoredOperators(c).forEach(ops::add);
    o.put("monitored_operators", ops);
    JsonArray userNets = c.spec().getJsonArray("machine_networks");
    if ((userNets == null || userNets.isEmpty()) && state.getJsonArray("derived_machine_networks") != null) {
      JsonArray derived = new JsonArray();
      state.getJsonArray("derived_machine_networks").forEach(n -> derived.add(new JsonObject().put("cidr", n)
          .put("cluster_id", c.id().toString())));
      o.put("machine_networks", derived);
      if (!derived.isEmpty()) {
        o.put("machine_network_cidr", derived.getJsonObject(0).getString("cidr"));
      }
    }
    JsonObject prep = state.getJsonObject("last_installation_preparation");
    if (prep != null) {
      o.put("last-installation-preparation", prep);
    }
    o.put("logs_info", state.getString("logs_info", ""));
    o.put("ignored_host_validations", state.getJsonArray("ignored_host_validations", new JsonArray()).encode());
    o.put("ignored_cluster_validations", state.getJsonArray("ignored_cluster_validations", new JsonArray()).encode());
    putIfSet(o, "controller_logs_started_at", state.getString("controller_logs_started_at"));
    putIfSet(o, "controller_logs_collected_at", state.getString("controller_logs_collected_at"));
    o.put("feature_usage", FeatureUsage.of(o));
    return o;
  }

  /** Upstream's cluster kind: day-2 clusters are AddHostsCluster, unmonitored ones DisconnectedCluster. */
  static String kind(ClusterRow c) {
    if ("unmonitored".equals(c.status())) {
      return "DisconnectedCluster";
    }
    boolean day2 = c.state() != null && c.state().getBoolean("day2", false);
    return day2 || "adding-hosts".equals(c.status()) ? "AddHostsCluster" : "Cluster";
  }

  /** The cluster's monitored operators in upstream's monitored-operator shape. */
  public static java.util.List<JsonObject> monitoredOperators(ClusterRow c) {
    java.util.List<JsonObject> out = new java.util.ArrayList<>();
    JsonArray ops = c.state() == null ? null : c.state().getJsonArray("monitored_operators");
    if (ops == null) {
      // before the installation starts: what it will wait for, as upstream shows from creation on
      java.util.List<String> olm = new java.util.ArrayList<>();
      c.spec().getJsonArray("olm_operators", new JsonArray()).forEach(o -> olm.add(((JsonObject) o).getString("name")));
      ops = new JsonArray();
      for (var m : dev.rendezvous.service.domain.cluster.MonitoredOperators.of(olm, false)) {
        ops.add(new JsonObject().put("name", m.name()).put("operator_type", m.operatorType())
            .put("namespace", m.namespace()).put("subscription_name", m.subscriptionName())
            .put("timeout_seconds", m.timeoutSeconds()));
      }
    }
    for (Object x : ops) {
      JsonObject op = (JsonObject) x;
      JsonObject v = new JsonObject().put("cluster_id", c.id().toString()).put("name", op.getString("name"))
          .put("operator_type", op.getString("operator_type"))
          .put("status_info", op.getString("status_info", "")).put("timeout_seconds", op.getLong("timeout_seconds", 0L))
          .put("properties", "").put("bundles", new JsonArray());
      // none until reported: upstream omits it (its operator-status enum has no empty value)
      String status = op.getString("status");
      if (status != null && !status.isEmpty()) {
        v.put("status", status);
      }
      putIfSet(v, "namespace", op.getString("namespace"));
      putIfSet(v, "subscription_name", op.getString("subscription_name"));
      putIfSet(v, "version", op.getString("version"));
      putIfSet(v, "status_updated_at", op.getString("status_updated_at"));
      out.add(v);
    }
    return out;
  }

  /** An ISO download URL and when its credential expires (null: never, shown as upstream's zero time). */
  public record DownloadUrl(String url, java.time.Instant expiresAt) {
    public String expiresAtText() {
      return expiresAt == null ? Times.ZERO : Times.format(Times.of(expiresAt));
    }
  }

  public static JsonObject infraEnv(InfraEnvRow e, DownloadUrl downloadUrl) {
    JsonObject spec = e.spec();
    JsonObject o = spec.copy()
        .put("kind", "InfraEnv")
        .put("id", e.id().toString())
        .put("href", BASE + "/infra-envs/" + e.id())
        .put("name", e.name())
        .put("type", spec.getString("image_type", "full-iso"))
        .put("pull_secret_set", true)
        .put("download_url", downloadUrl.url())
        .put("expires_at", downloadUrl.expiresAtText())
        .put("created_at", Times.format(e.createdAt()))
        .put("updated_at", Times.format(e.updatedAt()));
    o.remove("image_type");
    if (e.clusterId() != null) {
      o.put("cluster_id", e.clusterId().toString());
    }
    // Upstream returns static_network_config as a string.
    if (spec.getValue("static_network_config") instanceof JsonArray a && !a.isEmpty()) {
      o.put("static_network_config", dev.rendezvous.service.api.params.InfraEnvParams.upstreamForm(a).encode());
    } else {
      o.remove("static_network_config");
    }
    return o;
  }

  public static JsonObject host(HostRow h) {
    JsonObject o = h.spec().copy()
        .put("kind", h.state() != null && h.state().getBoolean("day2", false) ? "AddToExistingClusterHost" : "Host")
        .put("id", h.id().toString())
        .put("href", BASE + "/infra-envs/" + h.infraEnvId() + "/hosts/" + h.id())
        .put("infra_env_id", h.infraEnvId().toString())
        .put("status", h.status())
        .put("status_info", h.statusInfo())
        .put("status_updated_at", Times.format(h.statusUpdatedAt()))
        .put("role", h.role())
        .put("suggested_role", h.suggestedRole() == null ? h.role() : h.suggestedRole())
        .put("bootstrap", h.bootstrap())
        .put("progress", h.progress() == null ? new JsonObject() : h.progress())
        .put("checked_in_at", Times.format(h.checkedInAt()))
        .put("registered_at", Times.format(h.registeredAt()))
        .put("created_at", Times.format(h.createdAt()))
        .put("updated_at", Times.format(h.updatedAt()));
    if (h.clusterId() != null) {
      o.put("cluster_id", h.clusterId().toString());
    }
    putIfSet(o, "requested_hostname", h.requestedHostname());
    putIfSet(o, "installation_disk_id", h.installationDiskId());
    putIfSet(o, "installation_disk_path", h.installationDiskPath());
    putIfSet(o, "discovery_agent_version", h.discoveryAgentVersion());
    // Upstream carries these documents as JSON-encoded strings.
    putIfSet(o, "inventory", h.inventory());
    putIfSet(o, "connectivity", h.connectivity());
    putIfSet(o, "validations_info", h.validationsInfo());
    JsonObject state = h.state() == null ? new JsonObject() : h.state();
    o.put("logs_info", state.getString("logs_info", ""));
    putIfSet(o, "logs_started_at", state.getString("logs_started_at"));
    putIfSet(o, "logs_collected_at", state.getString("logs_collected_at"));
    o.put("ignition_config_overrides", h.spec().getString("ignition_config_overrides", ""));
    JsonArray args = h.spec().getJsonArray("installer_args");
    if (args != null) {
      o.put("installer_args", args.encode()); // a JSON-encoded string, as upstream
    }
    return o;
  }

  private static void putIfSet(JsonObject o, String k, Object v) {
    if (v != null) {
      o.put(k, v instanceof String s ? s : v.toString());
    }
  }
}
