package dev.rendezvous.agent.dhcp;

import dev.rendezvous.agent.netcheck.Ipv4Network;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;

/**
 * Leases an address for a MAC that is not this host's own (a VIP's), as upstream's agent does with a macvlan
 * interface per VIP and dhclient. Here the client speaks DHCP itself from the host's NIC with the VIP's MAC as its
 * hardware address and client identifier, and asks for broadcast answers: the server keys the lease by that MAC and
 * nothing of this host changes (no interface, no address). Chosen because it needs no macvlan driver (this project's
 * test machines have none) and no dhclient; the lease text it returns has dhclient's form.
 *
 * <p>A known address (the previous lease's) is asked for first (INIT-REBOOT); the server acknowledges it or says NAK,
 * then the client asks from scratch (DISCOVER, OFFER, REQUEST, ACK). Requests go to the NIC's network broadcast address,
 * so they leave through that NIC; answers are read on UDP port 68 (shared: SO_REUSEADDR) and matched by transaction
 * id and MAC. Blocking: runs on the agent's step workers.
 */
public final class DhcpClient implements AutoCloseable {
  private static final int SERVER_PORT = 67;
  private static final int CLIENT_PORT = 68;

  private final DatagramSocket socket;
  private final InetSocketAddress to;
  private final Duration answerWait;
  private final int attempts;
  private final Clock clock;
  private final SecureRandom random = new SecureRandom();

  /** {@code broadcast}: the NIC's network broadcast address (or 255.255.255.255 when the NIC has no IPv4 address). */
  public DhcpClient(InetAddress broadcast, Duration answerWait, int attempts, Clock clock) throws IOException {
    DatagramSocket s = new DatagramSocket(null);
    try {
      s.setReuseAddress(true); // a host DHCP client may hold port 68 too
      s.setBroadcast(true);
      s.bind(new InetSocketAddress(CLIENT_PORT));
    } catch (IOException e) {
      s.close();
      throw new IOException("cannot listen on UDP port 68 for DHCP answers: " + e.getMessage(), e);
    }
    this.socket = s;
    this.to = new InetSocketAddress(broadcast, SERVER_PORT);
    this.answerWait = answerWait;
    this.attempts = attempts;
    this.clock = clock;
  }

  /** A lease for {@code mac}; {@code previous} (may be null) is the address to ask for again. */
  public DhcpLease lease(String name, byte[] mac, String previous) throws IOException {
    if (previous != null) {
      int xid = random.nextInt();
      DhcpMessage answer = exchange(DhcpMessage.request(DhcpMessage.REQUEST, xid, mac,
          Map.of(DhcpMessage.OPT_REQUESTED_IP, DhcpMessage.bytes(Ipv4Network.toInt(previous)))), mac, 1);
      if (answer != null && answer.messageType() == DhcpMessage.ACK) {
        return DhcpLease.of(name, answer, clock.instant());
      }
      // NAK (the address is no longer ours) or no answer: ask from scratch
    }
    for (int round = 0; round < 2; round++) {
      int xid = random.nextInt();
      DhcpMessage offer = exchange(DhcpMessage.request(DhcpMessage.DISCOVER, xid, mac, Map.of()), mac, attempts);
      if (offer == null) {
        throw new IOException("no DHCP server answered for MAC " + macText(mac) + " via " + to.getAddress().getHostAddress()
            + " within " + attempts * answerWait.toMillis() / 1000.0 + " s");
      }
      if (offer.messageType() != DhcpMessage.OFFER) {
        continue;
      }
      DhcpMessage ack = exchange(DhcpMessage.request(DhcpMessage.REQUEST, xid, mac, Map.of(
          DhcpMessage.OPT_REQUESTED_IP, DhcpMessage.bytes(offer.yiaddr()),
          DhcpMessage.OPT_SERVER_ID, DhcpMessage.bytes(offer.address(DhcpMessage.OPT_SERVER_ID)))), mac, attempts);
      if (ack != null && ack.messageType() == DhcpMessage.ACK) {
        return DhcpLease.of(name, ack, clock.instant());
      }
    }
    throw new IOException("the DHCP server offered MAC " + macText(mac) + " an address but never acknowledged it");
  }

  /** Sends {@code m} up to {@code tries} times; the first answer to it (OFFER, ACK or NAK), or null. */
  private DhcpMessage exchange(DhcpMessage m, byte[] mac, int tries) throws IOException {
    byte[] out = m.encode();
    byte[] in = new byte[1500];
    for (int i = 0; i < tries; i++) {
      socket.send(new DatagramPacket(out, out.length, to));
      long deadline = clock.millis() + answerWait.toMillis();
      for (long left = answerWait.toMillis(); left > 0; left = deadline - clock.millis()) {
        socket.setSoTimeout((int) Math.max(1, left));
        DatagramPacket p = new DatagramPacket(in, in.length);
        try {
          socket.receive(p);
        } catch (SocketTimeoutException e) {
          break;
        }
        DhcpMessage r;
        try {
          r = DhcpMessage.decode(p.getData(), p.getLength());
        } catch (IllegalArgumentException notDhcp) {
          continue;
        }
        if (r.op() == DhcpMessage.BOOTREPLY && r.xid() == m.xid() && java.util.Arrays.equals(
            java.util.Arrays.copyOf(r.chaddr(), 6), mac)) {
          int type = r.messageType();
          if (type == DhcpMessage.OFFER || type == DhcpMessage.ACK || type == DhcpMessage.NAK) {
            return r;
          }
        }
      }
    }
    return null;
  }

  public static byte[] parseMac(String mac) {
    String[] parts = mac == null ? new String[0] : mac.trim().split("[:-]");
    if (parts.length != 6) {
      throw new IllegalArgumentException("not a MAC address: '" + mac + "'");
    }
    byte[] b = new byte[6];
    for (int i = 0; i < 6; i++) {
      if (parts[i].length() != 2) {
        throw new IllegalArgumentException("not a MAC address: '" + mac + "'");
      }
      b[i] = (byte) Integer.parseInt(parts[i], 16);
    }
    return b;
  }

  static String macText(byte[] mac) {
    StringBuilder s = new StringBuilder();
    for (byte x : mac) {
      s.append(s.length() == 0 ? "" : ":").append(String.format("%02x", x & 0xff));
    }
    return s.toString();
  }

  @Override
  public void close() {
    socket.close();
  }
}
