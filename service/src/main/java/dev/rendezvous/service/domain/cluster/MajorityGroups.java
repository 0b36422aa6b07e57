package dev.rendezvous.service.domain.cluster;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import dev.rendezvous.service.domain.Cidr;
import dev.rendezvous.service.domain.host.ConnectivityReport;
import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.planning.InvalidStepOutputException;
import dev.rendezvous.service.domain.planning.StepOutputs;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

/**
 * The cluster's {@code connectivity_majority_groups}: per network CIDR, the largest set of hosts that all
 * reach each other over L2 inside that CIDR; per address family ("IPv4"/"IPv6"), the largest set that all
 * reach each other over L3. {@code l3_connected_addresses} lists, per host, its addresses that peers reached.
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonIgnoreProperties(ignoreUnknown = true)
public record MajorityGroups(Map<String, List<UUID>> majorityGroups, Map<UUID, List<String>> l3ConnectedAddresses) {

  public static final String IPV4 = "IPv4";
  public static final String IPV6 = "IPv6";

  public MajorityGroups {
    majorityGroups = majorityGroups == null ? Map.of() : new TreeMap<>(majorityGroups);
    l3ConnectedAddresses = l3ConnectedAddresses == null ? Map.of() : new TreeMap<>(l3ConnectedAddresses);
  }

  public List<UUID> groupFor(String key) {
    return majorityGroups.getOrDefault(key, List.of());
  }

  /** The group of the given CIDR, matched as a network (10.0.0.0/24 == 10.0.0.7/24). */
  public List<UUID> groupForNetwork(Cidr network) {
    for (Map.Entry<String, List<UUID>> e : majorityGroups.entrySet()) {
      var parsed = Cidr.parse(e.getKey());
      if (parsed.isPresent() && parsed.get().prefix() == network.prefix() && parsed.get().sameNetwork(network)) {
        return e.getValue();
      }
    }
    return List.of();
  }

  public String toJson() {
    return StepOutputs.toJson(this);
  }

  public static MajorityGroups parse(String json) {
    if (json == null || json.isBlank()) {
      return null;
    }
    try {
      return StepOutputs.JSON.readValue(json, MajorityGroups.class);
    } catch (JsonProcessingException e) {
      throw new InvalidStepOutputException("connectivity_majority_groups", e.getOriginalMessage(), e);
    }
  }

  /** Computes the groups from the hosts' inventories and connectivity reports. */
  public static MajorityGroups compute(Collection<HostSnapshot> hosts) {
    Map<String, List<UUID>> groups = new TreeMap<>();
    Map<UUID, Set<String>> l3Addresses = new TreeMap<>();

    Set<Cidr> networks = new LinkedHashSet<>();
    for (HostSnapshot h : hosts) {
      if (h.inventory() != null) {
        for (String a : h.inventory().allCidrAddresses()) {
          Cidr.parse(a).filter(c -> c.prefix() < c.address().length * 8).ifPresent(c -> networks.add(c.network()));
        }
      }
    }
    for (Cidr net : networks) {
      List<HostSnapshot> members = hosts.stream().filter(h -> hasAddressIn(h, net)).toList();
      Map<UUID, Set<UUID>> edges = new HashMap<>();
      for (HostSnapshot a : members) {
        edges.put(a.id(), new HashSet<>());
      }
      for (HostSnapshot a : members) {
        for (HostSnapshot b : members) {
          if (a != b && l2Reaches(a, b.id(), net) && l2Reaches(b, a.id(), net)) {
            edges.get(a.id()).add(b.id());
          }
        }
      }
      groups.put(net.toString(), maximumClique(edges));
    }
    for (boolean v4 : new boolean[] {true, false}) {
      List<HostSnapshot> members = hosts.stream().filter(h -> hasFamily(h, v4)).toList();
      if (members.isEmpty()) {
        continue;
      }
      Map<UUID, Set<UUID>> edges = new HashMap<>();
      for (HostSnapshot a : members) {
        edges.put(a.id(), new HashSet<>());
      }
      for (HostSnapshot a : members) {
        for (HostSnapshot b : members) {
          if (a != b && l3Reaches(a, b.id(), v4) && l3Reaches(b, a.id(), v4)) {
            edges.get(a.id()).add(b.id());
          }
        }
      }
      groups.put(v4 ? IPV4 : IPV6, maximumClique(edges));
    }
    for (HostSnapshot a : hosts) {
      if (a.connectivity() == null) {
        continue;
      }
      for (ConnectivityReport.RemoteHost r : a.connectivity().remoteHosts()) {
        for (ConnectivityReport.L3 l3 : r.l3Connectivity()) {
          if (l3.successful() && r.hostId() != null && l3.remoteIpAddress() != null) {
            l3Addresses.computeIfAbsent(r.hostId(), k -> new TreeSet<>()).add(l3.remoteIpAddress());
          }
        }
      }
    }
    Map<UUID, List<String>> l3 = new TreeMap<>();
    l3Addresses.forEach((k, v) -> l3.put(k, List.copyOf(v)));
    return new MajorityGroups(groups, l3);
  }

  private static boolean hasAddressIn(HostSnapshot h, Cidr net) {
    if (h.inventory() == null) {
      return false;
    }
    for (String a : h.inventory().allCidrAddresses()) {
      var c = Cidr.parse(a);
      if (c.isPresent() && net.containsAddress(c.get().addressString())) {
        return true;
      }
    }
    return false;
  }

  private static boolean hasFamily(HostSnapshot h, boolean v4) {
    if (h.inventory() == null) {
      return false;
    }
    return h.inventory().interfaces().stream()
        .anyMatch(i -> !(v4 ? i.ipv4Addresses() : i.ipv6Addresses()).isEmpty());
  }

  private static boolean l2Reaches(HostSnapshot from, UUID to, Cidr net) {
    if (from.connectivity() == null) {
      return false;
    }
    for (ConnectivityReport.RemoteHost r : from.connectivity().remoteHosts()) {
      if (to.equals(r.hostId())) {
        for (ConnectivityReport.L2 l2 : r.l2Connectivity()) {
          if (l2.successful() && net.containsAddress(l2.remoteIpAddress())) {
            return true;
          }
        }
      }
    }
    return false;
  }

  private static boolean l3Reaches(HostSnapshot from, UUID to, boolean v4) {
    if (from.connectivity() == null) {
      return false;
    }
    for (ConnectivityReport.RemoteHost r : from.connectivity().remoteHosts()) {
      if (to.equals(r.hostId())) {
        for (ConnectivityReport.L3 l3 : r.l3Connectivity()) {
          var ip = Cidr.parse(l3.remoteIpAddress());
          if (l3.successful() && ip.isPresent() && ip.get().isIpv4() == v4) {
            return true;
          }
        }
      }
    }
    return false;
  }

  /** Largest clique (Bron–Kerbosch with pivot); ties go to the smallest sorted id list, for determinism. */
  static List<UUID> maximumClique(Map<UUID, Set<UUID>> edges) {
    List<List<UUID>> best = new ArrayList<>();
    best.add(List.of());
    bronKerbosch(new TreeSet<>(), new TreeSet<>(edges.keySet()), new TreeSet<>(), edges, best);
    return best.get(0);
  }

  private static void bronKerbosch(
      TreeSet<UUID> r, TreeSet<UUID> p, TreeSet<UUID> x, Map<UUID, Set<UUID>> edges, List<List<UUID>> best) {
    if (p.isEmpty() && x.isEmpty()) {
      List<UUID> candidate = List.copyOf(r);
      List<UUID> current = best.get(0);
      if (candidate.size() > current.size()
          || (candidate.size() == current.size() && compare(candidate, current) < 0)) {
        best.set(0, candidate);
      }
      return;
    }
    if (r.size() + p.size() < best.get(0).size()) {
      return;
    }
    UUID pivot = null;
    int most = -1;
    for (UUID u : union(p, x)) {
      int n = (int) edges.get(u).stream().filter(p::contains).count();
      if (n > most) {
        most = n;
        pivot = u;
      }
    }
    Set<UUID> pivotNeighbours = edges.get(pivot);
    for (UUID v : new ArrayList<>(p)) {
      if (pivotNeighbours.contains(v)) {
        continue;
      }
      TreeSet<UUID> r2 = new TreeSet<>(r);
      r2.add(v);
      TreeSet<UUID> p2 = new TreeSet<>(p);
      p2.retainAll(edges.get(v));
      TreeSet<UUID> x2 = new TreeSet<>(x);
      x2.retainAll(edges.get(v));
      bronKerbosch(r2, p2, x2, edges, best);
      p.remove(v);
      x.add(v);
    }
  }

  private static Set<UUID> union(Set<UUID> a, Set<UUID> b) {
    Set<UUID> u = new TreeSet<>(a);
    u.addAll(b);
    return u;
  }

  private static int compare(List<UUID> a, List<UUID> b) {
    Comparator<UUID> c = Comparator.comparing(UUID::toString);
    for (int i = 0; i < Math.min(a.size(), b.size()); i++) {
      int d = c.compare(a.get(i), b.get(i));
      if (d != 0) {
        return d;
      }
    }
    return Integer.compare(a.size(), b.size());
  }
}
