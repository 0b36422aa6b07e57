package dev.rendezvous.agent.inventory;

import dev.rendezvous.agent.wire.Inventory;
import dev.rendezvous.agent.wire.WireJson;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Bounds the inventory's size. Rule, in order:
 * <ol>
 *   <li>at most {@code maxDisks} disks, eligible ones first (then by name): hosts attached to large SANs
 *       list hundreds of LUNs, and only eligible disks can be chosen for installation;
 *   <li>while the JSON is larger than {@code maxBytes}: halve the disk list (same order);
 *   <li>if still too large: keep only interfaces that have an address and the first 32 routes.
 * </ol>
 * Each cut adds a reason to {@code truncation} {type: partial}; an inventory that fits has no truncation.
 */
public final class InventoryTruncation {
  public static final int DEFAULT_MAX_DISKS = 64;
  public static final long DEFAULT_MAX_BYTES = 1024 * 1024;

  private InventoryTruncation() {}

  public static Inventory apply(Inventory inventory, int maxDisks, long maxBytes) {
    List<String> reasons = new ArrayList<>();
    List<Inventory.Disk> disks = new ArrayList<>(inventory.disks());
    disks.sort(Comparator.comparing((Inventory.Disk d) -> !d.installationEligibility().eligible())
        .thenComparing(Inventory.Disk::name));
    int total = disks.size();
    Inventory out = inventory;
    if (total > maxDisks) {
      disks = disks.subList(0, maxDisks);
      out = out.withDisks(List.copyOf(disks));
      reasons.add("disks: kept " + maxDisks + " of " + total + " (eligible disks first)");
    }
    while (size(out) > maxBytes && disks.size() > 1) {
      disks = disks.subList(0, disks.size() / 2);
      out = out.withDisks(List.copyOf(disks));
    }
    if (out.disks().size() < Math.min(total, maxDisks)) {
      reasons.add("disks: kept " + out.disks().size() + " of " + total + " to fit " + maxBytes + " bytes");
    }
    if (size(out) > maxBytes) {
      List<Inventory.Interface> nics = out.interfaces().stream()
          .filter(i -> !i.ipv4Addresses().isEmpty() || !i.ipv6Addresses().isEmpty()).toList();
      List<Inventory.Route> routes = out.routes().subList(0, Math.min(32, out.routes().size()));
      out = out.withNetwork(nics, routes);
      reasons.add("interfaces: kept " + nics.size() + " with addresses, routes: kept " + routes.size());
    }
    return reasons.isEmpty() ? out : out.withTruncation(new Inventory.Truncation("partial", List.copyOf(reasons)));
  }

  static long size(Inventory inventory) {
    return WireJson.write(inventory).getBytes(StandardCharsets.UTF_8).length;
  }
}
