package dev.rendezvous.service.brain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class BrainMonitorTest {

  @Test
  void theFullPassIsSpreadOverTheMinuteEachKeyOnceInIt() {
    int every = 12; // a 5 s monitor: a full refresh of each key once a minute
    List<WorkKey> keys = new ArrayList<>();
    for (int i = 0; i < 10_000; i++) {
      keys.add(i % 10 == 0 ? WorkKey.unbound(UUID.randomUUID()) : WorkKey.cluster(UUID.randomUUID()));
    }
    int[] perKey = new int[keys.size()];
    int largestPass = 0;
    for (long tick = 100; tick < 100 + every; tick++) {
      int inPass = 0;
      for (int k = 0; k < keys.size(); k++) {
        if (BrainMonitor.inFullPass(keys.get(k), tick, every)) {
          perKey[k]++;
          inPass++;
        }
      }
      largestPass = Math.max(largestPass, inPass);
    }
    for (int n : perKey) {
      assertEquals(1, n, "each key refreshed in full exactly once in a minute of passes");
    }
    // all at once was 10,000 units in one pass; spread, about a twelfth (with the hash's unevenness)
    assertTrue(largestPass < 1_200, "largest pass " + largestPass);
  }
}
