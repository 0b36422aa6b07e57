package dev.rendezvous.agent.netcheck;

import java.net.InetAddress;
import java.net.UnknownHostException;

/** An interface address with its prefix ("192.0.2.2/24", "fd00::2/64"): which remote addresses are on-link. */
public record IpPrefix(InetAddress address, int prefix) {

  /** Parses a CIDR of either family; only literals are accepted (no DNS lookups). */
  public static IpPrefix parse(String cidr) {
    int slash = cidr.indexOf('/');
    String ip = slash < 0 ? cidr : cidr.substring(0, slash);
    InetAddress a = literal(ip);
    int prefix = slash < 0 ? a.getAddress().length * 8 : Integer.parseInt(cidr.substring(slash + 1));
    return new IpPrefix(a, prefix);
  }

  /** The address of a literal IP string; throws IllegalArgumentException for anything else. */
  public static InetAddress literal(String ip) {
    String s = ip.trim();
    if (!(s.contains(":") || s.matches("\\d{1,3}(\\.\\d{1,3}){3}"))) {
      throw new IllegalArgumentException("not an IP address: '" + ip + "'");
    }
    try {
      return InetAddress.getByName(s); // a literal: parsed, never resolved
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("not an IP address: '" + ip + "'");
    }
  }

  /** The address without its prefix, as text. */
  public String ip() {
    String s = address.getHostAddress();
    return s.contains(":") ? dev.rendezvous.agent.inventory.Ipv6Text.canonical(s) : s;
  }

  public boolean isIpv4() {
    return address.getAddress().length == 4;
  }

  public boolean contains(String ip) {
    byte[] other;
    try {
      other = literal(ip).getAddress();
    } catch (IllegalArgumentException e) {
      return false;
    }
    byte[] mine = address.getAddress();
    if (other.length != mine.length) {
      return false;
    }
    int bits = prefix;
    for (int i = 0; i < mine.length && bits > 0; i++, bits -= 8) {
      int mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
      if ((mine[i] & mask) != (other[i] & mask)) {
        return false;
      }
    }
    return true;
  }
}
