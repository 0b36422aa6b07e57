package dev.rendezvous.service.api;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * A cluster's {@code feature_usage}: upstream's JSON-encoded map of the features the cluster uses, each
 * {@code {"id", "name", "data"?}}, the id being the name upper-cased with spaces as underscores and dots dropped.
 * Upstream's UI reads it to tell which features of the cluster are not fully supported (and refuses to show the
 * cluster without it). Derived here from the cluster's own view, with upstream's rules for the features a cluster's
 * settings alone decide (its default usages); upstream also records a few from history (a custom manifest once
 * uploaded, a hostname once requested) that a view cannot know, and they are left out.
 */
final class FeatureUsage {
  private FeatureUsage() {}

  static String of(JsonObject cluster) {
    Map<String, JsonObject> used = new TreeMap<>();
    if (cluster.getBoolean("vip_dhcp_allocation", false)) {
      add(used, "VIP auto alloc.", null);
    }
    String ntp = cluster.getString("additional_ntp_source", "");
    if (!ntp.isEmpty()) {
      add(used, "Additional NTP Source", new JsonObject().put("source_count", ntp.split(",").length));
    }
    int controlPlane = cluster.getInteger("control_plane_count",
        "None".equals(cluster.getString("high_availability_mode")) ? 1 : 3);
    if (controlPlane == 1) {
      add(used, "SNO", null);
    }
    JsonObject proxy = new JsonObject();
    for (String p : new String[] {"http_proxy", "https_proxy", "no_proxy"}) {
      if (!cluster.getString(p, "").isEmpty()) {
        proxy.put(p, 1);
      }
    }
    if (!proxy.isEmpty()) {
      add(used, "Proxy", proxy);
    }
    for (Object o : cluster.getJsonArray("monitored_operators", new JsonArray())) {
      JsonObject op = (JsonObject) o;
      if ("olm".equals(op.getString("operator_type"))) {
        add(used, op.getString("name", "").toUpperCase(Locale.ROOT), null);
      }
    }
    String networkType = cluster.getString("network_type", "");
    String networkUsage = switch (networkType) {
      case "OVNKubernetes" -> "OVN network type";
      case "OpenShiftSDN" -> "SDN network type";
      case "CiscoACI" -> "CiscoACI network type";
      case "Cilium" -> "Cilium network type";
      case "Calico" -> "Calico network type";
      case "None" -> "None network type";
      default -> null;
    };
    if (networkUsage != null) {
      add(used, networkUsage, null);
    }
    if (hasBothFamilies(cluster.getJsonArray("cluster_networks"))
        || hasBothFamilies(cluster.getJsonArray("service_networks"))) {
      add(used, "Dual-stack", null);
    }
    if (cluster.getJsonArray("api_vips", new JsonArray()).size() > 1) {
      add(used, "Dual-stack VIPs", null);
    }
    JsonObject encryption = cluster.getJsonObject("disk_encryption");
    String enableOn = encryption == null ? "none" : encryption.getString("enable_on", "none");
    if (!"none".equals(enableOn)) {
      add(used, "Disk encryption", new JsonObject().put("enable_on", enableOn)
          .put("mode", encryption.getString("mode", "tpmv2")));
    }
    if (!cluster.getString("tags", "").isEmpty()) {
      add(used, "Cluster Tags", null);
    }
    String hyperthreading = cluster.getString("hyperthreading", "all");
    if (!"none".equals(hyperthreading)) {
      add(used, "Hyperthreading", new JsonObject().put("hyperthreading_enabled", hyperthreading));
    }
    if (cluster.getBoolean("user_managed_networking", false) && controlPlane >= 3) {
      add(used, "User Managed Networking With Multi Node", null);
    }
    if (cluster.getBoolean("schedulable_masters", false)) {
      add(used, "Schedulable masters", null);
    }
    JsonObject platform = cluster.getJsonObject("platform");
    String platformType = platform == null ? "baremetal" : platform.getString("type", "baremetal");
    if (!"baremetal".equals(platformType) && !"none".equals(platformType)) {
      add(used, "Platform selection", new JsonObject().put("platform_type", platformType));
    }
    JsonObject out = new JsonObject();
    used.forEach(out::put);
    return out.encode();
  }

  private static void add(Map<String, JsonObject> used, String name, JsonObject data) {
    JsonObject u = new JsonObject().put("id", name.replace(" ", "_").replace(".", "").toUpperCase(Locale.ROOT))
        .put("name", name);
    if (data != null) {
      u.put("data", data);
    }
    used.put(name, u);
  }

  private static boolean hasBothFamilies(JsonArray networks) {
    boolean v4 = false;
    boolean v6 = false;
    for (Object o : networks == null ? new JsonArray() : networks) {
      String cidr = o instanceof JsonObject n ? n.getString("cidr", "") : String.valueOf(o);
      if (cidr.contains(":")) {
        v6 = true;
      } else if (cidr.contains(".")) {
        v4 = true;
      }
    }
    return v4 && v6;
  }
}
