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

  /** Host i of a cluster of n: its report lists every other host in the cluster's order (as the planner sends). */
  private static String clusterReport(int self, int n, java.util.Random rtt, List<Integer> order) {
    StringBuilder b = new StringBuilder("{\"remote_hosts\":[");
    boolean first = true;
    for (int p : order) {
      if (p == self) {
        continue;
      }
      String ip = "10.1.0." + (10 + p);
      String mac = String.format("52:54:00:00:01:%02x", p);
      b.append(first ? "" : ",").append("{\"host_id\":\"").append(peer(p)).append("\",\"l2_connectivity\":[")
          .append("{\"outgoing_nic\":\"eth0\",\"outgoing_ip_address\":\"10.1.0.").append(10 + self)
          .append("\",\"remote_ip_address\":\"").append(ip).append("\",\"remote_mac\":\"").append(mac)
          .append("\",\"successful\":true}],\"l3_connectivity\":[{\"outgoing_nic\":\"eth0\",\"remote_ip_address\":\"")
          .append(ip).append("\",\"successful\":true,\"average_rtt_ms\":")
          .append(String.format(java.util.Locale.ROOT, "%.3f", 0.2 + rtt.nextInt(400) / 1000.0))
          .append(",\"packet_loss_percentage\":0}],\"mtu_report\":[{\"outgoing_nic\":\"eth0\",\"remote_ip_address\":\"")
          .append(ip).append("\",\"mtu_successful\":true}]}");
      first = false;
    }
    return b.append("]}").toString();
  }

  private static UUID peer(int p) {
    return UUID.fromString(String.format("c0000000-0000-0000-0000-%012d", p));
  }

  @Test
  void aClustersReportsAreHeldAsOneAnothersColumnsWithOnePeerSwappedAndReadBackAsSent() {
    int n = 9;
    java.util.Random rtt = new java.util.Random(7);
    List<Integer> order = java.util.stream.IntStream.range(0, n).boxed().toList();
    List<ConnectivityReport> reports = new java.util.ArrayList<>();
    for (int self : List.of(4, 0, 8, 1, 2, 3, 5, 6, 7)) { // the first one parsed is the others' base
      String json = clusterReport(self, n, rtt, order);
      ConnectivityReport r = StepOutputs.connectivity(json);
      reports.add(r);
      assertEquals(n - 1, r.peerCount());
      int k = 0;
      for (int p = 0; p < n; p++) {
        if (p == self) {
          continue;
        }
        assertEquals(peer(p), r.peerId(k));
        assertEquals("10.1.0." + (10 + p), r.l2RemoteIpAddress(k));
        assertEquals("10.1.0." + (10 + p), r.l3RemoteIpAddress(k));
        assertEquals("10.1.0." + (10 + p), r.mtuRemoteIpAddress(k));
        assertEquals(String.format("52:54:00:00:01:%02x", p), r.remoteHosts().get(k).l2Connectivity().get(0).remoteMac());
        k++;
      }
      // as sent, and equal to itself parsed again
      ConnectivityReport again = StepOutputs.connectivity(StepOutputs.toJson(r));
      assertEquals(r, again);
      assertEquals(again, r);
      assertEquals(r.hashCode(), again.hashCode());
      assertEquals(r.remoteHosts(), new ConnectivityReport(r.remoteHosts()).remoteHosts());
      assertTrue(ConnectivityReport.sameReach(r, again));
    }
    assertTrue(reports.get(0).peerColumn() instanceof Object[]);
    for (ConnectivityReport r : reports.subList(1, n)) {
      assertTrue(r.peerColumn() instanceof PeerColumns.Swapped, "held against the first report of the cluster");
    }
    assertFalse(ConnectivityReport.sameReach(reports.get(1), reports.get(2))); // other hosts, other peers
    // another order of the same peers: read back as sent (held in full)
    List<Integer> shuffled = new java.util.ArrayList<>(order);
    java.util.Collections.reverse(shuffled);
    ConnectivityReport reversed = StepOutputs.connectivity(clusterReport(3, n, rtt, shuffled));
    assertEquals(peer(8), reversed.peerId(0));
    assertEquals("10.1.0.18", reversed.l2RemoteIpAddress(0));
    assertEquals(peer(0), reversed.peerId(n - 2));
  }

  @Test
  void aColumnIsFoundAsAnotherWithOneRunSwappedWhereverTheRunsAre() {
    Object[] base = {"a", "b", "c", "d", "e", "f"};
    // one entry each way, the run that left before or after the one that came in
    for (Object[] t : List.of(new Object[] {"a", "c", "d", "x", "e", "f"}, new Object[] {"x", "a", "b", "c", "e", "f"},
        new Object[] {"b", "c", "d", "e", "f", "x"}, new Object[] {"x", "b", "c", "d", "e", "f"})) {
      Object col = PeerColumns.against(base, t, 1);
      assertTrue(col instanceof PeerColumns.Swapped, java.util.Arrays.toString(t));
      for (int k = 0; k < t.length; k++) {
        assertEquals(t[k], PeerColumns.at(col, k));
      }
      assertTrue(PeerColumns.same(col, t, t.length));
    }
    // runs of two (two entries per peer)
    Object[] t2 = {"a", "b", "e", "f", "x", "y"};
    Object col2 = PeerColumns.against(base, t2, 2);
    assertTrue(col2 instanceof PeerColumns.Swapped);
    for (int k = 0; k < t2.length; k++) {
      assertEquals(t2[k], PeerColumns.at(col2, k));
    }
    // equal: the base itself; two changes apart, or another length: the column as it was
    assertSame(base, PeerColumns.against(base, base.clone(), 1));
    Object[] twoChanges = {"x", "b", "c", "y", "e", "f"};
    assertSame(twoChanges, PeerColumns.against(base, twoChanges, 1));
    Object[] shorter = {"a", "b"};
    assertSame(shorter, PeerColumns.against(base, shorter, 1));
    assertFalse(PeerColumns.same(PeerColumns.against(base, new Object[] {"a", "c", "d", "x", "e", "f"}, 1),
        new Object[] {"a", "c", "d", "y", "e", "f"}, 6));
  }

  @Test
  void theStreamedReportEqualsTheOneBuiltFromRecords() {
    ConnectivityReport streamed = StepOutputs.connectivity(REPORT);
    ConnectivityReport fromRecords = new ConnectivityReport(streamed.remoteHosts());
    assertEquals(fromRecords, streamed);
    assertEquals(fromRecords.remoteHosts(), streamed.remoteHosts());
    // field order, unknown fields (objects and arrays too), null entries and lists, texts given as numbers
    ConnectivityReport loose = StepOutputs.connectivity("""
        {"extra":{"a":[1,{"b":2}]},"remote_hosts":[null,
          {"l3_connectivity":[{"average_rtt_ms":"0.5","successful":true,"unknown":[1,2],"remote_ip_address":"10.0.0.9",
                               "packet_loss_percentage":null,"outgoing_nic":7}],
           "mtu_report":null,"l2_connectivity":[null],"host_id":"a0000000-0000-0000-0000-000000000002"}]}
        """);
    assertEquals(1, loose.peerCount());
    assertEquals(A, loose.peerId(0));
    assertEquals(0, loose.l2End(0));
    assertEquals(List.of(0, 1), List.of(loose.l3Start(0), loose.l3End(0)));
    assertEquals(0.5, loose.l3AverageRttMs(0));
    assertEquals(0.0, loose.l3PacketLossPercentage(0));
    assertEquals("10.0.0.9", loose.l3RemoteIpAddress(0));
    assertEquals("7", loose.remoteHosts().get(0).l3Connectivity().get(0).outgoingNic());
    assertEquals(0, StepOutputs.connectivity("{\"remote_hosts\":null}").peerCount());
    assertEquals(0, StepOutputs.connectivity("{}").peerCount());
  }

  @Test
  void aValueOfTheWrongTypeIsRefusedNamingItsPath() {
    var e = org.junit.jupiter.api.Assertions.assertThrows(
        dev.rendezvous.service.domain.planning.InvalidStepOutputException.class,
        () -> StepOutputs.connectivity("{\"remote_hosts\":[{\"l2_connectivity\":[]},{\"l3_connectivity\":"
            + "[{\"average_rtt_ms\":0.1},{\"average_rtt_ms\":{\"x\":1}}]}]}"));
    assertEquals("connectivity.remote_hosts.[1].l3_connectivity.[1].average_rtt_ms", e.field());
    var id = org.junit.jupiter.api.Assertions.assertThrows(
        dev.rendezvous.service.domain.planning.InvalidStepOutputException.class,
        () -> StepOutputs.connectivity("{\"remote_hosts\":[{\"host_id\":\"not-a-uuid\"}]}"));
    assertEquals("connectivity.remote_hosts.[0].host_id", id.field());
    var list = org.junit.jupiter.api.Assertions.assertThrows(
        dev.rendezvous.service.domain.planning.InvalidStepOutputException.class,
        () -> StepOutputs.connectivity("{\"remote_hosts\":{\"host_id\":1}}"));
    assertEquals("connectivity.remote_hosts", list.field());
    var entry = org.junit.jupiter.api.Assertions.assertThrows(
        dev.rendezvous.service.domain.planning.InvalidStepOutputException.class,
        () -> StepOutputs.connectivity("{\"remote_hosts\":[{\"mtu_report\":[true]}]}"));
    assertEquals("connectivity.remote_hosts.[0].mtu_report.[0]", entry.field());
    org.junit.jupiter.api.Assertions.assertThrows(
        dev.rendezvous.service.domain.planning.InvalidStepOutputException.class,
        () -> StepOutputs.connectivity("[1]"));
    org.junit.jupiter.api.Assertions.assertThrows(
        dev.rendezvous.service.domain.planning.InvalidStepOutputException.class,
        () -> StepOutputs.connectivity("{\"remote_hosts\":[{\"l2_connectivity\":[{\"successful\":tru"));
  }
}
