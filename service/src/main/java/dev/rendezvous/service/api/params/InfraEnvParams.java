package dev.rendezvous.service.api.params;

import static dev.rendezvous.service.api.params.Rules.*;

import dev.rendezvous.service.api.DiscoveryInputs;
import dev.rendezvous.service.catalog.ReleaseCatalog;
import dev.rendezvous.service.validation.Secrets;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** infra-env-create-params and infra-env-update-params. */
public final class InfraEnvParams {
  private final Schema create;
  private final Schema update;

  public InfraEnvParams(ReleaseCatalog catalog) {
    Map<String, Rule> f = new LinkedHashMap<>();
    f.put("name", string(1, 128));
    f.put("pull_secret", string(65536, Secrets::pullSecretProblem));
    f.put("cluster_id", uuid());
    f.put("openshift_version", string(32, v -> catalog.find(v).isPresent() ? null
        : "'" + v + "' is not a supported OpenShift version"));
    f.put("cpu_architecture", oneOf("x86_64", "aarch64", "arm64", "ppc64le", "s390x"));
    f.put("image_type", oneOf("full-iso", "minimal-iso", "disconnected-iso"));
    f.put("ssh_authorized_key", string(16384, Secrets::sshKeysProblem));
    f.put("proxy", object(Map.of(
        "http_proxy", string(2048, ClusterParams::proxyUrlProblem),
        "https_proxy", string(2048, ClusterParams::proxyUrlProblem),
        "no_proxy", string(4096, ClusterParams::noProxyProblem)), Set.of()));
    f.put("static_network_config", arrayOf(object(Map.of(
        "network_yaml", string(1, 65536),
        "mac_interface_map", arrayOf(object(Map.of(
            "mac_address", mac(),
            "logical_nic_name", string(1, 15)), Set.of("mac_address", "logical_nic_name")), 64)),
        Set.of("network_yaml")), 4000));
    f.put("ignition_config_override", string(262144, InfraEnvParams::ignitionOverrideProblem));
    f.put("kernel_arguments", arrayOf(object(Map.of(
        "operation", oneOf("append", "replace", "delete"),
        "value", string(1, 1024)), Set.of("operation", "value")), 64));
    f.put("additional_trust_bundle", string(65536, s -> s.isEmpty() || s.contains("-----BEGIN CERTIFICATE-----") ? null
        : "must be PEM-encoded certificates"));
    f.put("additional_ntp_sources", string(2048, ClusterParams::ntpSourcesProblem));
    f.put("rendezvous_ip", ip());
    this.create = new Schema(Map.copyOf(f), Set.of("name", "pull_secret"));
    Map<String, Rule> u = new LinkedHashMap<>(f);
    u.remove("name");
    u.remove("cluster_id");
    u.remove("cpu_architecture");
    this.update = new Schema(Map.copyOf(u), Set.of());
  }

  public JsonObject forCreate(JsonObject body) {
    JsonObject p = create.validate(body, false);
    if (!p.containsKey("cpu_architecture")) {
      p.put("cpu_architecture", "x86_64");
    }
    if (!p.containsKey("image_type")) {
      p.put("image_type", "full-iso");
    }
    DiscoveryInputs.check(p, java.util.UUID.randomUUID().toString());
    normalizeStaticNetwork(p);
    return p;
  }

  public JsonObject merge(JsonObject current, JsonObject body) {
    JsonObject next = current.copy().mergeIn(update.validate(body, true));
    DiscoveryInputs.check(next, java.util.UUID.randomUUID().toString());
    normalizeStaticNetwork(next);
    return next;
  }

  private static final Comparator<JsonObject> NIC_ORDER = Comparator
      .comparing((JsonObject m) -> m.getString("logical_nic_name"))
      .thenComparing(m -> m.getString("mac_address"));

  /**
   * Stores {@code static_network_config} as upstream does (FormatStaticNetworkConfigForDB): each
   * host's map sorted by NIC name then MAC, the hosts sorted by YAML then map, keys in upstream's
   * order; an empty list clears it.
   */
  static void normalizeStaticNetwork(JsonObject spec) {
    if (!(spec.getValue("static_network_config") instanceof JsonArray a)) {
      return;
    }
    if (a.isEmpty()) {
      spec.remove("static_network_config");
      return;
    }
    spec.put("static_network_config", upstreamForm(a));
  }

  /**
   * The list sorted and with its keys in upstream's order (Go marshals struct fields in their
   * declared order); the view re-applies it, as the database keeps its own key order.
   */
  public static JsonArray upstreamForm(JsonArray a) {
    List<JsonObject> hosts = new ArrayList<>();
    for (Object o : a) {
      JsonObject h = (JsonObject) o;
      List<JsonObject> map = new ArrayList<>();
      for (Object m : h.getJsonArray("mac_interface_map", new JsonArray())) {
        JsonObject e = (JsonObject) m;
        map.add(new JsonObject().put("logical_nic_name", e.getString("logical_nic_name"))
            .put("mac_address", e.getString("mac_address")));
      }
      map.sort(NIC_ORDER);
      hosts.add(new JsonObject().put("mac_interface_map", new JsonArray(new ArrayList<Object>(map)))
          .put("network_yaml", h.getString("network_yaml")));
    }
    hosts.sort(Comparator.comparing((JsonObject h) -> h.getString("network_yaml"))
        .thenComparing((x, y) -> compareMaps(x.getJsonArray("mac_interface_map"), y.getJsonArray("mac_interface_map"))));
    return new JsonArray(new ArrayList<Object>(hosts));
  }

  private static int compareMaps(JsonArray x, JsonArray y) {
    if (x.size() != y.size()) {
      return Integer.compare(x.size(), y.size());
    }
    for (int i = 0; i < x.size(); i++) {
      int c = NIC_ORDER.compare(x.getJsonObject(i), y.getJsonObject(i));
      if (c != 0) {
        return c;
      }
    }
    return 0;
  }

  static String ignitionOverrideProblem(String s) {
    if (s.isEmpty()) {
      return null;
    }
    JsonObject o;
    try {
      o = new JsonObject(s);
    } catch (RuntimeException e) {
      return "must be an Ignition config encoded as a JSON string";
    }
    Object ign = o.getValue("ignition");
    if (!(ign instanceof JsonObject i) || !(i.getValue("version") instanceof String v) || !v.matches("3\\.[0-9]+\\.[0-9]+")) {
      return "must have ignition.version 3.x.y";
    }
    return null;
  }
}
