package dev.rendezvous.agentbased.config;

import static dev.rendezvous.agentbased.config.YamlDoc.child;
import static dev.rendezvous.agentbased.config.YamlDoc.index;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rendezvous.agentbased.config.InstallConfig.ClusterNetwork;
import dev.rendezvous.agentbased.config.InstallConfig.ImageDigestSource;
import dev.rendezvous.agentbased.config.InstallConfig.MachinePool;
import dev.rendezvous.agentbased.config.InstallConfig.Networking;
import dev.rendezvous.agentbased.config.InstallConfig.Proxy;
import dev.rendezvous.agentbased.config.InstallConfig.Platform;
import dev.rendezvous.service.validation.Names;
import dev.rendezvous.service.validation.Net;
import dev.rendezvous.service.validation.Secrets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** Reads and checks install-config.yaml; the platform and cross-field rules are in {@link InstallConfigChecks}. */
public final class InstallConfigParser {
  private static final Set<String> TOP = Set.of("apiVersion", "kind", "baseDomain", "metadata", "networking",
      "platform", "controlPlane", "compute", "pullSecret", "sshKey", "imageDigestSources", "imageContentSources",
      "additionalTrustBundle", "proxy", "fips");
  private static final Set<String> NETWORKING =
      Set.of("machineNetwork", "clusterNetwork", "serviceNetwork", "networkType");
  private static final Set<String> POOL = Set.of("name", "replicas", "hyperthreading", "architecture");
  /** What our POST /v2/clusters accepts as network_type. */
  private static final Set<String> NETWORK_TYPES =
      Set.of("OVNKubernetes", "OpenShiftSDN", "CiscoACI", "Cilium", "Calico", "None");
  /** openshift-install's agent-based architectures (validateSupportedArchs). */
  private static final Set<String> ARCHITECTURES = Set.of("amd64", "arm64", "ppc64le", "s390x");

  private InstallConfigParser() {}

  /** Parses and checks install-config.yaml text. */
  public static InstallConfig parse(String yaml) throws SiteConfigException {
    YamlDoc doc = new YamlDoc(InstallConfig.FILE);
    return parse(doc, doc.parse(yaml));
  }

  static InstallConfig parse(YamlDoc doc, ObjectNode root) throws SiteConfigException {
    List<String> ignored = new ArrayList<>();
    YamlDoc.unread(root, "", TOP, ignored);
    String apiVersion = doc.text(root, "apiVersion", "");
    if (apiVersion == null || apiVersion.isBlank()) {
      throw doc.error("apiVersion", "is required (v1)");
    }
    if (!apiVersion.strip().equals("v1")) {
      throw doc.error("apiVersion", "must be v1, not '" + apiVersion + "'");
    }
    String baseDomain = doc.requiredText(root, "baseDomain", "");
    problem(doc, "baseDomain", Names.baseDomainProblem(baseDomain));
    JsonNode metadata = doc.object(root, "metadata", "");
    YamlDoc.unread(metadata, "metadata", Set.of("name"), ignored);
    String name = doc.requiredText(metadata, "name", "metadata");
    problem(doc, "metadata.name", Names.clusterNameProblem(name));
    if (root.path("pullSecret").isContainerNode()) {
      // unquoted JSON is a YAML mapping: a common slip
      throw doc.error("pullSecret", "must be the pull secret's JSON as a quoted string (pullSecret: '{\"auths\": ...}')");
    }
    String pullSecret = doc.requiredText(root, "pullSecret", "");
    String psProblem = Secrets.pullSecretProblem(pullSecret);
    problem(doc, "pullSecret", psProblem == null ? null : psProblem + " (the JSON of a pull secret, with \"auths\")");
    String sshKey = blankToNull(doc.text(root, "sshKey", ""));
    if (sshKey != null) {
      String p = Secrets.sshKeysProblem(sshKey);
      problem(doc, "sshKey", p == null ? null : "is not an OpenSSH public key: " + p);
    }
    Networking networking = networking(doc, doc.object(root, "networking", ""), ignored);
    MachinePool controlPlane =
        pool(doc, doc.object(root, "controlPlane", ""), "controlPlane", "master", "amd64", ignored);
    List<MachinePool> compute = new ArrayList<>();
    List<JsonNode> pools = doc.list(root, "compute", "");
    for (int i = 0; i < pools.size(); i++) {
      if (!pools.get(i).isObject()) {
        throw doc.error(index("compute", i), "must be a mapping of fields");
      }
      compute.add(pool(doc, pools.get(i), index("compute", i), null, controlPlane.architecture(), ignored));
    }
    if (!root.has("compute")) {
      compute.add(new MachinePool("worker", 3, "Enabled", controlPlane.architecture())); // openshift-install's default
    }
    Platform platform = InstallConfigChecks.platform(doc, doc.object(root, "platform", ""), ignored);
    InstallConfig ic = new InstallConfig(baseDomain, name, networking, platform, controlPlane, compute, pullSecret,
        sshKey, imageSources(doc, root, ignored), trustBundle(doc, root),
        proxy(doc, doc.object(root, "proxy", ""), ignored), Boolean.TRUE.equals(doc.bool(root, "fips", "")), ignored);
    InstallConfigChecks.check(doc, ic);
    return ic;
  }

  static void problem(YamlDoc doc, String field, String problem) throws SiteConfigException {
    if (problem != null) {
      throw doc.error(field, problem);
    }
  }

  private static Networking networking(YamlDoc doc, JsonNode n, List<String> ignored) throws SiteConfigException {
    YamlDoc.unread(n, "networking", NETWORKING, ignored);
    List<String> machine = cidrList(doc, n, "machineNetwork", ignored);
    List<ClusterNetwork> cluster = new ArrayList<>();
    List<JsonNode> cns = doc.list(n, "clusterNetwork", "networking");
    for (int i = 0; i < cns.size(); i++) {
      String at = index("networking.clusterNetwork", i);
      YamlDoc.unread(cns.get(i), at, Set.of("cidr", "hostPrefix"), ignored);
      String cidr = cidr(doc, cns.get(i), at);
      Long hp = doc.integer(cns.get(i), "hostPrefix", at);
      if (hp == null) {
        throw doc.error(child(at, "hostPrefix"), "is required (the prefix of each node's slice, e.g. 23)");
      }
      Net.Cidr c = Net.parseCidr(cidr).orElseThrow();
      if (hp < c.prefix() || hp > c.bits()) {
        throw doc.error(child(at, "hostPrefix"), hp + " must be between the network's prefix /" + c.prefix()
            + " and " + c.bits());
      }
      cluster.add(new ClusterNetwork(cidr, hp.intValue()));
    }
    if (cns.isEmpty()) {
      cluster.add(new ClusterNetwork("10.128.0.0/14", 23));
    }
    List<String> service = doc.strings(n, "serviceNetwork", "networking");
    for (int i = 0; i < service.size(); i++) {
      if (Net.parseCidr(service.get(i)).isEmpty()) {
        throw doc.error(index("networking.serviceNetwork", i), "'" + service.get(i)
            + "' is not a CIDR (address/prefix)");
      }
    }
    if (service.isEmpty()) {
      service = List.of("172.30.0.0/16");
    }
    String type = doc.text(n, "networkType", "networking");
    type = type == null || type.isBlank() ? "OVNKubernetes" : type.strip();
    if (!NETWORK_TYPES.contains(type)) {
      throw doc.error("networking.networkType", "'" + type + "' is not one of "
          + new java.util.TreeSet<>(NETWORK_TYPES));
    }
    return new Networking(machine, cluster, service, type);
  }

  private static List<String> cidrList(YamlDoc doc, JsonNode n, String key, List<String> ignored)
      throws SiteConfigException {
    List<String> out = new ArrayList<>();
    List<JsonNode> items = doc.list(n, key, "networking");
    for (int i = 0; i < items.size(); i++) {
      String at = index("networking." + key, i);
      YamlDoc.unread(items.get(i), at, Set.of("cidr"), ignored);
      out.add(cidr(doc, items.get(i), at));
    }
    return out;
  }

  private static String cidr(YamlDoc doc, JsonNode item, String at) throws SiteConfigException {
    if (!item.isObject()) {
      throw doc.error(at, "must be a mapping with a cidr");
    }
    String cidr = doc.requiredText(item, "cidr", at);
    if (Net.parseCidr(cidr).isEmpty()) {
      throw doc.error(child(at, "cidr"), "'" + cidr + "' is not a CIDR (address/prefix)");
    }
    return cidr;
  }

  private static MachinePool pool(YamlDoc doc, JsonNode n, String at, String fixedName, String defaultArch,
      List<String> ignored) throws SiteConfigException {
    YamlDoc.unread(n, at, POOL, ignored);
    String name = doc.text(n, "name", at);
    if (fixedName != null) {
      if (name != null && !name.isBlank() && !name.strip().equals(fixedName)) {
        throw doc.error(child(at, "name"), "must be " + fixedName + ", not '" + name + "'");
      }
      name = fixedName;
    } else if (name == null || !name.strip().equals("worker")) {
      throw doc.error(child(at, "name"), name == null ? "is required (worker)" : "must be worker, not '" + name + "'");
    }
    Long replicas = doc.integer(n, "replicas", at);
    if (replicas != null && (replicas < 0 || replicas > 10_000)) {
      throw doc.error(child(at, "replicas"), "must be 0 or more, not " + replicas);
    }
    String ht = doc.text(n, "hyperthreading", at);
    ht = ht == null || ht.isBlank() ? "Enabled" : ht.strip();
    if (!ht.equals("Enabled") && !ht.equals("Disabled")) {
      throw doc.error(child(at, "hyperthreading"), "must be Enabled or Disabled, not '" + ht + "'");
    }
    String arch = doc.text(n, "architecture", at);
    arch = arch == null || arch.isBlank() ? defaultArch : arch.strip();
    if (!ARCHITECTURES.contains(arch)) {
      throw doc.error(child(at, "architecture"), "'" + arch + "' is not one of amd64, arm64, ppc64le, s390x");
    }
    return new MachinePool(name.strip(), replicas == null ? 3 : replicas.intValue(), ht, arch);
  }

  /** imageDigestSources, or the older imageContentSources (same shape); never both, as openshift-install. */
  private static List<ImageDigestSource> imageSources(YamlDoc doc, JsonNode root, List<String> ignored)
      throws SiteConfigException {
    boolean digest = root.hasNonNull("imageDigestSources");
    if (digest && root.hasNonNull("imageContentSources")) {
      throw doc.error("imageContentSources",
          "cannot be used together with imageDigestSources (use imageDigestSources)");
    }
    String key = digest ? "imageDigestSources" : "imageContentSources";
    List<ImageDigestSource> out = new ArrayList<>();
    List<JsonNode> items = doc.list(root, key, "");
    for (int i = 0; i < items.size(); i++) {
      String at = index(key, i);
      if (!items.get(i).isObject()) {
        throw doc.error(at, "must be a mapping with source and mirrors");
      }
      YamlDoc.unread(items.get(i), at, Set.of("source", "mirrors"), ignored);
      out.add(new ImageDigestSource(doc.requiredText(items.get(i), "source", at),
          doc.strings(items.get(i), "mirrors", at)));
    }
    return out;
  }

  private static String trustBundle(YamlDoc doc, JsonNode root) throws SiteConfigException {
    String pem = blankToNull(doc.text(root, "additionalTrustBundle", ""));
    if (pem != null && !pem.contains("-----BEGIN CERTIFICATE-----")) {
      throw doc.error("additionalTrustBundle", "must be PEM-encoded certificates (-----BEGIN CERTIFICATE-----)");
    }
    return pem;
  }

  private static Proxy proxy(YamlDoc doc, JsonNode n, List<String> ignored) throws SiteConfigException {
    if (n.isMissingNode()) {
      return null;
    }
    YamlDoc.unread(n, "proxy", Set.of("httpProxy", "httpsProxy", "noProxy"), ignored);
    String http = proxyUrl(doc, n, "httpProxy");
    String https = proxyUrl(doc, n, "httpsProxy");
    String no = blankToNull(doc.text(n, "noProxy", "proxy"));
    return http == null && https == null && no == null ? null : new Proxy(http, https, no);
  }

  /** Our API (as upstream assisted-service) takes only http:// proxy URLs, for HTTPS traffic too. */
  private static String proxyUrl(YamlDoc doc, JsonNode n, String key) throws SiteConfigException {
    String s = blankToNull(doc.text(n, key, "proxy"));
    if (s == null) {
      return null;
    }
    try {
      java.net.URI u = new java.net.URI(s.strip());
      if ("http".equals(u.getScheme()) && u.getHost() != null) {
        return s.strip();
      }
    } catch (java.net.URISyntaxException e) {
      // reported below
    }
    throw doc.error("proxy." + key, "'" + s
        + "' must be an http:// URL with a host (https:// proxies are not supported)");
  }

  static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s;
  }
}
