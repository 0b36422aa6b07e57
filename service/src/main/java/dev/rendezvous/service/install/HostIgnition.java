package dev.rendezvous.service.install;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rendezvous.service.ignition.IgnitionMerge;
import java.nio.charset.StandardCharsets;

/**
 * A host's installation Ignition (upstream's v2DownloadHostIgnition): its role's config (a bootstrap installs as a
 * master after its pivot), its requested host name as {@code /etc/hostname}, and the user's per-host
 * ignition_config_overrides merged over it. Pure.
 */
public final class HostIgnition {
  private static final ObjectMapper JSON = new ObjectMapper();

  private HostIgnition() {}

  /** The file the host's role installs with. */
  public static String roleFile(String effectiveRole, boolean bootstrap) {
    if (bootstrap) {
      return ClusterArtifacts.MASTER;
    }
    return switch (effectiveRole) {
      case "worker" -> ClusterArtifacts.WORKER;
      case "arbiter" -> "arbiter.ign";
      default -> ClusterArtifacts.MASTER;
    };
  }

  public static byte[] forHost(byte[] roleConfig, String requestedHostname, String overrides) {
    try {
      ObjectNode config = (ObjectNode) JSON.readTree(roleConfig);
      if (requestedHostname != null && !requestedHostname.isEmpty()) {
        addFile(config, "/etc/hostname", BuiltInArtifactsGenerator.dataUrl(requestedHostname + "\n"));
      }
      if (overrides != null && !overrides.isBlank()) {
        JsonNode o = JSON.readTree(overrides);
        if (o instanceof ObjectNode child) {
          IgnitionMerge.merge(config, child);
        }
      }
      return JSON.writeValueAsString(config).getBytes(StandardCharsets.UTF_8);
    } catch (java.io.IOException | ClassCastException e) {
      throw new IllegalStateException("stored Ignition does not parse: " + e.getMessage(), e);
    }
  }

  /** Adds a file (mode 0644, overwritten) to an Ignition config's {@code storage.files}, made when missing. */
  static void addFile(ObjectNode config, String path, String source) {
    ObjectNode storage = config.has("storage") ? (ObjectNode) config.get("storage") : config.putObject("storage");
    ArrayNode files = storage.has("files") ? (ArrayNode) storage.get("files") : storage.putArray("files");
    files.addObject().put("path", path).put("mode", 0644).put("overwrite", true).putObject("contents")
        .put("source", source);
  }

  /**
   * Why per-host overrides are not acceptable, or null: a JSON object of Ignition 3 ({@code ignition.version}
   * 3.x), as upstream checks before storing them.
   */
  public static String overridesProblem(String overrides) {
    try {
      JsonNode n = JSON.readTree(overrides);
      if (!(n instanceof ObjectNode)) {
        return "must be a JSON object";
      }
      String v = n.path("ignition").path("version").asText("");
      if (!v.startsWith("3.")) {
        return "ignition.version must be 3.x, got '" + v + "'";
      }
      return null;
    } catch (JsonProcessingException e) {
      return "not valid JSON: " + e.getOriginalMessage();
    }
  }
}
