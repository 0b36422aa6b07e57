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
import java.util.BitSet;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
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
    if (majorityGroups == null || majorityGroups.isEmpty()) {
      majorityGroups = Map.of(); // a single-node site's: nothing held per site
    } else {
      TreeMap<String, List<UUID>> byNetwork = new TreeMap<>(); // networks are named alike in every cluster of a site
      majorityGroups.forEach((k, v) -> byNetwork.put(dev.rendezvous.service.domain.SharedText.of(k), v));
      majorityGroups = byNetwork;
    }
    l3ConnectedAddresses = l3ConnectedAddresses == null || l3ConnectedAddresses.isEmpty() ? Map.of()
        : new TreeMap<>(l3ConnectedAddresses);
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

  /** Upstream's smallest majority group (two-node clusters with fencing, not offered here, use two). */
  static final int MIN_GROUP_SIZE = 3;

  /** Computes the groups from the hosts' inventories and connectivity reports. */
  public static MajorityGroups compute(Collection<HostSnapshot> hosts) {
    Map<String, List<UUID>> groups = new TreeMap<>();
    // hashed while collecting (a 1,000-host cluster adds ~1M entries), sorted once at the end
    Map<UUID, Set<String>> l3Addresses = new HashMap<>();
    // upstream orders hosts by their id's text, so the same connectivity always gives the same group and order
    List<HostSnapshot> sorted = new ArrayList<>(hosts);
    sorted.sort(Comparator.comparing(h -> h.id().toString()));
    Map<UUID, Integer> index = new HashMap<>();
    for (int i = 0; i < sorted.size(); i++) {
      index.put(sorted.get(i).id(), i);
    }
    // every host reports every peer's addresses: each distinct address is parsed and placed once
    Map<String, Boolean> ipv4 = new HashMap<>();

    Set<Cidr> networks = new LinkedHashSet<>();
    for (HostSnapshot h : sorted) {
      if (h.inventory() != null) {
        for (String a : h.inventory().allCidrAddresses()) {
          Cidr.parse(a).filter(c -> c.prefix() < c.address().length * 8).ifPresent(c -> networks.add(c.network()));
        }
      }
    }
    for (Cidr net : networks) {
      Map<String, Boolean> inNet = new HashMap<>();
      BitSet[] reaches = reaches(sorted, index, a -> hasAddressIn(a, net), (c, p) -> {
        for (int k = c.l2Start(p); k < c.l2End(p); k++) {
          String ip = c.l2RemoteIpAddress(k);
          if (c.l2Successful(k) && ip != null && inNet.computeIfAbsent(ip, net::containsAddress)) {
            return true;
          }
        }
        return false;
      });
      groups.put(net.toString(), ids(sorted, FullMeshGroups.largest(bothWays(reaches), MIN_GROUP_SIZE)));
    }
    for (boolean v4 : new boolean[] {true, false}) {
      if (sorted.stream().noneMatch(h -> hasFamily(h, v4))) {
        continue;
      }
      BitSet[] reaches = reaches(sorted, index, a -> hasFamily(a, v4), (c, p) -> {
        for (int k = c.l3Start(p); k < c.l3End(p); k++) {
          String ip = c.l3RemoteIpAddress(k);
          if (c.l3Successful(k) && ip != null && Boolean.valueOf(v4).equals(
              ipv4.computeIfAbsent(ip, x -> Cidr.parse(x).map(Cidr::isIpv4).orElse(null)))) {
            return true;
          }
        }
        return false;
      });
      groups.put(v4 ? IPV4 : IPV6, ids(sorted, FullMeshGroups.largest(bothWays(reaches), MIN_GROUP_SIZE)));
    }
    for (HostSnapshot a : hosts) {
      if (a.connectivity() == null) {
        continue;
      }
      ConnectivityReport c = a.connectivity();
      for (int p = 0; p < c.peerCount(); p++) {
        UUID peer = null;
        for (int k = c.l3Start(p); k < c.l3End(p); k++) {
          String ip = c.l3RemoteIpAddress(k);
          if (c.l3Successful(k) && ip != null && (peer != null || (peer = c.peerId(p)) != null)) {
            l3Addresses.computeIfAbsent(peer, x -> new java.util.HashSet<>()).add(ip);
          }
        }
      }
    }
    Map<UUID, List<String>> l3 = new TreeMap<>();
    l3Addresses.forEach((k, v) -> l3.put(k, List.copyOf(new TreeSet<>(v))));
    return new MajorityGroups(groups, l3);
  }

  /** Per host (by index), the peers it reports reached; only hosts that are {@code member}s report. */
  private static BitSet[] reaches(List<HostSnapshot> sorted, Map<UUID, Integer> index,
      java.util.function.Predicate<HostSnapshot> member, PeerReached reached) {
    BitSet[] out = new BitSet[sorted.size()];
    for (int i = 0; i < sorted.size(); i++) {
      out[i] = new BitSet();
      HostSnapshot a = sorted.get(i);
      if (a.connectivity() == null || !member.test(a)) {
        continue;
      }
      ConnectivityReport c = a.connectivity();
      for (int p = 0; p < c.peerCount(); p++) {
        UUID peer = c.peerId(p);
        Integer j = peer == null ? null : index.get(peer);
        if (j != null && j != i && reached.test(c, p)) {
          out[i].set(j);
        }
      }
    }
    return out;
  }

  /** Whether a report's peer (by index) counts as reached. */
  private interface PeerReached {
    boolean test(ConnectivityReport report, int peer);
  }

  /** Connected means reached both ways. */
  private static BitSet[] bothWays(BitSet[] reaches) {
    BitSet[] out = new BitSet[reaches.length];
    for (int i = 0; i < reaches.length; i++) {
      out[i] = new BitSet();
      for (int j = reaches[i].nextSetBit(0); j >= 0; j = reaches[i].nextSetBit(j + 1)) {
        if (reaches[j].get(i)) {
          out[i].set(j);
        }
      }
    }
    return out;
  }

  private static List<UUID> ids(List<HostSnapshot> sorted, BitSet members) {
    List<UUID> out = new ArrayList<>(members.cardinality());
    for (int i = members.nextSetBit(0); i >= 0; i = members.nextSetBit(i + 1)) {
      out.add(sorted.get(i).id());
    }
    return List.copyOf(out);
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
}
