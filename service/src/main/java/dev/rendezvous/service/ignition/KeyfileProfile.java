package dev.rendezvous.service.ignition;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * One NIC's NetworkManager keyfile as {@link NmStateKeyfiles} builds it from NMState: the connection, its ethernet
 * binding (by MAC, else by name) and one {@link Family} per IP version, rendered in keyfile syntax.
 */
final class KeyfileProfile {
  final String name;
  final String mac;
  Integer mtu;
  Family v4;
  Family v6;

  KeyfileProfile(String name, String mac) {
    this.name = name;
    this.mac = mac;
  }

  String render() {
    StringBuilder out = new StringBuilder()
        .append("[connection]\n")
        .append("id=").append(name).append('\n')
        .append("uuid=").append(UUID.nameUUIDFromBytes((name + "/" + (mac == null ? "name" : mac)).getBytes(StandardCharsets.UTF_8))).append('\n')
        .append("type=ethernet\n")
        .append("autoconnect=true\n")
        .append("autoconnect-priority=1\n");
    if (mac == null) {
      out.append("interface-name=").append(name).append('\n');
    }
    if (mac != null || mtu != null) {
      out.append("\n[ethernet]\n");
    }
    if (mac != null) {
      out.append("mac-address=").append(mac).append('\n');
    }
    if (mtu != null) {
      out.append("mtu=").append(mtu).append('\n');
    }
    v4.render(out);
    v6.render(out);
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
