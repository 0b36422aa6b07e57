package dev.rendezvous.service.api.params;

import static dev.rendezvous.service.api.params.Rules.*;

import dev.rendezvous.service.catalog.ReleaseCatalog;
import dev.rendezvous.service.domain.operators.OlmOperator;
import dev.rendezvous.service.validation.InvalidInputException;
import dev.rendezvous.service.validation.Names;
import dev.rendezvous.service.validation.Net;
import dev.rendezvous.service.validation.Secrets;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** cluster-create-params and v2-cluster-update-params: rules, upstream defaults, cross-field checks. */
public final class ClusterParams {
  /** Fields kept in the database row's own columns, not in the spec document. */
  public static final Set<String> COLUMNS = Set.of("name", "openshift_version", "pull_secret");

  private final Schema create;
  private final Schema update;
  private final ReleaseCatalog catalog;

  public ClusterParams(ReleaseCatalog catalog) {
    this.catalog = catalog;
    Map<String, Rule> f = new LinkedHashMap<>();
    f.put("name", string(54, Names::clusterNameProblem));
    f.put("openshift_version", string(32, v -> catalog.find(v).isPresent() ? null
        : "'" + v + "' is not a supported OpenShift version (see GET /v2/openshift-versions)"));
    f.put("pull_secret", string(65536, Secrets::pullSecretProblem));
    f.put("base_dns_domain", string(253, Names::baseDomainProblem));
    f.put("cluster_network_cidr", cidr());
    f.put("cluster_network_host_prefix", integer(1, 128));
    f.put("service_network_cidr", cidr());
    f.put("cluster_networks", arrayOf(object(Map.of("cidr", cidr(), "host_prefix", integer(1, 128)), Set.of("cidr")), 16));
    f.put("service_networks", arrayOf(object(Map.of("cidr", cidr()), Set.of("cidr")), 16));
    f.put("machine_networks", arrayOf(object(Map.of("cidr", cidr()), Set.of("cidr")), 16));
    f.put("api_vips", arrayOf(object(Map.of("ip", ip()), Set.of("ip")), 2));
    f.put("ingress_vips", arrayOf(object(Map.of("ip", ip()), Set.of("ip")), 2));
    f.put("api_vip_dns_name", string(253, Names::hostnameProblem));
    f.put("vip_dhcp_allocation", bool());
    f.put("user_managed_networking", bool());
    f.put("schedulable_masters", bool());
    f.put("ssh_public_key", string(16384, Secrets::sshKeysProblem)); // empty clears the key
    f.put("http_proxy", string(2048, ClusterParams::proxyUrlProblem));
    f.put("https_proxy", string(2048, ClusterParams::proxyUrlProblem));
    f.put("no_proxy", string(4096, ClusterParams::noProxyProblem));
    f.put("additional_ntp_source", string(2048, ClusterParams::ntpSourcesProblem));
    f.put("hyperthreading", oneOf("masters", "workers", "none", "all"));
    f.put("network_type", oneOf("OpenShiftSDN", "OVNKubernetes", "CiscoACI", "Cilium", "Calico", "None"));
    f.put("cpu_architecture", oneOf("x86_64", "aarch64", "arm64", "ppc64le", "s390x", "multi"));
    f.put("high_availability_mode", oneOf("Full", "None"));
    f.put("control_plane_count", integer(1, 5));
    f.put("platform", object(Map.of("type", oneOf("baremetal", "nutanix", "vsphere", "none", "external"),
        // upstream's external platform integration (e.g. oci: its custom manifest is required)
        "external", object(Map.of("platform_name", string(0, 256), "cloud_controller_manager", oneOf("", "External")),
            Set.of())), Set.of("type")));
    f.put("olm_operators", arrayOf(object(Map.of("name", string(1, 128), "properties", string(0, 65536)), Set.of("name")), 64));
    f.put("disk_encryption", object(Map.of(
        "enable_on", oneOf("none", "all", "masters", "arbiters", "workers", "masters,arbiters", "masters,workers", "arbiters,workers", "masters,arbiters,workers"),
        "mode", oneOf("tpmv2", "tang"),
        "tang_servers", string(65536, ClusterParams::tangServersProblem)), Set.of()));
    f.put("load_balancer", object(Map.of("type", oneOf("cluster-managed", "user-managed")), Set.of("type")));
    f.put("tags", string(0, 2048));
    // where a day-2 host fetches its Ignition (upstream's ignition-endpoint); the CA is base64 PEM
    f.put("ignition_endpoint", object(Map.of(
        "url", string(2048, u -> u.startsWith("http://") || u.startsWith("https://") ? null : "must be an http(s) URL"),
        "ca_certificate", string(65536, ClusterParams::caProblem)), Set.of()));
    this.create = new Schema(Map.copyOf(f), Set.of("name", "openshift_version", "pull_secret"));
    Map<String, Rule> u = new LinkedHashMap<>(f);
    u.remove("openshift_version"); // a release is chosen once, at creation
    u.remove("cpu_architecture");
    u.remove("high_availability_mode");
    u.put("machine_network_cidr", cidr());
    this.update = new Schema(Map.copyOf(u), Set.of());
  }

  /** Validated create params with upstream's defaults filled in. */
  public JsonObject forCreate(JsonObject body) {
    JsonObject p = create.validate(body, false);
    putIfAbsent(p, "cluster_network_cidr", "10.128.0.0/14");
    putIfAbsent(p, "cluster_network_host_prefix", 23L);
    putIfAbsent(p, "service_network_cidr", "172.30.0.0/16");
    putIfAbsent(p, "hyperthreading", "all");
    putIfAbsent(p, "schedulable_masters", false);
    putIfAbsent(p, "vip_dhcp_allocation", false);
    putIfAbsent(p, "cpu_architecture", "x86_64");
    String arch = p.getString("cpu_architecture");
    var release = catalog.find(p.getString("openshift_version")).orElseThrow();
    if (!arch.equals("multi") && !release.cpuArchitectures().contains(arch.equals("aarch64") ? "arm64" : arch)) {
      throw new InvalidInputException("cpu_architecture",
          "'" + arch + "' is not available for OpenShift " + release.openshiftVersion() + " " + release.cpuArchitectures());
    }
    // upstream keeps the release image on the cluster from its creation: what hosts pre-pull and install
    String key = arch.equals("aarch64") ? "arm64" : arch;
    p.put("ocp_release_image", release.releaseImages().getOrDefault(key,
        release.releaseImages().getOrDefault("multi", release.releaseImage())));
    putIfAbsent(p, "network_type", "OVNKubernetes");
    // SNO: one control-plane node means high_availability_mode None and no VIPs to manage.
    long cp = p.getLong("control_plane_count", "None".equals(p.getString("high_availability_mode")) ? 1L : 3L);
    if (cp == 2) {
      throw new InvalidInputException("control_plane_count", "must be 1 (single node) or 3 to 5");
    }
    p.put("control_plane_count", cp);
    p.put("high_availability_mode", cp == 1 ? "None" : "Full");
    putIfAbsent(p, "user_managed_networking", cp == 1);
    putIfAbsent(p, "platform", new JsonObject().put("type", p.getBoolean("user_managed_networking") ? "none" : "baremetal"));
    putIfAbsent(p, "cluster_networks", new JsonArray().add(new JsonObject()
        .put("cidr", p.getString("cluster_network_cidr")).put("host_prefix", p.getLong("cluster_network_host_prefix"))));
    putIfAbsent(p, "service_networks", new JsonArray().add(new JsonObject().put("cidr", p.getString("service_network_cidr"))));
    putIfAbsent(p, "machine_networks", new JsonArray());
    putIfAbsent(p, "api_vips", new JsonArray());
    putIfAbsent(p, "ingress_vips", new JsonArray());
    dhcpVips(p, p);
    checkNetworks(p);
    withOperatorDependencies(p);
    return p;
  }

  /**
   * In vip_dhcp_allocation mode the VIPs are the DHCP server's: setting them is refused as upstream refuses it, and the
   * user's earlier ones are dropped.
   */
  private static void dhcpVips(JsonObject asked, JsonObject next) {
    if (!next.getBoolean("vip_dhcp_allocation", false)) {
      return;
    }
    if (!asked.getJsonArray("api_vips", new JsonArray()).isEmpty()) {
      throw new InvalidInputException("api_vips", "Setting API VIPs is forbidden when cluster is in vip-dhcp-allocation mode");
    }
    if (!asked.getJsonArray("ingress_vips", new JsonArray()).isEmpty()) {
      throw new InvalidInputException("ingress_vips",
          "Setting Ingress VIPs is forbidden when cluster is in vip-dhcp-allocation mode");
    }
    next.put("api_vips", new JsonArray()).put("ingress_vips", new JsonArray());
  }

  /** Validated update params; {@code current} is the stored spec, the result is the new spec. */
  public JsonObject merge(JsonObject current, JsonObject body) {
    JsonObject changes = update.validate(body, true);
    JsonObject next = current.copy().mergeIn(changes);
    if (changes.containsKey("machine_network_cidr")) {
      next.put("machine_networks", new JsonArray().add(new JsonObject().put("cidr", changes.getString("machine_network_cidr"))));
      next.remove("machine_network_cidr");
    }
    if (changes.containsKey("cluster_network_cidr") || changes.containsKey("cluster_network_host_prefix")) {
      next.put("cluster_networks", new JsonArray().add(new JsonObject()
          .put("cidr", next.getString("cluster_network_cidr")).put("host_prefix", next.getLong("cluster_network_host_prefix"))));
    }
    if (changes.containsKey("service_network_cidr")) {
      next.put("service_networks", new JsonArray().add(new JsonObject().put("cidr", next.getString("service_network_cidr"))));
    }
    dhcpVips(changes, next);
    checkNetworks(next);
    if (changes.containsKey("olm_operators")) {
      withOperatorDependencies(next);
    }
    return next;
  }

  /**
   * Refuses operators this service does not offer, and adds the ones those need (upstream installs LSO with ODF or
   * CNV, CNV with MTV), so the validations, the preflight requirements and the monitored operators all see them.
   */
  static void withOperatorDependencies(JsonObject p) {
    JsonArray asked = p.getJsonArray("olm_operators");
    if (asked == null) {
      return;
    }
    Map<String, JsonObject> byName = new LinkedHashMap<>();
    for (int i = 0; i < asked.size(); i++) {
      JsonObject op = asked.getJsonObject(i);
      String name = op.getString("name");
      String known = OlmOperator.parse(name).map(OlmOperator::wire).orElseThrow(() -> new InvalidInputException(
          "olm_operators[" + byName.size() + "].name", "'" + name + "' is not a supported operator " + OlmOperator.names()));
      byName.putIfAbsent(known, op.copy().put("name", known));
    }
    JsonArray out = new JsonArray();
    for (String name : OlmOperator.withDependencies(List.copyOf(byName.keySet()))) {
      out.add(byName.getOrDefault(name, new JsonObject().put("name", name)));
    }
    p.put("olm_operators", out);
  }


  /** Cross-field rules: host prefix fits the cluster network; cluster, service and machine networks are disjoint. */
  static void checkNetworks(JsonObject p) {
    JsonArray clusterNets = p.getJsonArray("cluster_networks", new JsonArray());
    for (int i = 0; i < clusterNets.size(); i++) {
      JsonObject n = clusterNets.getJsonObject(i);
      Net.Cidr c = Net.parseCidr(n.getString("cidr")).orElseThrow();
      Long hp = n.getLong("host_prefix");
      if (hp != null && (hp > c.bits() || hp < c.prefix())) {
        throw new InvalidInputException(i == 0 && p.containsKey("cluster_network_host_prefix")
            ? "cluster_network_host_prefix" : "cluster_networks[" + i + "].host_prefix",
            "host prefix " + hp + " must be between the network's prefix /" + c.prefix() + " and " + c.bits());
      }
    }
    String[] groups = {"cluster_networks", "service_networks", "machine_networks"};
    for (int a = 0; a < groups.length; a++) {
      for (int b = a + 1; b < groups.length; b++) {
        for (Object x : p.getJsonArray(groups[a], new JsonArray())) {
          for (Object y : p.getJsonArray(groups[b], new JsonArray())) {
            String cx = ((JsonObject) x).getString("cidr");
            String cy = ((JsonObject) y).getString("cidr");
            if (Net.parseCidr(cx).orElseThrow().overlaps(Net.parseCidr(cy).orElseThrow())) {
              throw new InvalidInputException(groups[b], "CIDR " + cy + " overlaps " + groups[a] + " CIDR " + cx);
            }
          }
        }
      }
    }
  }

  static String caProblem(String s) {
    try {
      dev.rendezvous.service.install.Day2Ignition.caPem(s);
      return null;
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
  }

  /** upstream's ValidateDiskEncryptionParams: a JSON array of {url, thumbprint}, each URL absolute, each thumbprint set. */
  static String tangServersProblem(String s) {
    if (s.isBlank()) {
      return null;
    }
    io.vertx.core.json.JsonArray servers;
    try {
      servers = new io.vertx.core.json.JsonArray(s);
    } catch (io.vertx.core.json.DecodeException | ClassCastException e) {
      return "must be a JSON array of {\"url\", \"thumbprint\"}";
    }
    for (Object o : servers) {
      if (!(o instanceof io.vertx.core.json.JsonObject server)) {
        return "must be a JSON array of {\"url\", \"thumbprint\"}";
      }
      String url = server.getValue("url") instanceof String u ? u : "";
      try {
        java.net.URI uri = new java.net.URI(url);
        if (uri.getScheme() == null || uri.getHost() == null) {
          return "invalid Tang URL '" + url + "'";
        }
      } catch (java.net.URISyntaxException e) {
        return "invalid Tang URL '" + url + "'";
      }
      if (!(server.getValue("thumbprint") instanceof String t) || t.isBlank()) {
        return "Tang thumbprint isn't set for server " + url;
      }
    }
    return null;
  }

  static String proxyUrlProblem(String s) {
    if (s.isEmpty()) {
      return null; // upstream: empty string clears the proxy
    }
    try {
      java.net.URI u = new java.net.URI(s);
      if (!"http".equals(u.getScheme()) || u.getHost() == null) {
        return "must be an http:// URL with a host";
      }
      return null;
    } catch (java.net.URISyntaxException e) {
      return "is not a valid URL";
    }
  }

  static String noProxyProblem(String s) {
    if (s.isEmpty() || s.equals("*")) {
      return null;
    }
    for (String item : s.split(",")) {
      String t = item.strip();
      String host = t.startsWith(".") ? t.substring(1) : t;
      if (!(Net.isIp(t) || Net.parseCidr(t).isPresent() || (!host.isEmpty() && Names.hostnameProblem(host.split(":")[0]) == null))) {
        return "'" + t + "' is not a domain, IP address or CIDR";
      }
    }
    return null;
  }

  static String ntpSourcesProblem(String s) {
    if (s.isEmpty()) {
      return null;
    }
    for (String item : s.split(",")) {
      String t = item.strip();
      if (!(Net.isIp(t) || Names.hostnameProblem(t) == null)) {
        return "'" + t + "' is not a host name or IP address";
      }
    }
    return null;
  }

  private static void putIfAbsent(JsonObject o, String k, Object v) {
    if (!o.containsKey(k)) {
      o.put(k, v);
    }
  }
}
