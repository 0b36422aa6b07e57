package dev.rendezvous.service.domain.cluster;

import dev.rendezvous.service.domain.DomainConfig;
import dev.rendezvous.service.domain.DomainEvent;
import dev.rendezvous.service.domain.EventSeverity;
import dev.rendezvous.service.domain.host.DiskEligibility;
import dev.rendezvous.service.domain.host.HostRole;
import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.host.HostStatus;
import dev.rendezvous.service.domain.host.Inventory;
import dev.rendezvous.service.domain.validation.HostValidator;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Upstream role auto-assignment (§7): hosts sorted non-GPU first, weakest first; each auto-assign host is
 * suggested master while masters are missing and it qualifies as a master, else arbiter (2-node control
 * plane, qualifying), else worker. User-set roles are never touched.
 */
public final class RoleAssigner {

  private final DomainConfig config;

  public RoleAssigner(DomainConfig config) {
    this.config = config;
  }

  /** New suggested roles (only those that change) and a host_role_updated event for each. */
  public record Suggestions(Map<UUID, HostRole> suggestedRoles, List<DomainEvent> events) {
    public Suggestions {
      suggestedRoles = Map.copyOf(suggestedRoles);
      events = List.copyOf(events);
    }
  }

  /** (cores−4) + 0.1·(usable RAM GiB−16) + 0.004·(eligible disk GiB−100): smaller is weaker. */
  double weight(HostSnapshot h, ClusterContext c) {
    Inventory inv = h.inventory();
    double gib = 1024.0 * 1024 * 1024;
    long usable = inv.memory() == null ? 0 : inv.memory().usableBytes();
    long disks = DiskEligibility.eligibleDisks(inv, config.hardware().worker().diskSizeGb(), c.openshiftVersion(),
        c.cpuArchitecture()).stream().mapToLong(Inventory.Disk::sizeBytes).sum();
    return (inv.cpuCount() - 4) + 0.1 * (usable / gib - 16) + 0.004 * (disks / gib - 100);
  }

  public List<HostSnapshot> sortHosts(ClusterContext c) {
    // each weight once, not once per comparison: it walks the host's disks
    Map<HostSnapshot, Double> weights = new java.util.IdentityHashMap<>();
    c.hosts().forEach(h -> weights.put(h, weight(h, c)));
    List<HostSnapshot> l = new ArrayList<>(c.hosts());
    l.sort(Comparator.comparing((HostSnapshot h) -> !h.inventory().gpus().isEmpty())
        .thenComparingDouble(weights::get));
    return l;
  }

  private static final Suggestions NONE = new Suggestions(Map.of(), List.of());

  public Suggestions suggest(ClusterContext c) {
    // one pass first (this runs in every unit of a big cluster whose hosts' names or roles move): roles are computed
    // only once every host has an inventory, and only while an auto-assign host holds no suggestion; otherwise every
    // host holds a role and there is nothing to sort (weights walk each disk)
    boolean recompute = false;
    for (HostSnapshot h : c.hosts()) {
      if (h.inventory() == null || !h.inventory().isUsable()) {
        return NONE;
      }
      recompute |= h.role() == HostRole.AUTO_ASSIGN
          && (h.suggestedRole() == null || h.suggestedRole() == HostRole.AUTO_ASSIGN);
    }
    if (!recompute) {
      return NONE;
    }
    // every auto-assign host is given its role again, in order. How many hosts hold each role (their own, then as
    // handed out) is kept as roles are handed out rather than counted over every host for each (O(hosts²) per unit in
    // a big cluster); a host being given a role holds none yet, so it is in no count
    int[] holding = new int[HostRole.values().length];
    for (HostSnapshot h : c.hosts()) {
      if (h.role() != HostRole.AUTO_ASSIGN) {
        holding[h.role().ordinal()]++;
      }
    }
    Map<UUID, HostRole> changes = new LinkedHashMap<>();
    List<DomainEvent> events = new ArrayList<>();
    List<HostSnapshot> order = sortHosts(c);
    if (config.bootstrapHostMac() != null) {
      // the configured bootstrap host is a master: handed its role first, so it takes one of the masters' places
      // (only on a site: this runs for every unit of a big cluster)
      order.sort(Comparator.comparing((HostSnapshot h) -> !hasBootstrapMac(h, config)));
    }
    for (HostSnapshot h : order) {
      if (h.role() != HostRole.AUTO_ASSIGN) {
        continue;
      }
      HostRole role = selectRole(h, c, holding);
      holding[role.ordinal()]++;
      if (role != h.suggestedRole()) {
        changes.put(h.id(), role);
        String name = h.nameForMessages();
        events.add(DomainEvent.host("host_role_updated", EventSeverity.INFO, "Host " + name + ": calculated role is " + role,
            h, Map.of("host_name", name, "suggested_role", role.wire())));
      }
    }
    return new Suggestions(changes, events);
  }

  private HostRole selectRole(HostSnapshot h, ClusterContext c, int[] holding) {
    if (c.day2() || h.day2()) {
      return HostRole.WORKER;
    }
    if (hasBootstrapMac(h, config)) {
      return HostRole.MASTER; // upstream's BOOTSTRAP_HOST_MAC: the host running the service is a master
    }
    if (holding[HostRole.MASTER.ordinal()] < c.controlPlaneCount() && qualifies(h, c, HostRole.MASTER)) {
      return HostRole.MASTER;
    }
    if (c.controlPlaneCount() >= 2 && c.controlPlaneCount() < 3 && holding[HostRole.ARBITER.ordinal()] == 0
        && qualifies(h, c, HostRole.ARBITER)) {
      return HostRole.ARBITER;
    }
    return HostRole.WORKER;
  }

  /** The host, evaluated in that role, has the CPU cores and memory the role needs. */
  private boolean qualifies(HostSnapshot h, ClusterContext c, HostRole role) {
    String product = h.inventory().systemVendor() == null ? null : h.inventory().systemVendor().productName();
    var req = config.hardware().forRole(role, c.singleNode(), c.openshiftVersion(), product);
    return h.inventory().cpuCount() >= req.cpuCores()
        && h.inventory().physicalMemoryBytes() >= HostValidator.requiredMemoryBytes(req.ramMib(), h.inventory());
  }

  /**
   * Upstream bootstrap selection: keep an existing one, else a master with the configured bootstrap MAC, else the
   * last master (DB order) in known/preparing.
   */
  public static Optional<UUID> electBootstrap(ClusterContext c, DomainConfig config) {
    Optional<HostSnapshot> existing = c.hosts().stream().filter(HostSnapshot::bootstrap).findFirst();
    if (existing.isPresent()) {
      return Optional.of(existing.get().id());
    }
    Optional<HostSnapshot> pinned = c.hosts().stream()
        .filter(h -> h.effectiveRole() == HostRole.MASTER && hasBootstrapMac(h, config)).findFirst();
    if (pinned.isPresent()) {
      return Optional.of(pinned.get().id());
    }
    UUID last = null;
    for (HostSnapshot h : c.hosts()) {
      if (h.effectiveRole() == HostRole.MASTER
          && (h.status() == HostStatus.KNOWN || h.status() == HostStatus.PREPARING_FOR_INSTALLATION)) {
        last = h.id();
      }
    }
    return Optional.ofNullable(last);
  }

  private static boolean hasBootstrapMac(HostSnapshot h, DomainConfig config) {
    return config.bootstrapHostMac() != null && h.inventory() != null
        && h.inventory().interfaces().stream().anyMatch(i -> config.isBootstrapHostMac(i.macAddress()));
  }
}
