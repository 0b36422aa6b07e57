package dev.rendezvous.agent.dhcp;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One BOOTP/DHCPv4 message (RFC 2131, options RFC 2132): what the VIP lease client sends and reads. Options are kept
 * raw by code; the accessors read the few the lease needs.
 */
public record DhcpMessage(int op, int xid, int flags, int ciaddr, int yiaddr, byte[] chaddr, Map<Integer, byte[]> options) {
  public static final int BOOTREQUEST = 1;
  public static final int BOOTREPLY = 2;
  public static final int BROADCAST = 0x8000;

  public static final int DISCOVER = 1;
  public static final int OFFER = 2;
  public static final int REQUEST = 3;
  public static final int ACK = 5;
  public static final int NAK = 6;

  public static final int OPT_SUBNET_MASK = 1;
  public static final int OPT_ROUTERS = 3;
  public static final int OPT_DNS = 6;
  public static final int OPT_DOMAIN_NAME = 15;
  public static final int OPT_REQUESTED_IP = 50;
  public static final int OPT_LEASE_TIME = 51;
  public static final int OPT_MESSAGE_TYPE = 53;
  public static final int OPT_SERVER_ID = 54;
  public static final int OPT_PARAMETERS = 55;
  public static final int OPT_RENEWAL_TIME = 58;
  public static final int OPT_REBINDING_TIME = 59;
  public static final int OPT_CLIENT_ID = 61;

  private static final int COOKIE = 0x63825363;
  private static final int FIXED = 236; // op .. file, before the magic cookie

  /** A client's request from {@code mac} (6 bytes): broadcast flag set, so the server answers where we listen. */
  public static DhcpMessage request(int type, int xid, byte[] mac, Map<Integer, byte[]> extra) {
    Map<Integer, byte[]> o = new LinkedHashMap<>();
    o.put(OPT_MESSAGE_TYPE, new byte[] {(byte) type});
    byte[] clientId = new byte[7];
    clientId[0] = 1; // hardware type: Ethernet
    System.arraycopy(mac, 0, clientId, 1, 6);
    o.put(OPT_CLIENT_ID, clientId);
    o.putAll(extra);
    o.put(OPT_PARAMETERS, new byte[] {OPT_SUBNET_MASK, OPT_ROUTERS, OPT_DNS, OPT_DOMAIN_NAME, OPT_LEASE_TIME,
        OPT_RENEWAL_TIME, OPT_REBINDING_TIME});
    return new DhcpMessage(BOOTREQUEST, xid, BROADCAST, 0, 0, mac, o);
  }

  public byte[] encode() {
    int size = FIXED + 4 + 1;
    for (byte[] v : options.values()) {
      size += 2 + v.length;
    }
    ByteBuffer b = ByteBuffer.allocate(Math.max(size, 300)); // BOOTP's minimum message size
    b.put((byte) op).put((byte) 1).put((byte) 6).put((byte) 0); // Ethernet, 6-byte addresses, no hops
    b.putInt(xid).putShort((short) 0).putShort((short) flags);
    b.putInt(ciaddr).putInt(yiaddr).putInt(0).putInt(0); // siaddr, giaddr
    b.put(Arrays.copyOf(chaddr, 16));
    b.position(FIXED);
    b.putInt(COOKIE);
    options.forEach((code, v) -> b.put((byte) (int) code).put((byte) v.length).put(v));
    b.put((byte) 255);
    return b.array();
  }

  /** Decodes a received datagram; IllegalArgumentException when it is no DHCP message. */
  public static DhcpMessage decode(byte[] data, int length) {
    if (length < FIXED + 4) {
      throw new IllegalArgumentException("too short for a DHCP message: " + length + " bytes");
    }
    ByteBuffer b = ByteBuffer.wrap(data, 0, length);
    int op = b.get() & 0xff;
    b.get();
    int hlen = b.get() & 0xff;
    b.get();
    int xid = b.getInt();
    b.getShort();
    int flags = b.getShort() & 0xffff;
    int ciaddr = b.getInt();
    int yiaddr = b.getInt();
    b.getInt();
    b.getInt();
    byte[] ch = new byte[16];
    b.get(ch);
    b.position(FIXED);
    if (b.getInt() != COOKIE) {
      throw new IllegalArgumentException("no DHCP magic cookie");
    }
    Map<Integer, byte[]> o = new LinkedHashMap<>();
    while (b.hasRemaining()) {
      int code = b.get() & 0xff;
      if (code == 0) {
        continue; // pad
      }
      if (code == 255 || !b.hasRemaining()) {
        break;
      }
      int len = b.get() & 0xff;
      if (len > b.remaining()) {
        throw new IllegalArgumentException("option " + code + " runs past the message");
      }
      byte[] v = new byte[len];
      b.get(v);
      o.merge(code, v, DhcpMessage::concat); // RFC 3396: a long option may be split
    }
    return new DhcpMessage(op, xid, flags, ciaddr, yiaddr, Arrays.copyOf(ch, Math.min(16, hlen)), o);
  }

  public int messageType() {
    byte[] v = options.get(OPT_MESSAGE_TYPE);
    return v == null || v.length != 1 ? 0 : v[0] & 0xff;
  }

  /** An IPv4 address option (the first one of a list), or 0. */
  public int address(int code) {
    byte[] v = options.get(code);
    return v == null || v.length < 4 ? 0 : ByteBuffer.wrap(v).getInt();
  }

  /** A 32-bit seconds option, or -1. */
  public long seconds(int code) {
    byte[] v = options.get(code);
    return v == null || v.length != 4 ? -1 : ByteBuffer.wrap(v).getInt() & 0xffffffffL;
  }

  public static byte[] bytes(int ip) {
    return ByteBuffer.allocate(4).putInt(ip).array();
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
