package dev.rendezvous.service.domain.cluster;

import dev.rendezvous.service.domain.host.HostSnapshot;
import java.util.AbstractList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.RandomAccess;
import java.util.UUID;

/**
 * A cluster's hosts: an immutable list that also finds a host by id without a scan (validations look peers up for
 * every entry of a host's connectivity report, which in a 1,000-host cluster made each host's validation O(hosts²)).
 */
final class ClusterHosts extends AbstractList<HostSnapshot> implements RandomAccess {
  private final HostSnapshot[] hosts;
  private volatile Map<UUID, HostSnapshot> byId;
  private volatile Map<String, Integer> byHostname;

  private ClusterHosts(HostSnapshot[] hosts) {
    this.hosts = hosts;
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
      Map<UUID, HostSnapshot> m = h.byId;
      if (m == null) {
        m = new HashMap<>();
        for (HostSnapshot s : h.hosts) {
          m.putIfAbsent(s.id(), s);
        }
        h.byId = m;
      }
      return m.get(id);
    }
    for (HostSnapshot s : hosts) {
      if (s.id().equals(id)) {
        return s;
      }
    }
    return null;
  }

  /** How many hosts with an inventory go by this hostname; the count is built on first use. */
  static int countNamed(List<HostSnapshot> hosts, String hostname) {
    if (hosts instanceof ClusterHosts h) {
      Map<String, Integer> m = h.byHostname;
      if (m == null) {
        m = new HashMap<>();
        for (HostSnapshot s : h.hosts) {
          if (s.inventory() != null) {
            m.merge(s.hostname(), 1, Integer::sum);
          }
        }
        h.byHostname = m;
      }
      return m.getOrDefault(hostname, 0);
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
