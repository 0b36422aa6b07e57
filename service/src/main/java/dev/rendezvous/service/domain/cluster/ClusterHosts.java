package dev.rendezvous.service.domain.cluster;

import dev.rendezvous.service.domain.Cidr;
import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.host.Inventory;
import java.util.AbstractList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.RandomAccess;
import java.util.UUID;

/**
 * A cluster's hosts: an immutable list that also finds a host by id without a scan (validations look peers up for
 * every entry of a host's connectivity report, which in a 1,000-host cluster made each host's validation O(hosts²)).
 * A copy with one host replaced ({@link #replaced}) keeps the indexes that still hold: a pass over a 1,000-host
 * cluster replaces host after host, and rebuilding both indexes after each was a tenth of the brain's CPU while the
 * cluster's hosts came in.
 */
final class ClusterHosts extends AbstractList<HostSnapshot> implements RandomAccess {
  private final HostSnapshot[] hosts;
  /**
   * Each id's first position among the first {@code upTo} hosts; the hosts after those (added since the index was
   * built) are looked through one by one until there are too many of them. Never changed once built, so copies share
   * it: a registration into a 1,000-host cluster copied a 1,000-entry map to add one host.
   */
  private record Index(Map<UUID, Integer> positions, int upTo) {}

  private volatile Index byId;
  private volatile NameCounts byHostname;

  /**
   * How many hosts go by each hostname: counts built once ({@code base}) and the names counted otherwise since
   * ({@code changed}, small; folded into a new base past {@link #FOLD} names). Copies share the base: a host renamed
   * in a 1,000-host cluster (each inventory reply of a host whose name moves) copied a 1,000-entry map, a tenth of the
   * brain's lane (scripts/bench-one-cluster 1000 256).
   */
  private record NameCounts(Map<String, Integer> base, Map<String, Integer> changed) {
    static final int FOLD = 64;

    int count(String name) {
      Integer n = changed.get(name);
      return n != null ? n : base.getOrDefault(name, 0);
    }

    /** One host named {@code was} (null: none) now named {@code is} (null: none). */
    NameCounts renamed(String was, String is) {
      if (java.util.Objects.equals(was, is)) {
        return this;
      }
      Map<String, Integer> c = new HashMap<>(changed);
      if (was != null) {
        c.put(was, count(was) - 1);
      }
      if (is != null) {
        c.put(is, (c.containsKey(is) ? c.get(is) : base.getOrDefault(is, 0)) + 1);
      }
      if (c.size() <= FOLD) {
        return new NameCounts(base, c);
      }
      Map<String, Integer> folded = new HashMap<>(base);
      c.forEach((name, n) -> {
        if (n > 0) {
          folded.put(name, n);
        } else {
          folded.remove(name);
        }
      });
      return new NameCounts(folded, Map.of());
    }
  }
  /**
   * Counts over the hosts ({@link HostTally}), null until first asked for; then kept across copies, one host at a time.
   * Several cluster validations ask whether any host has an inventory, how many are ready, how many masters there are:
   * a registration burst scanned every host for each, per unit.
   */
  private volatile HostTally tally;
  /**
   * The addresses (without prefix) on the hosts' interfaces, null until asked for; kept across copies while no replaced
   * host's addresses changed. The VIP validations ask whether a VIP is in use on every unit: each asked every address
   * of every host to be parsed again.
   */
  private volatile java.util.Set<String> addresses;

  private ClusterHosts(HostSnapshot[] hosts) {
    this.hosts = hosts;
  }

  private ClusterHosts(HostSnapshot[] hosts, Index byId, NameCounts byHostname, HostTally tally,
      java.util.Set<String> addresses) {
    this.hosts = hosts;
    this.byId = byId;
    this.byHostname = byHostname;
    this.tally = tally;
    this.addresses = addresses;
  }

  /** {@code t} (null: not counted) moved by one host replaced: from {@code was} (null: added) to {@code is}. */
  private static HostTally moved(HostTally t, HostSnapshot was, HostSnapshot is) {
    return t == null ? null : t.moved(was, is);
  }

  /**
   * These hosts with {@code host} in place of the host of its id, or null when no host has its id (these very hosts
   * when {@code host} is the one held). Positions are unchanged, so the id index carries over; the hostname counts
   * too, unless the host's counted name changed.
   */
  ClusterHosts replaced(HostSnapshot host) {
    java.util.Objects.requireNonNull(host, "host");
    Index ids = index();
    int at = position(ids, host.id());
    if (at < 0) {
      return null;
    }
    HostSnapshot old = hosts[at];
    if (old == host) {
      return this;
    }
    HostSnapshot[] a = hosts.clone();
    a[at] = host;
    NameCounts names = byHostname;
    String was = old.inventory() == null ? null : old.hostname();
    String is = host.inventory() == null ? null : host.hostname();
    if (names != null) {
      names = names.renamed(was, is);
    }
    return new ClusterHosts(a, ids, names, moved(tally, old, host),
        Inventory.sameAddresses(old.inventory(), host.inventory()) ? addresses : null);
  }

  /**
   * These hosts with each of {@code replacements} in place of the host of its id (one copy for all of them; ids not
   * among these hosts are left out), or null when none is found. The hostname counts are dropped when a counted name
   * moved (built again on first use).
   */
  ClusterHosts replacedAll(java.util.Collection<HostSnapshot> replacements) {
    Index ids = index();
    HostSnapshot[] a = null;
    boolean namesHold = true;
    HostTally counted = tally;
    boolean addressesHold = true;
    for (HostSnapshot host : replacements) {
      int at = position(ids, host.id());
      if (at < 0 || hosts[at] == host) {
        continue;
      }
      if (a == null) {
        a = hosts.clone();
      }
      HostSnapshot old = a[at];
      String was = old.inventory() == null ? null : old.hostname();
      String is = host.inventory() == null ? null : host.hostname();
      namesHold &= java.util.Objects.equals(was, is);
      counted = moved(counted, old, host);
      addressesHold &= Inventory.sameAddresses(old.inventory(), host.inventory());
      a[at] = host;
    }
    return a == null ? null
        : new ClusterHosts(a, ids, namesHold ? byHostname : null, counted, addressesHold ? addresses : null);
  }

  /**
   * These hosts with {@code host} added last (its id is not among them): the id index built so far is shared (the
   * new host is found past it), the hostname counts copied only when the host has a name.
   */
  ClusterHosts appended(HostSnapshot host) {
    java.util.Objects.requireNonNull(host, "host");
    HostSnapshot[] a = java.util.Arrays.copyOf(hosts, hosts.length + 1);
    a[hosts.length] = host;
    Index ids = byId; // positions do not move: the index holds for the hosts it covers
    NameCounts names = byHostname;
    if (names != null && host.inventory() != null) {
      names = names.renamed(null, host.hostname());
    }
    boolean noAddresses = host.inventory() == null || host.inventory().allCidrAddresses().isEmpty();
    return new ClusterHosts(a, ids, names, moved(tally, null, host), noAddresses ? addresses : null);
  }

  private Index index() {
    Index m = byId;
    if (m == null || hosts.length - m.upTo() > Math.max(16, (int) Math.sqrt(hosts.length))) {
      Map<UUID, Integer> p = new HashMap<>(hosts.length * 2);
      for (int i = 0; i < hosts.length; i++) {
        p.putIfAbsent(hosts[i].id(), i);
      }
      m = new Index(p, hosts.length);
      byId = m;
    }
    return m;
  }

  /** The first position of the id, or -1. */
  private int position(Index ids, UUID id) {
    Integer at = ids.positions().get(id);
    if (at != null) {
      return at;
    }
    for (int i = ids.upTo(); i < hosts.length; i++) {
      if (hosts[i].id().equals(id)) {
        return i;
      }
    }
    return -1;
  }

  static List<HostSnapshot> of(List<HostSnapshot> hosts) {
    if (hosts == null) {
      return List.of();
    }
    if (hosts instanceof ClusterHosts h) {
      return h;
    }
    HostSnapshot[] a = hosts.toArray(HostSnapshot[]::new);
    for (HostSnapshot h : a) {
      java.util.Objects.requireNonNull(h, "host");
    }
    return new ClusterHosts(a);
  }

  /** The host with this id, or null; the index is built on first use. */
  static HostSnapshot find(List<HostSnapshot> hosts, UUID id) {
    if (hosts instanceof ClusterHosts h) {
      int at = h.position(h.index(), id);
      return at < 0 ? null : h.hosts[at];
    }
    for (HostSnapshot s : hosts) {
      if (s.id().equals(id)) {
        return s;
      }
    }
    return null;
  }

  /** The tally of these hosts, counted on first use, its clock counted again if a move left it unknown. */
  private HostTally tally() {
    HostTally t = tally;
    if (t == null) {
      t = HostTally.of(hosts);
      tally = t;
    } else if (t.clockStale()) {
      t = t.withClock(hosts);
      tally = t;
    }
    return t;
  }

  /** The tally of a cluster's hosts (counted once for a plain list). */
  static HostTally tally(List<HostSnapshot> hosts) {
    return hosts instanceof ClusterHosts h ? h.tally() : HostTally.of(hosts.toArray(HostSnapshot[]::new));
  }

  /** Whether any host has an inventory. */
  static boolean anyWithInventory(List<HostSnapshot> hosts) {
    return tally(hosts).withInventory() > 0;
  }

  /** What the hosts found at a VIP: succeeded, failed or unverified (see {@link ClusterContext#vipVerification}). */
  static String vipVerification(List<HostSnapshot> hosts, String vip) {
    boolean succeeded = false;
    boolean freeSomewhere = false;
    boolean takenSomewhere = false;
    for (HostSnapshot h : hosts) {
      String v = h.vipVerifications().get(vip);
      if ("failed".equals(v)) {
        return "failed";
      }
      succeeded |= "succeeded".equals(v);
      Boolean free = h.vipsFree().get(vip);
      if (free != null) {
        freeSomewhere |= free;
        takenSomewhere |= !free;
      }
    }
    if (succeeded) {
      return "succeeded";
    }
    return takenSomewhere ? "failed" : freeSomewhere ? "succeeded" : "unverified";
  }

  /** Whether an address (without prefix, as {@link Cidr#addressString}) is on an interface of any host. */
  static boolean addressInUse(List<HostSnapshot> hosts, String address) {
    java.util.Set<String> known = hosts instanceof ClusterHosts h ? h.addresses : null;
    if (known == null) {
      java.util.Set<String> in = new java.util.HashSet<>();
      for (HostSnapshot s : hosts) {
        if (s.inventory() != null) {
          for (String a : s.inventory().allCidrAddresses()) {
            Cidr.parse(a).ifPresent(c -> in.add(c.addressString()));
          }
        }
      }
      if (hosts instanceof ClusterHosts h) {
        h.addresses = in;
      }
      known = in;
    }
    return known.contains(address);
  }

  /** How many hosts with an inventory go by this hostname; the count is built on first use. */
  static int countNamed(List<HostSnapshot> hosts, String hostname) {
    if (hosts instanceof ClusterHosts h) {
      NameCounts m = h.byHostname;
      if (m == null) {
        Map<String, Integer> counts = new HashMap<>();
        for (HostSnapshot s : h.hosts) {
          if (s.inventory() != null) {
            counts.merge(s.hostname(), 1, Integer::sum);
          }
        }
        m = new NameCounts(counts, Map.of());
        h.byHostname = m;
      }
      return m.count(hostname);
    }
    int n = 0;
    for (HostSnapshot s : hosts) {
      if (s.inventory() != null && s.hostname().equals(hostname)) {
        n++;
      }
    }
    return n;
  }

  @Override
  public HostSnapshot get(int index) {
    return hosts[index];
  }

  @Override
  public int size() {
    return hosts.length;
  }
}
