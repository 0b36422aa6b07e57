package dev.rendezvous.kube.mapping;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * ClusterDeployment + AgentClusterInstall (+ the pull secret and the ClusterImageSet's release image) → the REST
 * API's cluster-create-params, as upstream's ClusterDeployments controller builds them; and the way back, from a REST
 * parameter the service refused to the CR field the user wrote. Pure functions.
 */
public final class ClusterSpecs {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern VERSION = Pattern.compile("(\\d+)\\.(\\d+)");

  /** REST parameter → the CR field it came from. */
  private static final Map<String, String> FIELD_OF_PARAM = Map.ofEntries(
      Map.entry("name", "ClusterDeployment.spec.clusterName"),
      Map.entry("base_dns_domain", "ClusterDeployment.spec.baseDomain"),
      Map.entry("pull_secret", "ClusterDeployment.spec.pullSecretRef"),
      Map.entry("openshift_version", "AgentClusterInstall.spec.imageSetRef"),
      Map.entry("cpu_architecture", "AgentClusterInstall.spec.imageSetRef"),
      Map.entry("ssh_public_key", "AgentClusterInstall.spec.sshPublicKey"),
      Map.entry("cluster_networks", "AgentClusterInstall.spec.networking.clusterNetwork"),
      Map.entry("service_networks", "AgentClusterInstall.spec.networking.serviceNetwork"),
      Map.entry("machine_networks", "AgentClusterInstall.spec.networking.machineNetwork"),
      Map.entry("network_type", "AgentClusterInstall.spec.networking.networkType"),
      Map.entry("user_managed_networking", "AgentClusterInstall.spec.networking.userManagedNetworking"),
      Map.entry("api_vips", "AgentClusterInstall.spec.apiVIPs"),
      Map.entry("ingress_vips", "AgentClusterInstall.spec.ingressVIPs"),
      Map.entry("control_plane_count", "AgentClusterInstall.spec.provisionRequirements.controlPlaneAgents"),
      Map.entry("platform", "AgentClusterInstall.spec.platformType"),
      Map.entry("schedulable_masters", "AgentClusterInstall.spec.mastersSchedulable"),
      Map.entry("http_proxy", "AgentClusterInstall.spec.proxy.httpProxy"),
      Map.entry("https_proxy", "AgentClusterInstall.spec.proxy.httpsProxy"),
      Map.entry("no_proxy", "AgentClusterInstall.spec.proxy.noProxy"),
      Map.entry("additional_ntp_source", "AgentClusterInstall.spec.ntpSources"));

  private ClusterSpecs() {}

  /** The CR field behind a REST parameter the service named (a path like {@code cluster_networks[0].cidr} too). */
  public static String crField(String restField) {
    return CrFields.of(FIELD_OF_PARAM, "AgentClusterInstall.spec", restField);
  }

  /**
   * OpenShift version "x.y" from a release image: its tag ({@code ...:4.18.3-x86_64}); upstream asks the
   * release itself, which needs a registry. A digest-only image says nothing: the catalog's release of that image is
   * looked up by the caller first.
   */
  public static String versionOfReleaseImage(String releaseImage) {
    if (releaseImage == null || releaseImage.isBlank()) {
      throw new SpecError("ClusterImageSet.spec.releaseImage", "is required");
    }
    int colon = releaseImage.lastIndexOf(':');
    int slash = releaseImage.lastIndexOf('/');
    String tag = colon > slash ? releaseImage.substring(colon + 1) : "";
    Matcher m = VERSION.matcher(tag);
    if (!m.lookingAt()) {
      throw new SpecError("ClusterImageSet.spec.releaseImage", "'" + releaseImage
          + "' has no OpenShift version in its tag (e.g. quay.io/openshift-release-dev/ocp-release:4.18.3-x86_64)");
    }
    return m.group(1) + "." + m.group(2); // the catalog's release of that minor (its images, its OS image)
  }

  /** The CPU architecture a release image's tag names ({@code -x86_64}, {@code -aarch64}, {@code -multi}), else x86_64. */
  public static String architectureOfReleaseImage(String releaseImage) {
    String lower = releaseImage.toLowerCase(Locale.ROOT);
    for (String arch : List.of("aarch64", "arm64", "ppc64le", "s390x", "multi")) {
      if (lower.endsWith("-" + arch)) {
        return arch.equals("arm64") ? "aarch64" : arch;
      }
    }
    return "x86_64";
  }

  /** The create parameters; {@code clusterDeployment} and {@code clusterInstall} are whole objects (metadata, spec). */
  public static ObjectNode createParams(JsonNode clusterDeployment, JsonNode clusterInstall, String pullSecret,
      String releaseImage) {
    JsonNode cd = clusterDeployment.path("spec");
    JsonNode aci = clusterInstall.path("spec");
    ObjectNode p = JSON.createObjectNode();
    p.put("name", required(cd, "clusterName", "ClusterDeployment.spec.clusterName"));
    p.put("base_dns_domain", required(cd, "baseDomain", "ClusterDeployment.spec.baseDomain"));
    p.put("pull_secret", pullSecret);
    p.put("openshift_version", versionOfReleaseImage(releaseImage));
    p.put("cpu_architecture", architectureOfReleaseImage(releaseImage));
    JsonNode req = aci.path("provisionRequirements");
    if (!req.path("controlPlaneAgents").canConvertToInt() || req.path("controlPlaneAgents").asInt() < 1) {
      throw new SpecError("AgentClusterInstall.spec.provisionRequirements.controlPlaneAgents",
          "is required and must be at least 1");
    }
    if (req.has("workerAgents") && req.path("workerAgents").asInt(-1) < 0) {
      throw new SpecError("AgentClusterInstall.spec.provisionRequirements.workerAgents", "must not be negative");
    }
    int controlPlane = req.path("controlPlaneAgents").asInt();
    p.put("control_plane_count", controlPlane);
    p.put("high_availability_mode", controlPlane == 1 ? "None" : "Full");
    p.setAll(updateParams(clusterInstall));
    return p;
  }

  /** What a change of the AgentClusterInstall's spec updates (PATCH /clusters/{id}); no identity fields. */
  public static ObjectNode updateParams(JsonNode clusterInstall) {
    JsonNode aci = clusterInstall.path("spec");
    ObjectNode p = JSON.createObjectNode();
    text(aci, "sshPublicKey").ifPresent(v -> p.put("ssh_public_key", v));
    JsonNode net = aci.path("networking");
    if (net.path("clusterNetwork").isArray()) {
      ArrayNode a = p.putArray("cluster_networks");
      for (JsonNode n : net.path("clusterNetwork")) {
        ObjectNode e = a.addObject().put("cidr", n.path("cidr").asText());
        if (n.has("hostPrefix")) {
          e.put("host_prefix", n.path("hostPrefix").asInt());
        }
      }
    }
    if (net.path("serviceNetwork").isArray()) {
      ArrayNode a = p.putArray("service_networks");
      net.path("serviceNetwork").forEach(n -> a.addObject().put("cidr", n.asText()));
    }
    if (net.path("machineNetwork").isArray()) {
      ArrayNode a = p.putArray("machine_networks");
      net.path("machineNetwork").forEach(n -> a.addObject().put("cidr", n.path("cidr").asText()));
    }
    text(net, "networkType").ifPresent(v -> p.put("network_type", v));
    if (net.path("userManagedNetworking").isBoolean()) {
      p.put("user_managed_networking", net.path("userManagedNetworking").asBoolean());
    }
    vips(aci, "apiVIPs", "apiVIP").ifPresent(a -> p.set("api_vips", a));
    vips(aci, "ingressVIPs", "ingressVIP").ifPresent(a -> p.set("ingress_vips", a));
    text(aci, "platformType").ifPresent(v -> p.putObject("platform").put("type", v.toLowerCase(Locale.ROOT)));
    if (aci.path("mastersSchedulable").isBoolean()) {
      p.put("schedulable_masters", aci.path("mastersSchedulable").asBoolean());
    }
    JsonNode proxy = aci.path("proxy");
    text(proxy, "httpProxy").ifPresent(v -> p.put("http_proxy", v));
    text(proxy, "httpsProxy").ifPresent(v -> p.put("https_proxy", v));
    text(proxy, "noProxy").ifPresent(v -> p.put("no_proxy", v));
    if (aci.path("ntpSources").isArray() && !aci.path("ntpSources").isEmpty()) {
      List<String> s = new ArrayList<>();
      aci.path("ntpSources").forEach(n -> s.add(n.asText()));
      p.put("additional_ntp_source", String.join(",", s));
    }
    return p;
  }

  /** {@code spec.provisionRequirements}: control-plane, worker and arbiter agents the installation waits for. */
  public record Requirements(int controlPlane, int workers, int arbiters) {
    public int total() {
      return controlPlane + workers + arbiters;
    }
  }

  public static Requirements requirements(JsonNode clusterInstall) {
    JsonNode r = clusterInstall.path("spec").path("provisionRequirements");
    return new Requirements(r.path("controlPlaneAgents").asInt(0), r.path("workerAgents").asInt(0),
        r.path("arbiterAgents").asInt(0));
  }

  private static java.util.Optional<ArrayNode> vips(JsonNode spec, String plural, String single) {
    ArrayNode a = JSON.createArrayNode();
    if (spec.path(plural).isArray()) {
      spec.path(plural).forEach(v -> a.addObject().put("ip", v.asText()));
    } else if (spec.hasNonNull(single) && !spec.path(single).asText().isBlank()) {
      a.addObject().put("ip", spec.path(single).asText());
    } else {
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(a);
  }

  static java.util.Optional<String> text(JsonNode n, String field) {
    JsonNode v = n.path(field);
    return v.isTextual() && !v.asText().isBlank() ? java.util.Optional.of(v.asText()) : java.util.Optional.empty();
  }

  static String required(JsonNode n, String field, String crField) {
    return text(n, field).orElseThrow(() -> new SpecError(crField, "is required"));
  }
}
