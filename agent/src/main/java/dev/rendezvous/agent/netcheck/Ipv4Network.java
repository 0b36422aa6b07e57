package dev.rendezvous.agent.netcheck;

import java.util.ArrayList;
import java.util.List;

/** An IPv4 network in CIDR form with the address arithmetic the network steps need. */
public record Ipv4Network(int address, int prefix) {
  public Ipv4Network {
    if (prefix < 0 || prefix > 32) {
      throw new IllegalArgumentException("prefix must be 0..32, got " + prefix);
    }
  }

  /** Parses "a.b.c.d/p"; a plain address is a /32. */
  public static Ipv4Network parse(String cidr) {
    String s = cidr.trim();
    int slash = s.indexOf('/');
    int prefix = 32;
    if (slash >= 0) {
      try {
        prefix = Integer.parseInt(s.substring(slash + 1));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("not an IPv4 CIDR: '" + cidr + "'");
      }
      s = s.substring(0, slash);
    }
    return new Ipv4Network(toInt(s), prefix);
  }

  public static int toInt(String dotted) {
    String[] parts = dotted.split("\\.", -1);
    if (parts.length != 4) {
      throw new IllegalArgumentException("not an IPv4 address: '" + dotted + "'");
    }
    int v = 0;
    for (String p : parts) {
      int b;
      try {
        b = Integer.parseInt(p);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("not an IPv4 address: '" + dotted + "'");
      }
      if (b < 0 || b > 255 || p.isEmpty() || (p.length() > 1 && p.startsWith("0"))) {
        throw new IllegalArgumentException("not an IPv4 address: '" + dotted + "'");
      }
      v = (v << 8) | b;
    }
    return v;
  }

  public static String toDotted(int v) {
    return ((v >>> 24) & 255) + "." + ((v >>> 16) & 255) + "." + ((v >>> 8) & 255) + "." + (v & 255);
  }

  public static boolean isIpv4(String s) {
    try {
      toInt(s);
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  public int mask() {
    return prefix == 0 ? 0 : -1 << (32 - prefix);
  }

  public int network() {
    return address & mask();
  }

  /** True when the address part has no host bits ("10.0.0.0/24", not "10.0.0.5/24"). */
  public boolean isCanonical() {
    return address == network();
  }

  public long size() {
    return 1L << (32 - prefix);
  }

  public boolean contains(String ip) {
    return (toInt(ip) & mask()) == network();
  }

  /** Splits into networks of {@code newPrefix} (or returns itself when already as small). */
  public List<Ipv4Network> split(int newPrefix) {
    if (newPrefix <= prefix) {
      return List.of(new Ipv4Network(network(), prefix));
    }
    List<Ipv4Network> parts = new ArrayList<>();
    long step = 1L << (32 - newPrefix);
    for (long a = Integer.toUnsignedLong(network()); a < Integer.toUnsignedLong(network()) + size(); a += step) {
      parts.add(new Ipv4Network((int) a, newPrefix));
    }
    return parts;
  }

  /** Every address of the network, network and broadcast included (as upstream's nmap listing). */
  public List<String> addresses() {
    List<String> all = new ArrayList<>((int) size());
    for (long i = 0; i < size(); i++) {
      all.add(toDotted((int) (network() + i)));
    }
    return all;
  }

  @Override
  public String toString() {
    return toDotted(network()) + "/" + prefix;
  }
}
