package dev.rendezvous.agent.inventory;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rendezvous.agent.step.HostRoot;
import dev.rendezvous.agent.wire.Inventory;
import dev.rendezvous.agent.wire.WireJson;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Network interfaces from {@code ip -j -d addr show} (names, MAC, MTU, flags, addresses, link kind) and
 * /sys/class/net/X (carrier, speed, PCI vendor/device; a {@code device} entry means physical).
 *
 * <p>Kept: physical NICs, vlans and bonds (as upstream), and also any other non-loopback link that has a
 * global address (veth, bridge): hosts in network namespaces only have veths, and the service needs
 * their addresses. Link-local addresses (169.254/16, fe80::/10) are dropped as upstream does.
 */
public final class NetworkInterfaces {
  private static final Map<String, String> FLAG_NAMES = Map.of(
      "UP", "up", "BROADCAST", "broadcast", "LOOPBACK", "loopback", "POINTOPOINT", "pointtopoint",
      "MULTICAST", "multicast", "LOWER_UP", "running");

  private NetworkInterfaces() {}

  public static List<Inventory.Interface> parse(String ipJsonAddr, HostRoot root) {
    List<Inventory.Interface> result = new ArrayList<>();
    for (JsonNode link : WireJson.read(ipJsonAddr, JsonNode.class)) {
      String name = link.path("ifname").asText();
      if ("loopback".equals(link.path("link_type").asText()) || hasFlag(link, "LOOPBACK")) {
        continue;
      }
      String sys = "/sys/class/net/" + name;
      boolean physical = root.exists(sys + "/device");
      String kind = link.path("linkinfo").path("info_kind").asText("");
      List<String> v4 = new ArrayList<>();
      List<String> v6 = new ArrayList<>();
      for (JsonNode a : link.path("addr_info")) {
        String ip = a.path("local").asText("");
        String scope = a.path("scope").asText("");
        if (ip.isEmpty() || scope.equals("host") || scope.equals("link") || isLinkLocal(ip)) {
          continue;
        }
        String cidr = ip + "/" + a.path("prefixlen").asInt();
        ("inet".equals(a.path("family").asText()) ? v4 : v6).add(cidr);
      }
      boolean keep = physical || kind.equals("vlan") || kind.equals("bond") || !(v4.isEmpty() && v6.isEmpty());
      if (!keep) {
        continue;
      }
      List<String> flags = new ArrayList<>();
      for (JsonNode f : link.path("flags")) {
        String mapped = FLAG_NAMES.get(f.asText());
        if (mapped != null) {
          flags.add(mapped);
        }
      }
      String mac = link.path("permaddr").asText(link.path("address").asText(""));
      long speed = root.read(sys + "/speed").map(NetworkInterfaces::parseLong).orElse(0L);
      result.add(new Inventory.Interface(
          name,
          mac.toLowerCase(Locale.ROOT),
          List.copyOf(v4),
          List.copyOf(v6),
          link.path("mtu").asInt(),
          List.copyOf(flags),
          root.read(sys + "/carrier").map("1"::equals).orElse(false),
          speed,
          physical ? "physical" : (kind.isEmpty() ? "virtual" : kind),
          root.read(sys + "/device/vendor").orElse(null),
          root.read(sys + "/device/device").orElse(null),
          null,
          null));
    }
    return result;
  }

  private static boolean hasFlag(JsonNode link, String flag) {
    for (JsonNode f : link.path("flags")) {
      if (flag.equals(f.asText())) {
        return true;
      }
    }
    return false;
  }

  static boolean isLinkLocal(String ip) {
    String l = ip.toLowerCase(Locale.ROOT);
    return l.startsWith("169.254.") || l.startsWith("fe8") || l.startsWith("fe9") || l.startsWith("fea")
        || l.startsWith("feb");
  }

  private static Long parseLong(String s) {
    try {
      return Long.parseLong(s.trim());
    } catch (NumberFormatException e) {
      return 0L;
    }
  }
}
