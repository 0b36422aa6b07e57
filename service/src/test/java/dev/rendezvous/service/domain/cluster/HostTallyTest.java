package dev.rendezvous.service.domain.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.service.domain.Fixtures;
import dev.rendezvous.service.domain.host.HostProgress;
import dev.rendezvous.service.domain.host.HostRole;
import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.host.HostStage;
import dev.rendezvous.service.domain.host.HostStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The counts kept one host at a time as a cluster's hosts are replaced and added equal the counts of the same hosts
 * counted afresh, whatever the order of changes (statuses, roles, inventories, stages and clocks moving at random).
 */
class HostTallyTest {
  private static final HostStatus[] STATUSES = HostStatus.values();
  private static final HostRole[] ROLES = HostRole.values();
  private static final long NOW = Fixtures.NOW.getEpochSecond();

  @Test
  void keptCountsEqualCountsAfreshThroughRandomChanges() {
    for (long seed = 1; seed <= 20; seed++) {
      Random rnd = new Random(seed);
      List<HostSnapshot> start = new ArrayList<>();
      for (int i = 1; i <= 6; i++) {
        start.add(Fixtures.host(i, HostStatus.KNOWN).build());
      }
      ClusterContext c = Fixtures.cluster(start).build();
      c.hostTally(); // counted once here; every later tally is this one moved host by host
      int next = 7;
      for (int step = 0; step < 300; step++) {
        if (rnd.nextInt(10) == 0) {
          // as a registration adds it: no status until its state machine ran
          HostSnapshot added = Fixtures.host(next++, HostStatus.DISCOVERING).build();
          c = c.withHost(rnd.nextBoolean() ? added.toBuilder().status(null).build() : changed(added, rnd));
        } else if (rnd.nextInt(5) == 0) {
          List<HostSnapshot> several = new ArrayList<>();
          for (int k = 0; k < 3; k++) {
            several.add(changed(c.hosts().get(rnd.nextInt(c.hosts().size())), rnd));
          }
          c = c.withHostsReplaced(several);
        } else {
          c = c.withHost(changed(c.hosts().get(rnd.nextInt(c.hosts().size())), rnd));
        }
        // asked now and then only: moves pile up on a tally whose clock went stale in between
        if (rnd.nextInt(3) == 0) {
          assertSameCounts(HostTally.of(c.hosts().toArray(HostSnapshot[]::new)), c.hostTally(), "seed " + seed
              + " step " + step);
        }
      }
    }
  }

  @Test
  void theClockSpreadFollowsTheHostAtTheEdgeWhenItMoves() {
    ClusterContext c = Fixtures.cluster(List.of(
        Fixtures.host(1, HostStatus.KNOWN).hostTimestamp(NOW - 300).build(),
        Fixtures.host(2, HostStatus.KNOWN).hostTimestamp(NOW).build(),
        Fixtures.host(3, HostStatus.KNOWN).hostTimestamp(0).build())).build();
    assertEquals(300, c.hostTally().clockSpread());
    ClusterContext synced = c.withHost(c.hosts().get(0).toBuilder().hostTimestamp(NOW - 10).build());
    assertEquals(10, synced.hostTally().clockSpread(), "the earliest host caught up: the next earliest is counted");
    ClusterContext noClock = synced.withHost(synced.hosts().get(1).toBuilder().hostTimestamp(0).build());
    assertEquals(0, noClock.hostTally().clockSpread(), "one host with a clock: no spread");
    assertEquals(300, c.hostTally().clockSpread(), "the first view's counts are its own");
  }

  @Test
  void hostsByStatusAndActiveRole() {
    ClusterContext c = Fixtures.cluster(List.of(
        Fixtures.host(1, HostStatus.KNOWN).role(HostRole.MASTER).build(),
        Fixtures.host(2, HostStatus.DISABLED).role(HostRole.MASTER).build(),
        Fixtures.host(3, HostStatus.INSUFFICIENT).inventory(null).build())).build();
    HostTally t = c.hostTally();
    assertEquals(1, t.withStatus(HostStatus.KNOWN));
    assertEquals(2, t.withStatusIn(List.of(HostStatus.KNOWN, HostStatus.DISABLED)));
    assertEquals(1, t.active(HostRole.MASTER), "the disabled master is not counted");
    assertEquals(1, t.active(HostRole.AUTO_ASSIGN));
    assertEquals(0, t.candidatesWithInventory(), "the one candidate has no inventory");
    assertEquals(2, t.withInventory());
  }

  private static HostSnapshot changed(HostSnapshot h, Random rnd) {
    HostSnapshot.Builder b = h.toBuilder();
    switch (rnd.nextInt(5)) {
      case 0 -> b.status(STATUSES[rnd.nextInt(STATUSES.length)]);
      case 1 -> b.role(ROLES[rnd.nextInt(ROLES.length)]);
      case 2 -> b.inventory(rnd.nextBoolean() ? null : Fixtures.inventoryForHost(1, n -> {}));
      case 3 -> b.progress(rnd.nextBoolean() ? HostProgress.NONE
          : new HostProgress(HostStage.values()[rnd.nextInt(HostStage.values().length)], "", null, null, 0));
      default -> b.hostTimestamp(rnd.nextInt(4) == 0 ? 0 : NOW - rnd.nextInt(5) * 100L);
    }
    return b.build();
  }

  private static void assertSameCounts(HostTally afresh, HostTally kept, String where) {
    for (HostStatus s : STATUSES) {
      assertEquals(afresh.withStatus(s), kept.withStatus(s), where + ": " + s);
    }
    for (HostRole r : ROLES) {
      assertEquals(afresh.active(r), kept.active(r), where + ": " + r);
    }
    assertEquals(afresh.candidatesWithInventory(), kept.candidatesWithInventory(), where);
    assertEquals(afresh.withInventory(), kept.withInventory(), where);
    assertEquals(afresh.withStage(), kept.withStage(), where);
    assertEquals(afresh.clockSpread(), kept.clockSpread(), where + ": clock spread");
    assertTrue(kept.clockSpread() >= 0, where);
  }
}
