package dev.rendezvous.agent.dhcp;

import dev.rendezvous.agent.netcheck.Ipv4Network;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A lease acknowledged by a DHCP server, and its text in dhclient's lease-file form: what upstream's agent returns
 * (the service checks it against upstream's lease pattern, keeps it, hands it back for renewal and writes it into the
 * control plane's Ignition for keepalived). Times are UTC, as dhclient writes them ("renew W YYYY/MM/DD HH:MM:SS").
 */
public record DhcpLease(String name, int address, int subnetMask, int router, int dns, int serverId, long leaseSeconds,
    Instant acquired) {

  private static final DateTimeFormatter WHEN = DateTimeFormatter.ofPattern("uuuu/MM/dd HH:mm:ss", Locale.ROOT)
      .withZone(ZoneOffset.UTC);
  private static final Pattern FIXED = Pattern.compile("\\sfixed-address\\s+(\\d+\\.\\d+\\.\\d+\\.\\d+)\\s*;");

  /** The lease an ACK grants; {@code name} is the lease's interface name ("api" or "ingress", as upstream's). */
  public static DhcpLease of(String name, DhcpMessage ack, Instant now) {
    long t = ack.seconds(DhcpMessage.OPT_LEASE_TIME);
    return new DhcpLease(name, ack.yiaddr(), ack.address(DhcpMessage.OPT_SUBNET_MASK),
        ack.address(DhcpMessage.OPT_ROUTERS), ack.address(DhcpMessage.OPT_DNS), ack.address(DhcpMessage.OPT_SERVER_ID),
        t < 0 ? 0 : t, now);
  }

  public String addressText() {
    return Ipv4Network.toDotted(address);
  }

  /** dhclient's lease-file text; renew at half the lease, rebind at 7/8, as RFC 2131's defaults. */
  public String text() {
    StringBuilder s = new StringBuilder("lease {\n");
    s.append("  interface \"").append(name).append("\";\n");
    s.append("  fixed-address ").append(addressText()).append(";\n");
    if (subnetMask != 0) {
      s.append("  option subnet-mask ").append(Ipv4Network.toDotted(subnetMask)).append(";\n");
    }
    if (router != 0) {
      s.append("  option routers ").append(Ipv4Network.toDotted(router)).append(";\n");
    }
    s.append("  option dhcp-lease-time ").append(leaseSeconds).append(";\n");
    s.append("  option dhcp-message-type 5;\n");
    if (dns != 0) {
      s.append("  option domain-name-servers ").append(Ipv4Network.toDotted(dns)).append(";\n");
    }
    if (serverId != 0) {
      s.append("  option dhcp-server-identifier ").append(Ipv4Network.toDotted(serverId)).append(";\n");
    }
    s.append("  renew ").append(when(acquired.plusSeconds(leaseSeconds / 2))).append(";\n");
    s.append("  rebind ").append(when(acquired.plusSeconds(leaseSeconds * 7 / 8))).append(";\n");
    s.append("  expire ").append(when(acquired.plusSeconds(leaseSeconds))).append(";\n");
    return s.append("}\n").toString();
  }

  /** The address a lease text holds (what the client asks for again when it renews), if any. */
  public static Optional<String> fixedAddress(String leaseText) {
    if (leaseText == null) {
      return Optional.empty();
    }
    Matcher m = FIXED.matcher(leaseText);
    return m.find() && Ipv4Network.isIpv4(m.group(1)) ? Optional.of(m.group(1)) : Optional.empty();
  }

  private static String when(Instant t) {
    int weekday = t.atZone(ZoneOffset.UTC).getDayOfWeek().getValue() % 7; // dhclient: 0 is Sunday
    return weekday + " " + WHEN.format(t);
  }
}
