package dev.rendezvous.service.domain.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.BitSet;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The majority-group search: full meshes only, the largest first, upstream's tie-break, and polynomial time. */
class FullMeshGroupsTest {

  private static BitSet[] graph(int n) {
    BitSet[] g = new BitSet[n];
    for (int i = 0; i < n; i++) {
      g[i] = new BitSet();
    }
    return g;
  }

  private static void connect(BitSet[] g, int... members) {
    for (int a : members) {
      for (int b : members) {
        if (a != b) {
          g[a].set(b);
        }
      }
    }
  }

  private static BitSet of(int... members) {
    BitSet s = new BitSet();
    for (int m : members) {
      s.set(m);
    }
    return s;
  }

  @Test
  void theLargerOfTwoMeshesWins() {
    BitSet[] g = graph(9);
    connect(g, 0, 1, 2, 3);
    connect(g, 4, 5, 6, 7, 8);
    g[3].set(4); // one link between the meshes does not make them one
    g[4].set(3);
    assertEquals(of(4, 5, 6, 7, 8), FullMeshGroups.largest(g, 3));
  }

  @Test
  void equalMeshesGoToTheLowestHostIndicesAndSmallOnesToNoGroup() {
    BitSet[] g = graph(6);
    connect(g, 3, 4, 5);
    connect(g, 0, 1, 2);
    assertEquals(of(0, 1, 2), FullMeshGroups.largest(g, 3));
    BitSet[] pair = graph(3);
    connect(pair, 0, 1);
    assertEquals(new BitSet(), FullMeshGroups.largest(pair, 3), "two hosts are below upstream's minimum of three");
  }

  @Test
  void aHostReachedOneWayOnlyIsLeftOut() {
    BitSet[] g = graph(4);
    connect(g, 0, 1, 2);
    g[3].set(0); // 3 reaches the others, they never reported 3 (callers pass both-ways links only)
    g[3].set(1);
    g[3].set(2);
    assertEquals(of(0, 1, 2), FullMeshGroups.largest(g, 3));
  }

  /** A 1,000-host cluster whose connectivity is half reported: an exact clique search never came back from this. */
  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aThousandHostsHalfReportedGiveAFullMesh() {
    int n = 1000;
    Random random = new Random(7);
    BitSet[] g = graph(n);
    for (int i = 0; i < n; i++) {
      for (int j = i + 1; j < n; j++) {
        if (random.nextInt(100) < 97) { // 3 % of the pairs not reported yet
          g[i].set(j);
          g[j].set(i);
        }
      }
    }
    BitSet group = FullMeshGroups.largest(g, 3);
    assertTrue(group.cardinality() >= 3, "a group is found: " + group.cardinality());
    for (int a = group.nextSetBit(0); a >= 0; a = group.nextSetBit(a + 1)) {
      for (int b = group.nextSetBit(0); b >= 0; b = group.nextSetBit(b + 1)) {
        assertTrue(a == b || g[a].get(b), "every member reaches every other: " + a + " -> " + b);
      }
    }
  }
}
