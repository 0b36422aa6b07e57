package dev.rendezvous.service.brain;

import dev.rendezvous.service.domain.cluster.ClusterContext;
import dev.rendezvous.service.domain.host.HostRole;
import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.host.Inventory;
import java.util.Collection;
import java.util.Map;
import java.util.UUID;

/**
 * Whether a unit moved what other hosts' plans or the cluster's state read ({@link Work#sharedInputsChanged()}); a
 * unit's own copy: it remembers each host's inventory as last compared.
 */
final class SharedInputs {
  /**
   * As {@link Work#sharedInputsChanged(boolean)}: {@code before} is the cluster as loaded, {@code touched} the hosts
   * the unit holds and {@code loaded} the hosts as loaded.
   */
  boolean changed(ClusterRecord before, ClusterRecord cluster, int hostCount, Collection<HostRecord> touched,
      Map<UUID, HostRecord> loaded, boolean peersOnly) {
    if (cluster != null && before != null && !before.context().equals(cluster.context())
        && (!peersOnly || !sameButMessages(before.context(), cluster.context()))) {
      return true;
    }
    boolean connectivityShared = cluster == null
        || BrainRules.connectivityReadAcrossHosts(cluster.context().status(), hostCount);
    for (HostRecord r : touched) {
      HostRecord b = loaded.get(r.snapshot().id());
      if (b == null) {
        if (peersOnly && unknownToPeers(r.snapshot()) && loaded.size() >= 3) {
          continue;
        }
        return true;
      }
      if (b == r) {
        continue;
      }
      HostSnapshot x = b.snapshot();
      HostSnapshot y = r.snapshot();
      if (x == y) {
        continue;
      }
      if (x.status() != y.status() || x.role() != y.role() || x.suggestedRole() != y.suggestedRole()
          || x.bootstrap() != y.bootstrap()
          || (x.inventory() != y.inventory() && !sameForPeers(y.id(), x.inventory(), y.inventory()))
          || (x.connectivity() != y.connectivity() && connectivityShared
              && !dev.rendezvous.service.domain.host.ConnectivityReport.sameReach(x.connectivity(), y.connectivity()))
          || !java.util.Objects.equals(x.installationDiskPath(), y.installationDiskPath())
          || x.hostTimestamp() != y.hostTimestamp() || !java.util.Objects.equals(x.requestedHostname(), y.requestedHostname())
          // what a host found at the VIPs: the cluster's VIP validations read it (the same answer again moves nothing)
          || !x.vipVerifications().equals(y.vipVerifications()) || !x.vipsFree().equals(y.vipsFree())) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether a host's inventory in this unit reads the same to its peers as the one loaded, asked once per inventory:
   * each settle round and the check for stale peers ask it again of every touched host (a batch of 100 inventories in a
   * 1,000-host cluster compared each several times; ~5 % of its lane).
   */
  private boolean sameForPeers(UUID host, Inventory loadedInventory, Inventory inventory) {
    Map.Entry<Inventory, Boolean> known = peerViews.get(host);
    if (known != null && known.getKey() == inventory) {
      return known.getValue();
    }
    boolean same = Inventory.sameForPeers(loadedInventory, inventory);
    peerViews.put(host, Map.entry(inventory, same));
    return same;
  }

  /** Each host's inventory last compared with the loaded one, and whether it read the same to peers. */
  private final Map<UUID, Map.Entry<Inventory, Boolean>> peerViews = new java.util.HashMap<>();

  /**
   * The same cluster but for its own validation results and status text, which no host's rules read: the
   * network-prefix message counts the hosts (upstream's words), so past 512 hosts in the default networks each
   * registration changed it and asked for a pass over every host.
   */
  private static boolean sameButMessages(ClusterContext a, ClusterContext b) {
    return a.toBuilder().validationsInfo(null).statusInfo("").build()
        .equals(b.toBuilder().validationsInfo(null).statusInfo("").build());
  }

  /** A host its peers' validations cannot tell from nobody yet: no inventory, connectivity, name or role of its own. */
  private static boolean unknownToPeers(HostSnapshot h) {
    return h.inventory() == null && h.connectivity() == null
        && (h.requestedHostname() == null || h.requestedHostname().isEmpty())
        && h.role() == HostRole.AUTO_ASSIGN && (h.suggestedRole() == null || h.suggestedRole() == HostRole.AUTO_ASSIGN)
        && !h.bootstrap();
  }
}
