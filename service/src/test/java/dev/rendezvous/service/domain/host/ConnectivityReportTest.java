package dev.rendezvous.service.domain.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.service.domain.planning.StepOutputs;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The columnar report reads back exactly what the agent sent, entry by entry and as JSON. */
class ConnectivityReportTest {
  private static final UUID A = UUID.fromString("a0000000-0000-0000-0000-000000000002");
  private static final UUID B = UUID.fromString("a0000000-0000-0000-0000-000000000003");

  // peer A: two L2 entries, one L3, no MTU; a peer without id: nothing; peer B: one of each, failed
  private static final String REPORT = """
      {"remote_hosts":[
        {"host_id":"a0000000-0000-0000-0000-000000000002",
         "l2_connectivity":[
           {"outgoing_nic":"enp1s0","outgoing_ip_address":"192.168.111.21","remote_ip_address":"192.168.111.22","remote_mac":"00:0e:0f:a1:38:02","successful":true},
           {"outgoing_nic":"enp2s0","outgoing_ip_address":"10.0.0.21","remote_ip_address":"10.0.0.22","remote_mac":"00:0e:0f:a1:38:03","successful":false}],
         "l3_connectivity":[{"outgoing_nic":"enp1s0","remote_ip_address":"192.168.111.22","successful":true,"average_rtt_ms":0.39,"packet_loss_percentage":0.0}]},
        {"l2_connectivity":[],"unknown":1},
        {"host_id":"a0000000-0000-0000-0000-000000000003",
         "l2_connectivity":[{"outgoing_nic":"enp1s0","outgoing_ip_address":"192.168.111.21","remote_ip_address":"192.168.111.23","remote_mac":"00:0e:0f:a1:38:04","successful":false}],
         "l3_connectivity":[{"outgoing_nic":"enp1s0","remote_ip_address":"192.168.111.23","successful":false,"average_rtt_ms":120.5,"packet_loss_percentage":12.5}],
         "mtu_report":[{"outgoing_nic":"enp1s0","remote_ip_address":"192.168.111.23","mtu_successful":false}]}]}
      """;

  @Test
  void readsEveryPeerAndEntryByIndex() {
    ConnectivityReport r = StepOutputs.connectivity(REPORT);
    assertEquals(3, r.peerCount());
    assertEquals(A, r.peerId(0));
    assertNull(r.peerId(1));
    assertEquals(B, r.peerId(2));
    assertTrue(r.peerIs(0, A));
    assertFalse(r.peerIs(0, B));
    assertFalse(r.peerIs(1, A));

    assertEquals(List.of(0, 2), List.of(r.l2Start(0), r.l2End(0)));
    assertEquals("192.168.111.22", r.l2RemoteIpAddress(0));
    assertTrue(r.l2Successful(0));
    assertEquals("10.0.0.22", r.l2RemoteIpAddress(1));
    assertFalse(r.l2Successful(1));
    assertEquals(r.l2Start(1), r.l2End(1)); // the peer without id reported nothing
    assertEquals(List.of(2, 3), List.of(r.l2Start(2), r.l2End(2)));

    assertEquals(List.of(0, 1), List.of(r.l3Start(0), r.l3End(0)));
    assertEquals(0.39, r.l3AverageRttMs(0));
    assertEquals(120.5, r.l3AverageRttMs(1));
    assertEquals(12.5, r.l3PacketLossPercentage(1));
    assertFalse(r.l3Successful(1));

    assertEquals(0, r.mtuEnd(1));
    assertEquals(List.of(0, 1), List.of(r.mtuStart(2), r.mtuEnd(2)));
    assertEquals("enp1s0", r.mtuOutgoingNic(0));
    assertEquals("192.168.111.23", r.mtuRemoteIpAddress(0));
    assertFalse(r.mtuSuccessful(0));
  }

  @Test
  void recordsAndJsonComeBackAsSent() {
    ConnectivityReport r = StepOutputs.connectivity(REPORT);
    List<ConnectivityReport.RemoteHost> hosts = r.remoteHosts();
    assertEquals(new ConnectivityReport.L2("enp2s0", "10.0.0.21", "10.0.0.22", "00:0e:0f:a1:38:03", false),
        hosts.get(0).l2Connectivity().get(1));
    assertEquals(new ConnectivityReport.L3("enp1s0", "192.168.111.23", false, 120.5, 12.5),
        hosts.get(2).l3Connectivity().get(0));

    ConnectivityReport again = StepOutputs.connectivity(StepOutputs.toJson(r));
    assertEquals(r, again);
    assertEquals(r.hashCode(), again.hashCode());
    assertEquals(hosts, new ConnectivityReport(hosts).remoteHosts());
    assertTrue(StepOutputs.toJson(r).startsWith("{\"remote_hosts\":[{\"host_id\":\"" + A + "\",\"l2_connectivity\":"));
  }

  @Test
  void aChangedMeasurementIsAnotherReport() {
    ConnectivityReport r = StepOutputs.connectivity(REPORT);
    assertNotEquals(r, StepOutputs.connectivity(REPORT.replace("120.5", "120.6")));
    assertNotEquals(r, StepOutputs.connectivity(REPORT.replace("\"mtu_successful\":false", "\"mtu_successful\":true")));
    assertEquals(0, StepOutputs.connectivity("{}").peerCount());
  }

  @Test
  void newTimesLossOrMtuReachTheSamePeersButAnotherAddressOrOutcomeDoesNot() {
    ConnectivityReport r = StepOutputs.connectivity(REPORT);
    assertTrue(ConnectivityReport.sameReach(r, StepOutputs.connectivity(REPORT.replace("120.5", "95.1")
        .replace("\"packet_loss_percentage\":12.5", "\"packet_loss_percentage\":3.0")
        .replace("\"mtu_successful\":false", "\"mtu_successful\":true"))));
    assertTrue(ConnectivityReport.sameReach(null, null));
    assertFalse(ConnectivityReport.sameReach(r, null));
    // B answers on L2 now; A on another address; A's L3 check fails
    assertFalse(ConnectivityReport.sameReach(r, StepOutputs.connectivity(REPORT.replace(
        "\"remote_mac\":\"00:0e:0f:a1:38:04\",\"successful\":false", "\"remote_mac\":\"00:0e:0f:a1:38:04\",\"successful\":true"))));
    assertFalse(ConnectivityReport.sameReach(r, StepOutputs.connectivity(REPORT.replace("10.0.0.22", "10.0.0.99"))));
    assertFalse(ConnectivityReport.sameReach(r, StepOutputs.connectivity(REPORT.replace(
        "\"successful\":true,\"average_rtt_ms\":0.39", "\"successful\":false,\"average_rtt_ms\":0.39"))));
    // a peer less
    assertFalse(ConnectivityReport.sameReach(r, StepOutputs.connectivity(REPORT.replace("{\"l2_connectivity\":[],\"unknown\":1},", ""))));
  }

  /** The usual report: one entry of each kind per peer, the same outgoing NIC and address, no loss. */
  private static String uniform(String... rtts) {
    StringBuilder b = new StringBuilder("{\"remote_hosts\":[");
    for (int i = 0; i < rtts.length; i++) {
      String ip = "192.168.111." + (30 + i);
      b.append(i == 0 ? "" : ",").append("{\"host_id\":\"b0000000-0000-0000-0000-00000000000").append(i)
          .append("\",\"l2_connectivity\":[{\"outgoing_nic\":\"eth0\",\"outgoing_ip_address\":\"192.168.111.21\",")
          .append("\"remote_ip_address\":\"").append(ip).append("\",\"remote_mac\":\"52:54:00:00:00:0").append(i)
          .append("\",\"successful\":true}],\"l3_connectivity\":[{\"outgoing_nic\":\"eth0\",\"remote_ip_address\":\"")
          .append(ip).append("\",\"successful\":true,\"average_rtt_ms\":").append(rtts[i])
          .append(",\"packet_loss_percentage\":0}],\"mtu_report\":[{\"outgoing_nic\":\"eth0\",\"remote_ip_address\":\"")
          .append(ip).append("\",\"mtu_successful\":true}]}");
    }
    return b.append("]}").toString();
  }

  @Test
  void columnsWhoseEntriesAreAllEqualReadBackPerEntry() {
    ConnectivityReport r = StepOutputs.connectivity(uniform("0.4", "0.4", "1.25"));
    assertEquals(3, r.peerCount());
    for (int p = 0; p < 3; p++) {
      assertEquals(List.of(p, p + 1), List.of(r.l2Start(p), r.l2End(p)));
      assertEquals(List.of(p, p + 1), List.of(r.l3Start(p), r.l3End(p)));
      assertEquals(List.of(p, p + 1), List.of(r.mtuStart(p), r.mtuEnd(p)));
      assertEquals("192.168.111." + (30 + p), r.l2RemoteIpAddress(p));
      assertEquals("192.168.111." + (30 + p), r.l3RemoteIpAddress(p));
      assertEquals("eth0", r.mtuOutgoingNic(p));
      assertEquals(0.0, r.l3PacketLossPercentage(p));
    }
    assertEquals(1.25, r.l3AverageRttMs(2));
    assertEquals(new ConnectivityReport.L2("eth0", "192.168.111.21", "192.168.111.31", "52:54:00:00:00:01", true),
        r.remoteHosts().get(1).l2Connectivity().get(0));
    assertEquals(r, StepOutputs.connectivity(StepOutputs.toJson(r)));
    assertNotEquals(r, StepOutputs.connectivity(uniform("0.4", "0.4", "1.5")));
    // a peer's own loss, a second NIC: the columns hold them per entry again
    ConnectivityReport lossy = StepOutputs.connectivity(uniform("0.4", "0.4", "1.25")
        .replaceFirst("\"packet_loss_percentage\":0", "\"packet_loss_percentage\":2.5")
        .replaceFirst("\"outgoing_nic\":\"eth0\"", "\"outgoing_nic\":\"eth1\""));
    assertEquals(2.5, lossy.l3PacketLossPercentage(0));
    assertEquals(0.0, lossy.l3PacketLossPercentage(1));
    assertEquals("eth1", lossy.remoteHosts().get(0).l2Connectivity().get(0).outgoingNic());
    assertEquals("eth0", lossy.remoteHosts().get(1).l2Connectivity().get(0).outgoingNic());
    assertTrue(ConnectivityReport.sameReach(r, lossy));
    // times finer than ping's microseconds are kept as sent too
    ConnectivityReport fine = StepOutputs.connectivity(uniform("0.4", "0.123456789", "1"));
    assertEquals(0.123456789, fine.l3AverageRttMs(1));
    assertEquals(1.0, fine.l3AverageRttMs(2));
    assertEquals(fine, StepOutputs.connectivity(StepOutputs.toJson(fine)));
  }

  @Test
  void reportsOfOneClusterShareTheirPeersIds() {
    ConnectivityReport a = StepOutputs.connectivity(uniform("0.4", "0.5"));
    ConnectivityReport b = StepOutputs.connectivity(uniform("0.7", "0.9"));
    assertSame(a.peerId(1), b.peerId(1));
    assertTrue(a.peerIs(1, UUID.fromString("b0000000-0000-0000-0000-000000000001")));
  }
}
