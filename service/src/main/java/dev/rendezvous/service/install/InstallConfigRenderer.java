package dev.rendezvous.service.install;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import java.util.Iterator;
import java.util.Map;

/**
 * The install-config.yaml of a cluster in upstream's shape (apiVersion v1: baseDomain, metadata, compute,
 * controlPlane, networking, platform baremetal with its VIPs or none, pullSecret, sshKey, proxy, trust bundle,
 * bootstrapInPlace for a single node), with the user's overrides merged over it (objects field by field, a null
 * removes, anything else replaces, as upstream's JSON merge). Pure.
 */
public final class InstallConfigRenderer {
  static final ObjectMapper JSON = new ObjectMapper();
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory()
      .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
      .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES));

  private InstallConfigRenderer() {}

  public static String render(InstallConfigInput in) {
    return toYaml(document(in));
  }

  /** The install-config as a JSON tree, overrides merged. */
  public static ObjectNode document(InstallConfigInput in) {
    ObjectNode c = JSON.createObjectNode();
    c.put("apiVersion", "v1");
    c.put("baseDomain", in.baseDomain());
    c.putObject("metadata").put("name", in.clusterName());
    String arch = goArch(in.cpuArchitecture());
    c.putArray("compute").addObject().put("name", "worker").put("hyperthreading", hyperthreading(in, "workers"))
        .put("architecture", arch).put("replicas", in.workerCount());
    c.putObject("controlPlane").put("name", "master").put("hyperthreading", hyperthreading(in, "masters"))
        .put("architecture", arch).put("replicas", in.controlPlaneCount());
    ObjectNode net = c.putObject("networking");
    net.put("networkType", in.networkType() == null ? "OVNKubernetes" : in.networkType());
    ArrayNode cn = net.putArray("clusterNetwork");
    in.clusterNetworks().forEach(n -> cn.addObject().put("cidr", n.cidr()).put("hostPrefix", n.hostPrefix()));
    ArrayNode mn = net.putArray("machineNetwork");
    in.machineNetworks().forEach(n -> mn.addObject().put("cidr", n));
    ArrayNode sn = net.putArray("serviceNetwork");
    in.serviceNetworks().forEach(sn::add);
    ObjectNode platform = c.putObject("platform");
    if ("baremetal".equals(in.platformType()) && !in.singleNode()) {
      ObjectNode bm = platform.putObject("baremetal");
      ArrayNode api = bm.putArray("apiVIPs");
      in.apiVips().forEach(api::add);
      ArrayNode ingress = bm.putArray("ingressVIPs");
      in.ingressVips().forEach(ingress::add);
      bm.put("provisioningNetwork", "Disabled");
    } else {
      platform.putObject("none");
    }
    c.put("pullSecret", in.pullSecret());
    if (notEmpty(in.sshKey())) {
      c.put("sshKey", in.sshKey());
    }
    if (notEmpty(in.httpProxy()) || notEmpty(in.httpsProxy())) {
      ObjectNode proxy = c.putObject("proxy");
      putIfSet(proxy, "httpProxy", in.httpProxy());
      putIfSet(proxy, "httpsProxy", in.httpsProxy());
      putIfSet(proxy, "noProxy", in.noProxy());
    }
    String trust = in.additionalTrustBundle();
    if (in.mirrors() != null && !in.mirrors().mirrors().isEmpty()) {
      // a disconnected site: the release is pulled from its mirrors, whose CA the cluster must trust
      var sources = c.putArray("imageDigestSources");
      for (var m : in.mirrors().mirrors()) {
        var entry = sources.addObject().put("source", m.source());
        m.mirrors().forEach(entry.putArray("mirrors")::add);
      }
      if (notEmpty(in.mirrors().caBundle())) {
        trust = notEmpty(trust) ? trust.strip() + "\n" + in.mirrors().caBundle().strip() + "\n" : in.mirrors().caBundle();
      }
    }
    if (notEmpty(trust)) {
      c.put("additionalTrustBundle", trust);
    }
    if (in.singleNode() && notEmpty(in.bootstrapInPlaceDisk())) {
      c.putObject("bootstrapInPlace").put("installationDisk", in.bootstrapInPlaceDisk());
    }
    if (notEmpty(in.overrides())) {
      mergePatch(c, parseOverrides(in.overrides()));
    }
    return c;
  }

  /**
   * The overrides as a JSON object; IllegalArgumentException (with the reason) for anything else, so the
   * API can answer 400 naming the field.
   */
  public static ObjectNode parseOverrides(String overrides) {
    try {
      JsonNode n = JSON.readTree(overrides);
      if (!(n instanceof ObjectNode o)) {
        throw new IllegalArgumentException("must be a JSON object, got " + (n == null ? "nothing" : n.getNodeType()));
      }
      return o;
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("not valid JSON: " + e.getOriginalMessage());
    }
  }

  /** RFC 7386 merge: objects merge field by field, null removes the field, anything else replaces. */
  static void mergePatch(ObjectNode target, ObjectNode patch) {
    for (Iterator<Map.Entry<String, JsonNode>> it = patch.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      JsonNode v = e.getValue();
      if (v.isNull()) {
        target.remove(e.getKey());
      } else if (v.isObject() && target.get(e.getKey()) instanceof ObjectNode existing) {
        mergePatch(existing, (ObjectNode) v);
      } else {
        target.set(e.getKey(), v.deepCopy());
      }
    }
  }

  static String toYaml(JsonNode n) {
    try {
      return YAML.writeValueAsString(n);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("install-config does not serialise", e);
    }
  }

  private static String hyperthreading(InstallConfigInput in, String group) {
    String h = in.hyperthreading() == null ? "all" : in.hyperthreading();
    return h.equals("all") || h.equals(group) ? "Enabled" : "Disabled";
  }

  /** install-config uses Go's architecture names. */
  static String goArch(String arch) {
    return switch (arch == null ? "x86_64" : arch) {
      case "x86_64" -> "amd64";
      case "aarch64", "arm64" -> "arm64";
      default -> arch;
    };
  }

  private static boolean notEmpty(String s) {
    return s != null && !s.isEmpty();
  }

  private static void putIfSet(ObjectNode o, String k, String v) {
    if (notEmpty(v)) {
      o.put(k, v);
    }
  }
}
