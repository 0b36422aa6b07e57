package dev.rendezvous.kube.mapping;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * InfraEnv (+ its NMStateConfigs and pull secret) → the REST API's infra-env-create-params, as upstream's InfraEnv
 * controller builds them. NMStateConfigs become {@code static_network_config} entries: the NMState document as YAML
 * and the interfaces' MAC-to-name map. Pure functions.
 */
public final class InfraEnvSpecs {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory()
      .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER));

  private static final Map<String, String> FIELD_OF_PARAM = Map.ofEntries(
      Map.entry("name", "InfraEnv.metadata.name"),
      Map.entry("pull_secret", "InfraEnv.spec.pullSecretRef"),
      Map.entry("ssh_authorized_key", "InfraEnv.spec.sshAuthorizedKey"),
      Map.entry("proxy", "InfraEnv.spec.proxy"),
      Map.entry("additional_ntp_sources", "InfraEnv.spec.additionalNTPSources"),
      Map.entry("ignition_config_override", "InfraEnv.spec.ignitionConfigOverride"),
      Map.entry("cpu_architecture", "InfraEnv.spec.cpuArchitecture"),
      Map.entry("image_type", "InfraEnv.spec.imageType"),
      Map.entry("kernel_arguments", "InfraEnv.spec.kernelArguments"),
      Map.entry("additional_trust_bundle", "InfraEnv.spec.additionalTrustBundle"),
      Map.entry("openshift_version", "InfraEnv.spec.osImageVersion"),
      Map.entry("static_network_config", "NMStateConfig.spec"),
      Map.entry("cluster_id", "InfraEnv.spec.clusterRef"));

  private InfraEnvSpecs() {}

  public static String crField(String restField) {
    return CrFields.of(FIELD_OF_PARAM, "InfraEnv.spec", restField);
  }

  /** Create parameters; {@code clusterId} null for late binding; {@code nmStateConfigs} whole objects. */
  public static ObjectNode createParams(JsonNode infraEnv, String pullSecret, String clusterId,
      List<JsonNode> nmStateConfigs) {
    ObjectNode p = JSON.createObjectNode();
    p.put("name", infraEnv.path("metadata").path("name").asText());
    p.put("pull_secret", pullSecret);
    if (clusterId != null) {
      p.put("cluster_id", clusterId);
    }
    ClusterSpecs.text(infraEnv.path("spec"), "cpuArchitecture").ifPresent(v -> p.put("cpu_architecture", v));
    p.setAll(updateParams(infraEnv, nmStateConfigs));
    return p;
  }

  /** What a change of the InfraEnv (or of its NMStateConfigs) updates: PATCH /infra-envs/{id}. */
  public static ObjectNode updateParams(JsonNode infraEnv, List<JsonNode> nmStateConfigs) {
    JsonNode spec = infraEnv.path("spec");
    ObjectNode p = JSON.createObjectNode();
    ClusterSpecs.text(spec, "sshAuthorizedKey").ifPresent(v -> p.put("ssh_authorized_key", v));
    JsonNode proxy = spec.path("proxy");
    if (proxy.isObject()) {
      ObjectNode px = p.putObject("proxy");
      ClusterSpecs.text(proxy, "httpProxy").ifPresent(v -> px.put("http_proxy", v));
      ClusterSpecs.text(proxy, "httpsProxy").ifPresent(v -> px.put("https_proxy", v));
      ClusterSpecs.text(proxy, "noProxy").ifPresent(v -> px.put("no_proxy", v));
    }
    if (spec.path("additionalNTPSources").isArray()) {
      List<String> s = new ArrayList<>();
      spec.path("additionalNTPSources").forEach(n -> s.add(n.asText()));
      p.put("additional_ntp_sources", String.join(",", s));
    }
    ClusterSpecs.text(spec, "ignitionConfigOverride").ifPresent(v -> p.put("ignition_config_override", v));
    ClusterSpecs.text(spec, "imageType").ifPresent(v -> p.put("image_type", v));
    ClusterSpecs.text(spec, "additionalTrustBundle").ifPresent(v -> p.put("additional_trust_bundle", v));
    if (spec.path("kernelArguments").isArray()) {
      ArrayNode a = p.putArray("kernel_arguments");
      spec.path("kernelArguments").forEach(k -> a.addObject().put("operation", k.path("operation").asText("append"))
          .put("value", k.path("value").asText()));
    }
    p.set("static_network_config", staticNetworkConfig(nmStateConfigs));
    return p;
  }

  /** One entry per NMStateConfig, by name so the same set gives the same document (and no new image). */
  public static ArrayNode staticNetworkConfig(List<JsonNode> nmStateConfigs) {
    ArrayNode out = JSON.createArrayNode();
    List<JsonNode> sorted = new ArrayList<>(nmStateConfigs);
    sorted.sort(Comparator.comparing(n -> n.path("metadata").path("namespace").asText() + "/"
        + n.path("metadata").path("name").asText()));
    for (JsonNode n : sorted) {
      String name = n.path("metadata").path("name").asText();
      JsonNode spec = n.path("spec");
      if (!spec.path("config").isObject() || spec.path("config").isEmpty()) {
        throw new SpecError("NMStateConfig " + name + " spec.config", "is required: an NMState document");
      }
      ObjectNode e = out.addObject();
      try {
        e.put("network_yaml", YAML.writeValueAsString(spec.path("config")));
      } catch (JsonProcessingException ex) {
        throw new SpecError("NMStateConfig " + name + " spec.config", "is not an NMState document: " + ex.getMessage());
      }
      ArrayNode map = e.putArray("mac_interface_map");
      int i = 0;
      for (JsonNode nic : spec.path("interfaces")) {
        String mac = nic.path("macAddress").asText("");
        String nicName = nic.path("name").asText("");
        if (mac.isEmpty() || nicName.isEmpty()) {
          throw new SpecError("NMStateConfig " + name + " spec.interfaces[" + i + "]", "needs name and macAddress");
        }
        map.addObject().put("mac_address", mac).put("logical_nic_name", nicName);
        i++;
      }
    }
    return out;
  }
}
