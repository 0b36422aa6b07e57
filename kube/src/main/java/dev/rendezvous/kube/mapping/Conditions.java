package dev.rendezvous.kube.mapping;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/**
 * Status conditions as upstream writes them ({@code type, status, reason, message, lastTransitionTime}, plus
 * {@code lastProbeTime} on hive's ClusterInstall conditions). The transition time moves only when the status does, and
 * nothing else moves with time, so an unchanged situation gives an identical status and no write.
 */
public final class Conditions {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final ArrayNode previous;
  private final ArrayNode out = JSON.createArrayNode();
  private final Instant now;
  private final boolean probeTime;

  /** {@code previous}: the conditions the object has now (or missing); {@code probeTime}: hive's shape. */
  public Conditions(JsonNode previous, Instant now, boolean probeTime) {
    this.previous = previous != null && previous.isArray() ? (ArrayNode) previous : JSON.createArrayNode();
    this.now = now.truncatedTo(ChronoUnit.SECONDS);
    this.probeTime = probeTime;
  }

  public Conditions set(String type, boolean status, String reason, String message) {
    String s = status ? "True" : "False";
    JsonNode old = find(previous, type);
    boolean same = old != null && s.equals(old.path("status").asText());
    boolean identical = same && reason.equals(old.path("reason").asText()) && message.equals(old.path("message").asText());
    ObjectNode c = JSON.createObjectNode().put("type", type).put("status", s).put("reason", reason).put("message", message);
    String transition = same && old.hasNonNull("lastTransitionTime") ? old.get("lastTransitionTime").asText() : now.toString();
    c.put("lastTransitionTime", transition);
    if (probeTime) {
      c.put("lastProbeTime", identical && old.hasNonNull("lastProbeTime") ? old.get("lastProbeTime").asText() : now.toString());
    }
    out.add(c);
    return this;
  }

  public ArrayNode build() {
    return out;
  }

  public static JsonNode find(JsonNode conditions, String type) {
    if (conditions != null) {
      for (JsonNode c : conditions) {
        if (type.equals(c.path("type").asText())) {
          return c;
        }
      }
    }
    return null;
  }

  /** True when the condition of that type is present with status True. */
  public static boolean isTrue(JsonNode conditions, String type) {
    JsonNode c = find(conditions, type);
    return c != null && "True".equals(c.path("status").asText());
  }
}
