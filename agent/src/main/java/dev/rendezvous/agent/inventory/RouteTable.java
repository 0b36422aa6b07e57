package dev.rendezvous.agent.inventory;

import dev.rendezvous.agent.wire.Inventory;
import java.util.ArrayList;
import java.util.List;

/**
 * Routes of the main table from /proc/net/route (IPv4, little-endian hex) and /proc/net/ipv6_route.
 * Destinations are plain addresses as upstream's netlink listing gives them ("0.0.0.0" / "::" for the
 * default route). IPv6 rows of the local table (RTF_LOCAL), reject routes, multicast and loopback are
 * left out, as they are not in upstream's main-table listing.
 */
public final class RouteTable {
  static final int AF_INET = 2;
  static final int AF_INET6 = 10;
  private static final long RTF_REJECT = 0x0200;
  private static final long RTF_LOCAL = 0x80000000L;

  private RouteTable() {}

  public static List<Inventory.Route> parseIpv4(String procNetRoute) {
    List<Inventory.Route> routes = new ArrayList<>();
    String[] lines = procNetRoute.split("\n");
    for (int i = 1; i < lines.length; i++) {
      String[] f = lines[i].trim().split("\\s+");
      if (f.length < 8 || f[0].equals("lo")) {
        continue;
      }
      long flags = Long.parseLong(f[3], 16);
      if ((flags & RTF_REJECT) != 0) {
        continue;
      }
      routes.add(new Inventory.Route(f[0], littleEndianIpv4(f[2]), littleEndianIpv4(f[1]), AF_INET,
          Integer.parseInt(f[6])));
    }
    return routes;
  }

  public static List<Inventory.Route> parseIpv6(String procNetIpv6Route) {
    List<Inventory.Route> routes = new ArrayList<>();
    for (String line : procNetIpv6Route.split("\n")) {
      String[] f = line.trim().split("\\s+");
      if (f.length < 10 || f[9].equals("lo")) {
        continue;
      }
      long flags = Long.parseLong(f[8], 16);
      if ((flags & (RTF_REJECT | RTF_LOCAL)) != 0 || f[0].startsWith("ff")) {
        continue;
      }
      routes.add(new Inventory.Route(f[9], ipv6(f[4]), ipv6(f[0]), AF_INET6, (int) Long.parseLong(f[5], 16)));
    }
    return routes;
  }

  /** "010200C0" (as /proc/net/route stores 192.0.2.1) → "192.0.2.1". */
  static String littleEndianIpv4(String hex) {
    long v = Long.parseLong(hex, 16);
    return (v & 255) + "." + ((v >> 8) & 255) + "." + ((v >> 16) & 255) + "." + ((v >> 24) & 255);
  }

  static String ipv6(String hex32) {
    int[] groups = new int[8];
    for (int i = 0; i < 8; i++) {
      groups[i] = Integer.parseInt(hex32.substring(4 * i, 4 * i + 4), 16);
    }
    return Ipv6Text.format(groups);
  }
}
