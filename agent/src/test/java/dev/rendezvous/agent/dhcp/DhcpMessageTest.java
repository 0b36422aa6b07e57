package dev.rendezvous.agent.dhcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.agent.netcheck.Ipv4Network;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The wire form (RFC 2131) and the lease text; the exchange itself is proven against dnsmasq in NetnsEndToEndTest. */
class DhcpMessageTest {
  private static final byte[] MAC = DhcpClient.parseMac("00:1a:4a:12:34:56");

  @Test
  void aRequestIsABootpMessageFromTheVipsMacAskingForABroadcastAnswer() {
    byte[] wire = DhcpMessage.request(DhcpMessage.DISCOVER, 0x01020304, MAC, Map.of()).encode();
    assertTrue(wire.length >= 300, "BOOTP's minimum size");
    assertEquals(1, wire[0]); // BOOTREQUEST
    assertEquals(1, wire[1]); // Ethernet
    assertEquals(6, wire[2]);
    assertEquals(0x80, wire[10] & 0xff); // the broadcast flag
    assertArrayEquals(MAC, java.util.Arrays.copyOfRange(wire, 28, 34)); // chaddr
    assertArrayEquals(new byte[] {99, (byte) 130, 83, 99}, java.util.Arrays.copyOfRange(wire, 236, 240));
    DhcpMessage back = DhcpMessage.decode(wire, wire.length);
    assertEquals(DhcpMessage.DISCOVER, back.messageType());
    assertEquals(0x01020304, back.xid());
    byte[] clientId = back.options().get(DhcpMessage.OPT_CLIENT_ID);
    assertEquals(1, clientId[0]);
    assertArrayEquals(MAC, java.util.Arrays.copyOfRange(clientId, 1, 7));
  }

  @Test
  void anAckIsReadIntoALeaseInDhclientsForm() {
    Map<Integer, byte[]> o = new LinkedHashMap<>();
    o.put(DhcpMessage.OPT_MESSAGE_TYPE, new byte[] {DhcpMessage.ACK});
    o.put(DhcpMessage.OPT_SERVER_ID, DhcpMessage.bytes(Ipv4Network.toInt("10.250.0.1")));
    o.put(DhcpMessage.OPT_LEASE_TIME, DhcpMessage.bytes(600));
    o.put(DhcpMessage.OPT_SUBNET_MASK, DhcpMessage.bytes(Ipv4Network.toInt("255.255.255.0")));
    o.put(DhcpMessage.OPT_ROUTERS, DhcpMessage.bytes(Ipv4Network.toInt("10.250.0.1")));
    byte[] wire = new DhcpMessage(DhcpMessage.BOOTREPLY, 7, DhcpMessage.BROADCAST, 0, Ipv4Network.toInt("10.250.0.223"),
        MAC, o).encode();
    DhcpMessage ack = DhcpMessage.decode(wire, wire.length);
    DhcpLease lease = DhcpLease.of("api", ack, Instant.parse("2026-11-29T08:00:00Z"));
    assertEquals("10.250.0.223", lease.addressText());
    assertEquals("lease {\n  interface \"api\";\n  fixed-address 10.250.0.223;\n  option subnet-mask 255.255.255.0;\n"
        + "  option routers 10.250.0.1;\n  option dhcp-lease-time 600;\n  option dhcp-message-type 5;\n"
        + "  option dhcp-server-identifier 10.250.0.1;\n  renew 0 2026/11/29 08:05:00;\n  rebind 0 2026/11/29 08:08:45;\n"
        + "  expire 0 2026/11/29 08:10:00;\n}\n", lease.text());
    assertEquals(Optional.of("10.250.0.223"), DhcpLease.fixedAddress(lease.text()));
    assertEquals(Optional.empty(), DhcpLease.fixedAddress("lease {\n}\n"));
  }

  @Test
  void whatIsNoDhcpMessageOrNoMacIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> DhcpMessage.decode(new byte[100], 100));
    assertThrows(IllegalArgumentException.class, () -> DhcpMessage.decode(new byte[300], 300)); // no magic cookie
    assertThrows(IllegalArgumentException.class, () -> DhcpClient.parseMac("00:1a:4a:12:34"));
    assertThrows(IllegalArgumentException.class, () -> DhcpClient.parseMac("00:1a:4a:12:34:zz"));
  }
}
