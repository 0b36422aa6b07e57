package dev.rendezvous.service.domain;

import java.util.Optional;

/**
 * An IPv4 or IPv6 network in CIDR form, parsed without any name lookup. Also parses plain addresses
 * ({@code 10.0.0.5}) and interface addresses with a prefix ({@code 10.0.0.5/24}, the inventory form).
 */
public record Cidr(byte[] address, int prefix) {

  /**
   * Texts parsed so far and what they gave (the address array is never written after parsing). A fleet's host
   * validations parse the same few addresses and networks on every refresh (issue 13: a tenth of a 1,000-host
   * cluster's brain lane went to parsing and masking them); emptied when full, so it stays bounded.
   */
  private static final java.util.concurrent.ConcurrentHashMap<String, Optional<Cidr>> PARSED =
      new java.util.concurrent.ConcurrentHashMap<>();
  private static final int PARSED_MAX = 16_384;

  public static Optional<Cidr> parse(String text) {
    if (text == null) {
      return Optional.empty();
    }
    Optional<Cidr> known = PARSED.get(text);
    if (known != null) {
      return known;
    }
    Optional<Cidr> parsed = parseText(text);
    if (PARSED.size() >= PARSED_MAX) {
      PARSED.clear();
    }
    PARSED.put(text, parsed);
    return parsed;
  }

  private static Optional<Cidr> parseText(String text) {
    if (text.isBlank()) {
      return Optional.empty();
    }
    String s = text.trim();
    int slash = s.indexOf('/');
    String addr = slash < 0 ? s : s.substring(0, slash);
    byte[] bytes = parseAddress(addr);
    if (bytes == null) {
      return Optional.empty();
    }
    int max = bytes.length * 8;
    int prefix = max;
    if (slash >= 0) {
      try {
        prefix = Integer.parseInt(s.substring(slash + 1));
      } catch (NumberFormatException e) {
        return Optional.empty();
      }
      if (prefix < 0 || prefix > max) {
        return Optional.empty();
      }
    }
    return Optional.of(new Cidr(bytes, prefix));
  }

  public boolean isIpv4() {
    return address.length == 4;
  }

  /** The network this address/prefix belongs to (host bits cleared). */
  public Cidr network() {
    byte[] masked = new byte[address.length];
    int whole = prefix / 8;
    System.arraycopy(address, 0, masked, 0, whole);
    if (prefix % 8 != 0) {
      masked[whole] = (byte) (address[whole] & lastByteMask(prefix));
    }
    return new Cidr(masked, prefix);
  }

  public boolean contains(Cidr other) {
    return other.address.length == address.length && other.prefix >= prefix
        && samePrefix(address, other.address, prefix);
  }

  public boolean containsAddress(String ip) {
    return parse(ip).map(this::containsAddressOf).orElse(false);
  }

  /** Whether the address of {@code other} (its prefix aside) is in this network. */
  public boolean containsAddressOf(Cidr other) {
    return other.address.length == address.length && samePrefix(address, other.address, prefix);
  }

  /** Whether the first {@code bits} bits of two addresses of one family are equal. */
  private static boolean samePrefix(byte[] a, byte[] b, int bits) {
    int whole = bits / 8;
    for (int i = 0; i < whole; i++) {
      if (a[i] != b[i]) {
        return false;
      }
    }
    if (bits % 8 == 0) {
      return true;
    }
    int m = lastByteMask(bits);
    return (a[whole] & m) == (b[whole] & m);
  }

  /** The mask of the byte a prefix of {@code bits} ends in, when it ends within one. */
  private static int lastByteMask(int bits) {
    return (0xff << (8 - bits % 8)) & 0xff;
  }

  public boolean overlaps(Cidr other) {
    return other.address.length == address.length && (contains(other) || other.contains(this));
  }

  public boolean sameNetwork(Cidr other) {
    return network().equals(other.network());
  }

  public String addressString() {
    if (isIpv4()) {
      return (address[0] & 0xff) + "." + (address[1] & 0xff) + "." + (address[2] & 0xff) + "." + (address[3] & 0xff);
    }
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 16; i += 2) {
      if (i > 0) {
        sb.append(':');
      }
      sb.append(Integer.toHexString(((address[i] & 0xff) << 8) | (address[i + 1] & 0xff)));
    }
    return compressIpv6(sb.toString());
  }

  @Override
  public String toString() {
    return addressString() + "/" + prefix;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Cidr c && c.prefix == prefix && java.util.Arrays.equals(c.address, address);
  }

  @Override
  public int hashCode() {
    return java.util.Arrays.hashCode(address) * 31 + prefix;
  }

  private static String compressIpv6(String full) {
    String[] parts = full.split(":");
    int bestStart = -1;
    int bestLen = 0;
    for (int i = 0; i < parts.length; ) {
      if (parts[i].equals("0")) {
        int j = i;
        while (j < parts.length && parts[j].equals("0")) {
          j++;
        }
        if (j - i > bestLen && j - i > 1) {
          bestStart = i;
          bestLen = j - i;
        }
        i = j;
      } else {
        i++;
      }
    }
    if (bestStart < 0) {
      return full;
    }
    String left = String.join(":", java.util.Arrays.copyOfRange(parts, 0, bestStart));
    String right = String.join(":", java.util.Arrays.copyOfRange(parts, bestStart + bestLen, parts.length));
    return left + "::" + right;
  }

  static byte[] parseAddress(String s) {
    if (s.contains(":")) {
      return parseIpv6(s);
    }
    String[] p = s.split("\\.", -1);
    if (p.length != 4) {
      return null;
    }
    byte[] b = new byte[4];
    for (int i = 0; i < 4; i++) {
      if (p[i].isEmpty() || p[i].length() > 3 || !p[i].chars().allMatch(Character::isDigit)) {
        return null;
      }
      int v = Integer.parseInt(p[i]);
      if (v > 255) {
        return null;
      }
      b[i] = (byte) v;
    }
    return b;
  }

  private static byte[] parseIpv6(String s) {
    int zone = s.indexOf('%');
    if (zone >= 0) {
      s = s.substring(0, zone);
    }
    int dbl = s.indexOf("::");
    if (dbl != s.lastIndexOf("::")) {
      return null;
    }
    String[] head = dbl < 0 ? s.split(":", -1) : (dbl == 0 ? new String[0] : s.substring(0, dbl).split(":", -1));
    String[] tail = dbl < 0 ? new String[0] : (dbl + 2 >= s.length() ? new String[0] : s.substring(dbl + 2).split(":", -1));
    int[] groups = new int[8];
    int total = head.length + tail.length;
    if ((dbl < 0 && total != 8) || total > 8) {
      return null;
    }
    try {
      for (int i = 0; i < head.length; i++) {
        groups[i] = group(head[i]);
      }
      for (int i = 0; i < tail.length; i++) {
        groups[8 - tail.length + i] = group(tail[i]);
      }
    } catch (NumberFormatException e) {
      return null;
    }
    byte[] b = new byte[16];
    for (int i = 0; i < 8; i++) {
      b[2 * i] = (byte) (groups[i] >> 8);
      b[2 * i + 1] = (byte) groups[i];
    }
    return b;
  }

  private static int group(String g) {
    if (g.isEmpty() || g.length() > 4) {
      throw new NumberFormatException(g);
    }
    int v = Integer.parseInt(g, 16);
    if (v < 0) {
      throw new NumberFormatException(g);
    }
    return v;
  }
}
