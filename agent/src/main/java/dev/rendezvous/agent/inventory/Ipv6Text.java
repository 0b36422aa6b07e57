package dev.rendezvous.agent.inventory;

/** RFC 5952 text for IPv6 addresses (Java prints "fd00:0:0:0:0:0:0:1", Linux tools "fd00::1"). */
public final class Ipv6Text {
  private Ipv6Text() {}

  /** Canonical text of an IPv6 literal in any valid form (no zone ids). */
  public static String canonical(String ipv6) {
    String s = ipv6;
    int pct = s.indexOf('%');
    if (pct >= 0) {
      s = s.substring(0, pct);
    }
    byte[] b = dev.rendezvous.agent.netcheck.IpPrefix.literal(s).getAddress();
    int[] groups = new int[8];
    for (int i = 0; i < 8; i++) {
      groups[i] = ((b[2 * i] & 0xff) << 8) | (b[2 * i + 1] & 0xff);
    }
    return format(groups);
  }

  /** The longest run (>= 2) of zero groups becomes "::"; hex is lower-case without leading zeros. */
  public static String format(int[] groups) {
    int bestStart = -1;
    int bestLen = 1;
    for (int i = 0; i < 8; ) {
      if (groups[i] != 0) {
        i++;
        continue;
      }
      int j = i;
      while (j < 8 && groups[j] == 0) {
        j++;
      }
      if (j - i > bestLen) {
        bestStart = i;
        bestLen = j - i;
      }
      i = j;
    }
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 8; i++) {
      if (i == bestStart) {
        sb.append("::");
        i += bestLen - 1;
        continue;
      }
      if (sb.length() > 0 && sb.charAt(sb.length() - 1) != ':') {
        sb.append(':');
      }
      sb.append(Integer.toHexString(groups[i]));
    }
    return sb.toString();
  }
}
