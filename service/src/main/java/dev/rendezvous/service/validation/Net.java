package dev.rendezvous.service.validation;

import dev.rendezvous.service.domain.Cidr;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Optional;
import java.util.regex.Pattern;

/** IP, CIDR and MAC syntax, parsed without ever touching DNS. */
public final class Net {
  private static final Pattern V4 =
      Pattern.compile("^((25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)$");
  private static final Pattern V6_CHARS = Pattern.compile("^[0-9a-fA-F:.]+$");
  private static final Pattern MAC = Pattern.compile("^([0-9a-fA-F]{2}:){5}[0-9a-fA-F]{2}$");

  private Net() {}

  /** An address family and its bits, for overlap checks. */
  public record Cidr(boolean v6, BigInteger network, int prefix) {
    public int bits() {
      return v6 ? 128 : 32;
    }

    public boolean overlaps(Cidr o) {
      if (v6 != o.v6) {
        return false;
      }
      int p = Math.min(prefix, o.prefix);
      return network.shiftRight(bits() - p).equals(o.network.shiftRight(bits() - p));
    }
  }

  public static boolean isIpv4(String s) {
    return s != null && V4.matcher(s).matches();
  }

  public static boolean isIpv6(String s) {
    if (s == null || !s.contains(":") || !V6_CHARS.matcher(s).matches()) {
      return false;
    }
    try {
      // A literal containing ':' is parsed, never resolved.
      return InetAddress.getByName(s).getAddress().length == 16;
    } catch (UnknownHostException e) {
      return false;
    }
  }

  public static boolean isIp(String s) {
    return isIpv4(s) || isIpv6(s);
  }

  public static boolean isMac(String s) {
    return s != null && MAC.matcher(s).matches();
  }

  public static Optional<Cidr> parseCidr(String s) {
    if (s == null) {
      return Optional.empty();
    }
    int slash = s.indexOf('/');
    if (slash <= 0 || slash != s.lastIndexOf('/')) {
      return Optional.empty();
    }
    String addr = s.substring(0, slash);
    String len = s.substring(slash + 1);
    if (!len.matches("\\d{1,3}")) {
      return Optional.empty();
    }
    int prefix = Integer.parseInt(len);
    boolean v6;
    if (isIpv4(addr)) {
      v6 = false;
    } else if (isIpv6(addr)) {
      v6 = true;
    } else {
      return Optional.empty();
    }
    int bits = v6 ? 128 : 32;
    if (prefix > bits) {
      return Optional.empty();
    }
    try {
      BigInteger value = new BigInteger(1, InetAddress.getByName(addr).getAddress());
      BigInteger mask = BigInteger.ONE.shiftLeft(bits).subtract(BigInteger.ONE)
          .shiftRight(prefix).not().and(BigInteger.ONE.shiftLeft(bits).subtract(BigInteger.ONE));
      return Optional.of(new Cidr(v6, value.and(mask), prefix));
    } catch (UnknownHostException e) {
      return Optional.empty();
    }
  }
}
