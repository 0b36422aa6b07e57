package dev.rendezvous.service.brain;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rendezvous.service.domain.planning.StepOutputs;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The JSON documents of the rows (a host's state, progress and step results, a spec): read leniently, written in one
 * stable form. Shared by {@link SnapshotMapper} and {@link HostDocuments}, which otherwise need nothing of each other.
 */
final class StoredJson {
  private static final ObjectMapper JSON = StepOutputs.JSON;

  private StoredJson() {}

  /** The stored document as an object; nothing stored is an empty one. */
  static ObjectNode object(String json) {
    if (json == null || json.isBlank()) {
      return JSON.createObjectNode();
    }
    try {
      JsonNode n = JSON.readTree(json);
      return n instanceof ObjectNode o ? o : JSON.createObjectNode();
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("stored JSON document does not parse: " + e.getOriginalMessage(), e);
    }
  }

  /** A stable text form (keys sorted), so equal documents compare equal as strings. */
  static String canonical(JsonNode n) {
    try {
      return JSON.writeValueAsString(sortKeys(n));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  private static JsonNode sortKeys(JsonNode n) {
    if (n instanceof ObjectNode o) {
      ObjectNode out = JSON.createObjectNode();
      List<String> keys = new ArrayList<>();
      o.fieldNames().forEachRemaining(keys::add);
      keys.sort(null);
      for (String k : keys) {
        out.set(k, sortKeys(o.get(k)));
      }
      return out;
    }
    if (n instanceof ArrayNode a) {
      ArrayNode out = JSON.createArrayNode();
      a.forEach(x -> out.add(sortKeys(x)));
      return out;
    }
    return n;
  }

  /** Sets {@code k} to the instant's ISO text, or leaves it out when there is none. */
  static void putInstant(ObjectNode o, String k, Instant t) {
    if (t != null) {
      o.put(k, t.toString());
    }
  }
}
