package dev.rendezvous.controller.loops;

import dev.rendezvous.controller.cluster.Views;
import dev.rendezvous.controller.service.Host;
import dev.rendezvous.controller.service.HostStage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A host as one round of a loop sees it: the service's record, its expected node name and addresses (parsed once),
 * its stage sequence, and its stage as last read or reported (updated as this round reports moves).
 */
final class ClusterHost {
  final Host host;
  final String nodeName;
  final List<String> ips;
  final List<HostStage> order;
  private volatile HostStage stage;

  ClusterHost(Host host, boolean singleNode) {
    this.host = host;
    Host.Inventory inv = host.parsedInventory();
    this.nodeName = host.expectedNodeName(inv);
    this.ips = Host.addresses(inv);
    this.order = StageOrder.of(host, singleNode);
    this.stage = host.currentStage();
  }

  static List<ClusterHost> of(List<Host> hosts, boolean singleNode) {
    List<ClusterHost> out = new ArrayList<>(hosts.size());
    for (Host h : hosts) {
      out.add(new ClusterHost(h, singleNode));
    }
    return out;
  }

  String id() {
    return host.id();
  }

  HostStage stage() {
    return stage;
  }

  void reached(HostStage s) {
    stage = s;
  }

  boolean canMoveTo(HostStage target) {
    return StageOrder.isForward(order, stage, target);
  }

  /** Upstream's HostMatchByNameOrIPAddress: the node's lowercased name is the host's name, else an InternalIP is. */
  static ClusterHost match(Views.Node node, List<ClusterHost> hosts) {
    String name = node.name().toLowerCase(java.util.Locale.ROOT);
    for (ClusterHost h : hosts) {
      if (name.equals(h.nodeName)) {
        return h;
      }
    }
    for (ClusterHost h : hosts) {
      for (String ip : node.internalIps()) {
        if (h.ips.contains(ip)) {
          return h;
        }
      }
    }
    return null;
  }

  /** Hosts by expected node name. */
  static Map<String, ClusterHost> byNodeName(List<ClusterHost> hosts) {
    Map<String, ClusterHost> m = new java.util.HashMap<>();
    for (ClusterHost h : hosts) {
      if (h.nodeName != null) {
        m.put(h.nodeName, h);
      }
    }
    return m;
  }
}
