package dev.rendezvous.service.brain;

import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

/**
 * The large documents agents sent in one unit, as their texts beside what they parsed to. A document the unit still
 * holds when it writes is stored as sent instead of being serialised again: a connectivity report as upstream stores
 * it (serialising them again was 5-7 % of the CPU while a 1,000-host cluster's ~300 KB reports came in), an inventory
 * as the agent's own serialisation of the same document, which keeps what this model does not read (serialising it
 * again was a tenth of the event loops' time at capacity).
 */
final class SentTexts {
  private record Sent(Object parsed, String text) {}

  private final Map<UUID, Sent> connectivity = new HashMap<>();
  private final Map<UUID, Sent> inventory = new HashMap<>();

  void connectivity(UUID hostId, Object report, String text) {
    connectivity.put(hostId, new Sent(report, text));
  }

  void inventory(UUID hostId, Object parsed, String text) {
    inventory.put(hostId, new Sent(parsed, text));
  }

  /** The text {@code held} was parsed from; null when it did not come in this unit (or a later one replaced it). */
  String connectivityOf(UUID hostId, Object held) {
    return textOf(connectivity, hostId, held);
  }

  /** As {@link #connectivityOf} for the inventory. */
  String inventoryOf(UUID hostId, Object held) {
    return textOf(inventory, hostId, held);
  }

  private static String textOf(Map<UUID, Sent> texts, UUID hostId, Object held) {
    Sent sent = texts.get(hostId);
    return sent != null && sent.parsed() == held ? sent.text() : null;
  }
}
