package dev.rendezvous.service.domain.host;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import java.io.IOException;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.UUID;

/**
 * A connectivity report's entries as they are read, peer by peer, into growing columns: filled from the records
 * ({@link #of(List)}) or streamed from the agent's JSON ({@link Reader}) without building a record per peer and per
 * measurement (a 1,000-host cluster's report is ~3,000 of them, and every host sends one per refresh).
 */
final class ConnectivityEntries {
  int peers;
  Object[] ids = new Object[16];
  int[] l2Ends = new int[16];
  int[] l3Ends = new int[16];
  int[] mtuEnds = new int[16];
  int k2;
  String[] nic2 = new String[16];
  String[] out2 = new String[16];
  String[] ip2 = new String[16];
  String[] mac2 = new String[16];
  final BitSet ok2 = new BitSet();
  int k3;
  String[] nic3 = new String[16];
  String[] ip3 = new String[16];
  double[] rtt = new double[16];
  double[] loss = new double[16];
  final BitSet ok3 = new BitSet();
  int km;
  String[] nicM = new String[16];
  String[] ipM = new String[16];
  final BitSet okM = new BitSet();

  static ConnectivityEntries of(List<ConnectivityReport.RemoteHost> remoteHosts) {
    ConnectivityEntries e = new ConnectivityEntries();
    for (ConnectivityReport.RemoteHost r : remoteHosts) {
      for (ConnectivityReport.L2 x : r.l2Connectivity()) {
        e.l2(x.outgoingNic(), x.outgoingIpAddress(), x.remoteIpAddress(), x.remoteMac(), x.successful());
      }
      for (ConnectivityReport.L3 x : r.l3Connectivity()) {
        e.l3(x.outgoingNic(), x.remoteIpAddress(), x.successful(), x.averageRttMs(), x.packetLossPercentage());
      }
      for (ConnectivityReport.Mtu x : r.mtuReport()) {
        e.mtu(x.outgoingNic(), x.remoteIpAddress(), x.mtuSuccessful());
      }
      e.endPeer(r.hostId());
    }
    return e;
  }

  void l2(String nic, String outgoingIp, String remoteIp, String remoteMac, boolean successful) {
    if (k2 == nic2.length) {
      int c = 2 * k2;
      nic2 = Arrays.copyOf(nic2, c);
      out2 = Arrays.copyOf(out2, c);
      ip2 = Arrays.copyOf(ip2, c);
      mac2 = Arrays.copyOf(mac2, c);
    }
    nic2[k2] = nic;
    out2[k2] = outgoingIp;
    ip2[k2] = remoteIp;
    mac2[k2] = remoteMac;
    ok2.set(k2++, successful);
  }

  void l3(String nic, String remoteIp, boolean successful, double averageRttMs, double packetLossPercentage) {
    if (k3 == nic3.length) {
      int c = 2 * k3;
      nic3 = Arrays.copyOf(nic3, c);
      ip3 = Arrays.copyOf(ip3, c);
      rtt = Arrays.copyOf(rtt, c);
      loss = Arrays.copyOf(loss, c);
    }
    nic3[k3] = nic;
    ip3[k3] = remoteIp;
    rtt[k3] = averageRttMs;
    loss[k3] = packetLossPercentage;
    ok3.set(k3++, successful);
  }

  void mtu(String nic, String remoteIp, boolean successful) {
    if (km == nicM.length) {
      nicM = Arrays.copyOf(nicM, 2 * km);
      ipM = Arrays.copyOf(ipM, 2 * km);
    }
    nicM[km] = nic;
    ipM[km] = remoteIp;
    okM.set(km++, successful);
  }

  /** The entries since the last peer are this one's (an agent may name no host id: null). */
  void endPeer(UUID hostId) {
    if (peers == ids.length) {
      int c = 2 * peers;
      ids = Arrays.copyOf(ids, c);
      l2Ends = Arrays.copyOf(l2Ends, c);
      l3Ends = Arrays.copyOf(l3Ends, c);
      mtuEnds = Arrays.copyOf(mtuEnds, c);
    }
    ids[peers] = hostId; // shared by the report for what it keeps
    l2Ends[peers] = k2;
    l3Ends[peers] = k3;
    mtuEnds[peers++] = km;
  }

  /** No spare words: the cache keeps it. */
  static BitSet trim(BitSet bits) {
    return BitSet.valueOf(bits.toLongArray());
  }

  /**
   * Reads the agent's JSON straight into columns. Lenient and strict as the records are: unknown fields and null
   * entries are passed over, a missing list is empty; a value of the wrong type fails with its path
   * ({@code remote_hosts[3].l3_connectivity[0].average_rtt_ms}), its conversion left to Jackson as for the records.
   */
  static final class Reader extends JsonDeserializer<ConnectivityReport> {
    @Override
    public ConnectivityReport deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      if (!p.isExpectedStartObjectToken()) {
        return (ConnectivityReport) ctxt.handleUnexpectedToken(ConnectivityReport.class, p);
      }
      ConnectivityEntries e = new ConnectivityEntries();
      // looked up once per report: Jackson builds a UUID deserializer on every readValue (a quarter of the parse)
      JsonDeserializer<Object> ids = ctxt.findRootValueDeserializer(ctxt.constructType(UUID.class));
      for (String field = p.nextFieldName(); field != null; field = p.nextFieldName()) {
        JsonToken t = p.nextToken();
        if (!"remote_hosts".equals(field)) {
          p.skipChildren();
          continue;
        }
        if (t == JsonToken.VALUE_NULL) {
          continue;
        }
        try {
          expectArray(p, ctxt);
        } catch (JsonMappingException m) {
          throw JsonMappingException.wrapWithPath(m, ConnectivityReport.class, "remote_hosts");
        }
        int index = 0;
        for (JsonToken x = p.nextToken(); x != JsonToken.END_ARRAY; x = p.nextToken(), index++) {
          if (x == JsonToken.VALUE_NULL) {
            continue;
          }
          try {
            if (x != JsonToken.START_OBJECT) {
              ctxt.handleUnexpectedToken(ConnectivityReport.RemoteHost.class, p);
            }
            peer(p, ctxt, e, ids);
          } catch (JsonMappingException m) {
            throw JsonMappingException.wrapWithPath(JsonMappingException.wrapWithPath(m, List.class, index),
                ConnectivityReport.class, "remote_hosts");
          }
        }
      }
      return new ConnectivityReport(e);
    }

    private static void peer(JsonParser p, DeserializationContext ctxt, ConnectivityEntries e,
        JsonDeserializer<Object> ids) throws IOException {
      UUID hostId = null;
      for (String field = p.nextFieldName(); field != null; field = p.nextFieldName()) {
        JsonToken t = p.nextToken();
        try {
          switch (field) {
            case "host_id" -> hostId = t == JsonToken.VALUE_NULL ? null : (UUID) ids.deserialize(p, ctxt);
            case "l2_connectivity", "l3_connectivity", "mtu_report" -> entries(p, ctxt, e, field);
            default -> p.skipChildren();
          }
        } catch (JsonMappingException m) {
          throw JsonMappingException.wrapWithPath(m, ConnectivityReport.RemoteHost.class, field);
        }
      }
      e.endPeer(hostId);
    }

    private static void entries(JsonParser p, DeserializationContext ctxt, ConnectivityEntries e, String list)
        throws IOException {
      if (p.currentToken() == JsonToken.VALUE_NULL) {
        return;
      }
      expectArray(p, ctxt);
      int index = 0;
      for (JsonToken x = p.nextToken(); x != JsonToken.END_ARRAY; x = p.nextToken(), index++) {
        if (x == JsonToken.VALUE_NULL) {
          continue;
        }
        try {
          if (x != JsonToken.START_OBJECT) {
            ctxt.handleUnexpectedToken(Object.class, p);
          }
          entry(p, ctxt, e, list);
        } catch (JsonMappingException m) {
          throw JsonMappingException.wrapWithPath(m, List.class, index);
        }
      }
    }

    private static void entry(JsonParser p, DeserializationContext ctxt, ConnectivityEntries e, String list)
        throws IOException {
      String nic = null;
      String outgoingIp = null;
      String remoteIp = null;
      String mac = null;
      boolean ok = false;
      double rtt = 0;
      double loss = 0;
      for (String field = p.nextFieldName(); field != null; field = p.nextFieldName()) {
        p.nextToken();
        try {
          switch (field) {
            case "outgoing_nic" -> nic = text(p, ctxt);
            case "outgoing_ip_address" -> outgoingIp = text(p, ctxt);
            case "remote_ip_address" -> remoteIp = text(p, ctxt);
            case "remote_mac" -> mac = text(p, ctxt);
            case "successful", "mtu_successful" -> ok = flag(p, ctxt);
            case "average_rtt_ms" -> rtt = number(p, ctxt);
            case "packet_loss_percentage" -> loss = number(p, ctxt);
            default -> p.skipChildren();
          }
        } catch (JsonMappingException m) {
          throw JsonMappingException.wrapWithPath(m, Object.class, field);
        }
      }
      switch (list) {
        case "l2_connectivity" -> e.l2(nic, outgoingIp, remoteIp, mac, ok);
        case "l3_connectivity" -> e.l3(nic, remoteIp, ok, rtt, loss);
        default -> e.mtu(nic, remoteIp, ok);
      }
    }

    private static void expectArray(JsonParser p, DeserializationContext ctxt) throws IOException {
      if (p.currentToken() != JsonToken.START_ARRAY) {
        ctxt.handleUnexpectedToken(List.class, p);
      }
    }

    private static String text(JsonParser p, DeserializationContext ctxt) throws IOException {
      return switch (p.currentToken()) {
        case VALUE_STRING -> p.getText();
        case VALUE_NULL -> null;
        default -> ctxt.readValue(p, String.class);
      };
    }

    private static boolean flag(JsonParser p, DeserializationContext ctxt) throws IOException {
      return switch (p.currentToken()) {
        case VALUE_TRUE -> true;
        case VALUE_FALSE, VALUE_NULL -> false;
        default -> ctxt.readValue(p, Boolean.TYPE);
      };
    }

    private static double number(JsonParser p, DeserializationContext ctxt) throws IOException {
      return switch (p.currentToken()) {
        case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> p.getDoubleValue();
        case VALUE_NULL -> 0;
        default -> ctxt.readValue(p, Double.TYPE);
      };
    }
  }
}
