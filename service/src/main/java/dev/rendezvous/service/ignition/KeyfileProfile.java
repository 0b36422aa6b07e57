package dev.rendezvous.service.ignition;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * One interface's NetworkManager keyfile as {@link NmStateKeyfiles} builds it from NMState: an ethernet NIC (bound by
 * MAC, else by name), a bond or a VLAN, with one {@link Family} per IP version, rendered in keyfile syntax. A bond's
 * port carries no IP settings (NetworkManager's rule for a port): its controller has them.
 */
final class KeyfileProfile {
  final String name;
  final String mac;
  /** NMState's type: ethernet, bond or vlan. */
  final String type;
  Integer mtu;
  Family v4;
  Family v6;
  /** The bond this ethernet NIC is a port of (null: none). */
  String controller;
  /** A bond's or VLAN's own MAC address (nmstate's mac-address on a virtual interface). */
  String clonedMac;
  /** A bond's mode and options, in NMState's order. */
  String bondMode;
  final Map<String, String> bondOptions = new LinkedHashMap<>();
  /** A VLAN's id and its parent, as NetworkManager takes it: an interface name or the parent profile's UUID. */
  Integer vlanId;
  String vlanParent;
  /** 802.1ad (QinQ) when set; NetworkManager's default 802.1q otherwise. */
  String vlanProtocol;
  int vlanFlags = 1;
  /** As NMState names them, resolved by {@link BondsAndVlans#link}: a bond's ports, a VLAN's base interface. */
  final List<String> ports = new ArrayList<>();
  String vlanBase;

  KeyfileProfile(String name, String mac) {
    this(name, mac, "ethernet");
  }

  KeyfileProfile(String name, String mac, String type) {
    this.name = name;
    this.mac = mac;
    this.type = type;
  }

  /** Stable across renders, so the same NMState gives the same bytes (and a VLAN can name its parent by it). */
  String uuid() {
    String key = type.equals("ethernet") ? name + "/" + (mac == null ? "name" : mac) : name + "/" + type;
    return UUID.nameUUIDFromBytes(key.getBytes(StandardCharsets.UTF_8)).toString();
  }

  String render() {
    StringBuilder out = new StringBuilder()
        .append("[connection]\n")
        .append("id=").append(name).append('\n')
        .append("uuid=").append(uuid()).append('\n')
        .append("type=").append(type).append('\n')
        .append("autoconnect=true\n")
        .append("autoconnect-priority=1\n");
    if (mac == null) {
      out.append("interface-name=").append(name).append('\n');
    }
    if (controller != null) {
      // master/slave-type: the keys every NetworkManager of a supported CoreOS reads (controller/port-type are 1.46+)
      out.append("master=").append(controller).append('\n').append("slave-type=bond\n");
    }
    if (type.equals("bond")) {
      out.append("autoconnect-slaves=1\n"); // activating the bond brings its ports up with it, as nmstate sets it
    }
    if (mac != null || mtu != null || clonedMac != null) {
      out.append("\n[ethernet]\n");
    }
    if (mac != null) {
      out.append("mac-address=").append(mac).append('\n');
    }
    if (clonedMac != null) {
      out.append("cloned-mac-address=").append(clonedMac).append('\n');
    }
    if (mtu != null) {
      out.append("mtu=").append(mtu).append('\n');
    }
    if (bondMode != null) {
      out.append("\n[bond]\nmode=").append(bondMode).append('\n');
      bondOptions.forEach((k, v) -> out.append(k).append('=').append(v).append('\n'));
    }
    if (vlanId != null) {
      out.append("\n[vlan]\nflags=").append(vlanFlags).append('\n').append("id=").append(vlanId).append('\n')
          .append("parent=").append(vlanParent).append('\n');
      if (vlanProtocol != null) {
        out.append("protocol=").append(vlanProtocol).append('\n');
      }
    }
    if (controller == null) {
      v4.render(out);
      v6.render(out);
    }
    return out.toString();
  }

  static final class Family {
    final boolean v6;
    boolean enabled;
    boolean dhcp;
    boolean autoconf;
    boolean ignoreAutoDns;
    final List<String> addresses = new ArrayList<>();
    final List<String[]> routes = new ArrayList<>();
    final List<String> dns = new ArrayList<>();
    final List<String> dnsSearch = new ArrayList<>();
    String gateway;
    Integer defaultMetric;

    Family(boolean v6) {
      this.v6 = v6;
    }

    void render(StringBuilder out) {
      out.append("\n[").append(v6 ? "ipv6" : "ipv4").append("]\n");
      String method;
      if (!enabled) {
        method = "disabled";
      } else if (!addresses.isEmpty()) {
        method = "manual";
      } else if (v6 && !autoconf) {
        method = "dhcp";
      } else {
        method = "auto";
      }
      if (enabled && !addresses.isEmpty() && (dhcp || autoconf)) {
        method = "auto"; // static addresses on top of automatic configuration
      }
      out.append("method=").append(method).append('\n');
      for (int i = 0; i < addresses.size(); i++) {
        out.append("address").append(i + 1).append('=').append(addresses.get(i));
        if (i == 0 && gateway != null) {
          out.append(',').append(gateway);
        }
        out.append('\n');
      }
      if (gateway != null && addresses.isEmpty()) {
        out.append("gateway=").append(gateway).append('\n');
      }
      if (defaultMetric != null) {
        out.append("route-metric=").append(defaultMetric).append('\n');
      }
      for (int i = 0; i < routes.size(); i++) {
        out.append("route").append(i + 1).append('=').append(routes.get(i)[0]).append('\n');
        if (routes.get(i)[1] != null) {
          out.append("route").append(i + 1).append("_options=").append(routes.get(i)[1]).append('\n');
        }
      }
      if (!dns.isEmpty()) {
        out.append("dns=").append(String.join(";", dns)).append(";\n");
      }
      if (!dnsSearch.isEmpty()) {
        out.append("dns-search=").append(String.join(";", dnsSearch)).append(";\n");
      }
      if (enabled && ignoreAutoDns && (dhcp || autoconf)) {
        out.append("ignore-auto-dns=true\n");
      }
      if (v6 && enabled) {
        out.append("addr-gen-mode=eui64\n");
      }
    }
  }
}
