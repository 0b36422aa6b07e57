package dev.rendezvous.agentbased.config;

import dev.rendezvous.service.validation.Net;
import java.util.List;
import java.util.Optional;

/** IP-in-network tests on textual addresses and CIDRs, via the service's parser (no DNS is ever asked). */
final class Addresses {
  private Addresses() {}

  static boolean contains(String cidr, String ip) {
    Optional<Net.Cidr> net = Net.parseCidr(cidr);
    Optional<Net.Cidr> host = Net.parseCidr(ip + "/" + (Net.isIpv6(ip) ? 128 : 32));
    return net.isPresent() && host.isPresent() && net.get().overlaps(host.get());
  }

  static boolean inAny(List<String> cidrs, String ip) {
    return cidrs.stream().anyMatch(c -> contains(c, ip));
  }

  /** The same address written differently (IPv6 zero compression, upper case) counts as the same. */
  static boolean same(String a, String b) {
    if (a == null || b == null) {
      return false;
    }
    if (!Net.isIp(a) || !Net.isIp(b)) {
      return a.equals(b);
    }
    Optional<Net.Cidr> x = Net.parseCidr(a + "/" + (Net.isIpv6(a) ? 128 : 32));
    Optional<Net.Cidr> y = Net.parseCidr(b + "/" + (Net.isIpv6(b) ? 128 : 32));
    return x.isPresent() && x.equals(y);
  }
}
