package dev.rendezvous.agent.installer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an agent-based site's bootstrap hands over to the controller: the service runs on the bootstrap itself and is
 * gone once it reboots into the cluster, so the controller's Job carries the hosts (RDV_HANDOVER_HOSTS) and the
 * controller works from them when the service cannot be reached (it approves the nodes' CSRs from them).
 */
final class HostsHandover {
  private static final Logger LOG = LoggerFactory.getLogger(HostsHandover.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  /** The host fields the controller reads. */
  private static final List<String> HANDED_OVER = List.of("id", "infra_env_id", "cluster_id", "status", "role",
      "suggested_role", "bootstrap", "requested_hostname", "node_labels", "machine_config_pool_name");

  private HostsHandover() {}

  /**
   * The cluster's hosts as the service has them now, for the controller's Job: only what the controller reads of a
   * host (ids, role, status, names, the inventory's hostname and addresses; no Ignition overrides or installer
   * arguments), base64 for the YAML value; "" when the service does not give them.
   */
  static String fetch(InstallRequest r, String url, String token, javax.net.ssl.SSLContext tls) {
    try {
      HttpResponse<byte[]> resp = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).sslContext(tls).build()
          .send(HttpRequest.newBuilder(URI.create(url.replaceAll("/+$", "") + "/api/assisted-install/v2/clusters/"
              + r.clusterId() + "/hosts?with-inventory=true")).timeout(Duration.ofSeconds(30))
              .header("X-Secret-Key", token).GET().build(), HttpResponse.BodyHandlers.ofByteArray());
      if (resp.statusCode() != 200) {
        LOG.warn("no host list for the controller's Job: the service answered {}", resp.statusCode());
        return "";
      }
      ArrayNode out = JSON.createArrayNode();
      for (JsonNode h : JSON.readTree(resp.body())) {
        ObjectNode kept = out.addObject();
        for (String f : HANDED_OVER) {
          if (h.hasNonNull(f)) {
            kept.set(f, h.get(f));
          }
        }
        if (h.hasNonNull("inventory")) {
          JsonNode inv = JSON.readTree(h.get("inventory").asText());
          ObjectNode slim = JSON.createObjectNode().put("hostname", inv.path("hostname").asText(""));
          ArrayNode nics = slim.putArray("interfaces");
          for (JsonNode nic : inv.path("interfaces")) {
            ObjectNode n = nics.addObject();
            for (String f : List.of("name", "mac_address", "ipv4_addresses", "ipv6_addresses")) {
              if (nic.has(f)) {
                n.set(f, nic.get(f));
              }
            }
          }
          kept.put("inventory", slim.toString());
        }
      }
      return Base64.getEncoder().encodeToString(JSON.writeValueAsBytes(out));
    } catch (IOException e) {
      LOG.warn("no host list for the controller's Job: {}", e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return "";
  }
}
