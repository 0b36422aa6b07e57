package dev.rendezvous.bus;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** Ports picked side by side, as the embedded servers pick theirs, are never the same one. */
class LocalPortsTest {
  @Test
  void portsPickedAtOnceFromManyThreadsAreAllDifferent() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      java.util.List<Future<int[]>> picks = new java.util.ArrayList<>();
      for (int i = 0; i < 200; i++) {
        int n = i % 3 + 1;
        picks.add(pool.submit(() -> LocalPorts.free(n)));
      }
      Set<Integer> seen = new HashSet<>();
      int count = 0;
      for (Future<int[]> f : picks) {
        for (int p : f.get()) {
          seen.add(p);
          count++;
        }
      }
      assertEquals(count, seen.size(), "no port handed out twice");
    } finally {
      pool.shutdownNow();
    }
  }
}
