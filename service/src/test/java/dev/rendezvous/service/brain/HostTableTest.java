package dev.rendezvous.service.brain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** A key's hosts advanced unit after unit: the same map as a copy would give, in the same order, the old one intact. */
class HostTableTest {
  private static UUID id(int i) {
    return new UUID(0xabcL, i);
  }

  @Test
  void replacedHostsKeepTheirPlaceNewOnesComeLastAndTheOldTableIsUntouched() {
    Map<UUID, String> rows = new LinkedHashMap<>();
    for (int i = 0; i < 5; i++) {
      rows.put(id(i), "v" + i);
    }
    HostTable<String> t = HostTable.of(rows);
    HostTable<String> next = t.with(new LinkedHashMap<>(Map.of(id(2), "w2")));
    next = next.with(new LinkedHashMap<>(Map.of(id(7), "n7")));
    next = next.with(new LinkedHashMap<>(Map.of(id(7), "n7b", id(0), "w0")));

    assertEquals(List.of(id(0), id(1), id(2), id(3), id(4), id(7)), new ArrayList<>(next.keySet()));
    assertEquals(List.of("w0", "v1", "w2", "v3", "v4", "n7b"), new ArrayList<>(next.values()));
    assertEquals(6, next.size());
    assertEquals("n7b", next.get(id(7)));
    assertTrue(next.containsKey(id(7)));
    assertNull(next.get(id(9)));
    // the table it came from is what it was
    assertEquals(rows, t);
    assertFalse(t.containsKey(id(7)));
    assertSame(t, HostTable.of(t), "a table is not copied again");
    assertSame(next, next.with(Map.of()));
  }

  @Test
  void manyUnitsOfChangesGiveWhatACopyWouldHaveGiven() {
    Map<UUID, Integer> expected = new LinkedHashMap<>();
    for (int i = 0; i < 1000; i++) {
      expected.put(id(i), i);
    }
    HostTable<Integer> t = HostTable.of(expected);
    java.util.Random random = new java.util.Random(7);
    int next = 1000;
    for (int unit = 0; unit < 2000; unit++) {
      Map<UUID, Integer> changes = new LinkedHashMap<>();
      for (int k = 0; k < 1 + random.nextInt(3); k++) {
        UUID key = random.nextInt(10) == 0 ? id(next++) : id(random.nextInt(next));
        changes.put(key, -unit);
      }
      expected.putAll(changes);
      t = t.with(changes);
      if (unit % 97 == 0) {
        assertEquals(new ArrayList<>(expected.entrySet()), new ArrayList<>(t.entrySet()), "after unit " + unit);
      }
    }
    assertEquals(expected.size(), t.size());
    assertEquals(new ArrayList<>(expected.entrySet()), new ArrayList<>(t.entrySet()));
    assertEquals(expected, t);
  }

  @Test
  void aHostHasAValue() {
    HostTable<String> t = HostTable.of(Map.of(id(1), "a"));
    Map<UUID, String> withNull = new LinkedHashMap<>();
    withNull.put(id(2), null);
    assertThrows(NullPointerException.class, () -> t.with(withNull));
  }
}
