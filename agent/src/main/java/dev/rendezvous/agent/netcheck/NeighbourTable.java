package dev.rendezvous.agent.netcheck;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rendezvous.agent.wire.WireJson;
import java.util.Locale;
import java.util.Optional;

/**
 * The kernel neighbour table as {@code ip -j neigh show} prints it. Used for L2 checks when arping is
 * absent (after a ping has made the kernel resolve the address) and for IPv6, where upstream uses nmap.
 */
public final class NeighbourTable {
  private final JsonNode entries;

  private NeighbourTable(JsonNode entries) {
    this.entries = entries;
  }

  public static NeighbourTable parse(String ipJsonNeigh) {
    String s = ipJsonNeigh.isBlank() ? "[]" : ipJsonNeigh;
    return new NeighbourTable(WireJson.read(s, JsonNode.class));
  }

  /** The MAC of {@code ip} on {@code dev}, unless its entry is FAILED or INCOMPLETE (no answer). */
  public Optional<String> macOf(String ip, String dev) {
    for (JsonNode e : entries) {
      if (!ip.equals(e.path("dst").asText()) || (dev != null && !dev.equals(e.path("dev").asText()))) {
        continue;
      }
      String mac = e.path("lladdr").asText("");
      boolean failed = false;
      for (JsonNode st : e.path("state")) {
        failed |= st.asText().equals("FAILED") || st.asText().equals("INCOMPLETE");
      }
      if (!mac.isEmpty() && !failed) {
        return Optional.of(mac.toLowerCase(Locale.ROOT));
      }
    }
    return Optional.empty();
  }
}
