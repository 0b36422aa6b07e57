package dev.rendezvous.agent.inventory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.agent.wire.Inventory;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class InventoryTruncationTest {

  static Inventory withDisks(int total, int eligibleEvery) {
    List<Inventory.Disk> disks = new ArrayList<>();
    for (int i = 0; i < total; i++) {
      boolean eligible = i % eligibleEvery == 0;
      disks.add(new Inventory.Disk("/dev/sd" + i, String.format("sd%04d", i), "/dev/sd" + i, null, null, null, "SSD",
          200_000_000_000L, false, false, false, "LUN", "SAN", "S" + i, null, false, "", null, null, null, null,
          Inventory.InstallationEligibility.of(eligible ? List.of() : List.of("Disk has unknown storage controller"))));
    }
    return new Inventory("h", null, null, List.of(), disks, null, null, null, null, List.of(), List.of(), "none", null);
  }

  @Test
  void smallInventoryIsLeftAlone() {
    Inventory inv = withDisks(5, 1);
    assertEquals(inv, InventoryTruncation.apply(inv, 64, InventoryTruncation.DEFAULT_MAX_BYTES));
    assertNull(InventoryTruncation.apply(inv, 64, InventoryTruncation.DEFAULT_MAX_BYTES).truncation());
  }

  @Test
  void capsDisksKeepingEligibleOnesFirst() {
    Inventory out = InventoryTruncation.apply(withDisks(300, 10), 64, InventoryTruncation.DEFAULT_MAX_BYTES);
    assertEquals(64, out.disks().size());
    assertTrue(out.disks().subList(0, 30).stream().allMatch(d -> d.installationEligibility().eligible()),
        "all 30 eligible disks kept, first");
    assertEquals("partial", out.truncation().type());
    assertEquals(List.of("disks: kept 64 of 300 (eligible disks first)"), out.truncation().reasons());
  }

  @Test
  void halvesDisksUntilTheOutputFits() {
    Inventory in = withDisks(64, 2);
    long limit = 8_000;
    Inventory out = InventoryTruncation.apply(in, 64, limit);
    assertTrue(InventoryTruncation.size(out) <= limit, "fits: " + InventoryTruncation.size(out));
    assertTrue(out.disks().size() < 64);
    assertTrue(out.disks().stream().allMatch(d -> d.installationEligibility().eligible()));
    assertTrue(out.truncation().reasons().get(0).endsWith("to fit 8000 bytes"), out.truncation().reasons().toString());
  }
}
