package dev.rendezvous.service.install;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * A host added to an installed cluster (day 2) boots from the cluster's own Machine Config Server, as upstream does:
 * a pointer Ignition (spec 3.2.0) whose merge source is the cluster's {@code ignition_endpoint.url} plus the host's
 * pool, else {@code http://<api_vip_dnsname>:22624/config/<pool>}, or, when the cluster gave the MCS's CA
 * ({@code ignition_endpoint.ca_certificate}, base64 PEM), {@code https://api-int.<cluster domain>:22623/config/<pool>}
 * trusting that CA (the MCS certificate names only api-int).
 */
public final class Day2Ignition {
  static final int INSECURE_MCS_PORT = 22624;
  static final int SECURE_MCS_PORT = 22623;

  private Day2Ignition() {}

  /** The pointer config for a host of {@code role} (auto-assign joins as a worker) of the imported cluster {@code spec}. */
  public static byte[] pointer(JsonObject spec, String clusterName, String role) {
    String pool = role == null || role.equals("auto-assign") ? "worker" : role;
    JsonObject endpoint = spec.getJsonObject("ignition_endpoint", new JsonObject());
    String ca = caPem(endpoint.getString("ca_certificate"));
    String url;
    String custom = endpoint.getString("url");
    if (custom != null && !custom.isBlank()) {
      url = custom.endsWith("/") ? custom + pool : custom + "/" + pool;
    } else {
      String host = spec.getString("api_vip_dns_name");
      if (host == null || host.isBlank()) {
        host = "api." + clusterName + "." + spec.getString("base_dns_domain", "");
      }
      if (ca != null && host.startsWith("api.")) {
        host = "api-int." + host.substring(4);
      }
      url = (ca != null ? "https://" : "http://") + host + ":" + (ca != null ? SECURE_MCS_PORT : INSECURE_MCS_PORT)
          + "/config/" + pool;
    }
    JsonObject ignition = new JsonObject().put("version", "3.2.0")
        .put("config", new JsonObject().put("merge", new JsonArray().add(new JsonObject().put("source", url))));
    if (ca != null) {
      ignition.put("security", new JsonObject().put("tls", new JsonObject().put("certificateAuthorities",
          new JsonArray().add(new JsonObject().put("source", "data:text/plain;charset=utf-8;base64,"
              + Base64.getEncoder().encodeToString(ca.getBytes(StandardCharsets.UTF_8)))))));
    }
    return new JsonObject().put("ignition", ignition).encode().getBytes(StandardCharsets.UTF_8);
  }

  /** The CA as PEM text, or null when none is set; IllegalArgumentException when it is not a base64 PEM certificate. */
  public static String caPem(String base64) {
    if (base64 == null || base64.isBlank()) {
      return null;
    }
    String pem;
    try {
      pem = new String(Base64.getMimeDecoder().decode(base64.strip()), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("is not base64");
    }
    if (!pem.contains("-----BEGIN CERTIFICATE-----")) {
      throw new IllegalArgumentException("is not a base64-encoded PEM certificate");
    }
    return pem;
  }
}
