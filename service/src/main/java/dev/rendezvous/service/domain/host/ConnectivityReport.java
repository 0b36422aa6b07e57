package dev.rendezvous.service.domain.host;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.UUID;

/**
 * The agent's {@code connectivity-check} output (upstream models.ConnectivityReport), held in columns.
 *
 * <p>Every host reports every peer, so a cluster's reports grow with the square of its size, and the brain keeps
 * all of a cluster's hosts in memory. As records (one object per peer and per measurement, a UUID and three lists
 * per peer) a report cost ~180 bytes per peer: 9 KB per host in a 50-host cluster, ~180 MB for a 1,000-host
 * cluster. Here a peer is two longs, an entry a few references to shared strings and primitives (~70 bytes per
 * peer). The domain reads it by index ({@link #peerCount()}, {@link #l3Start(int)}, ...), which allocates nothing;
 * {@link #remoteHosts()} rebuilds the records for JSON and for tests.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonAutoDetect(getterVisibility = JsonAutoDetect.Visibility.NONE,
    isGetterVisibility = JsonAutoDetect.Visibility.NONE, fieldVisibility = JsonAutoDetect.Visibility.NONE)
public final class ConnectivityReport {
  private static final int L2_TEXTS = 4; // outgoing NIC, outgoing address, remote address, remote MAC
  private static final int L3_TEXTS = 2; // outgoing NIC, remote address
  private static final int L3_NUMBERS = 2; // average RTT (ms), packet loss (%)
  private static final int MTU_TEXTS = 2; // outgoing NIC, remote address

  private final long[] peerIds; // most, least significant bits per peer
  private final BitSet peersWithoutId; // null when every peer names its host (the usual case)
  private final int[] l2Ends; // per peer, the end (exclusive) of its entries; its start is the previous peer's end
  private final String[] l2Texts;
  private final BitSet l2Successful;
  private final int[] l3Ends;
  private final String[] l3Texts;
  private final double[] l3Numbers;
  private final BitSet l3Successful;
  private final int[] mtuEnds;
  private final String[] mtuTexts;
  private final BitSet mtuSuccessful;

  @JsonCreator
  public ConnectivityReport(@JsonProperty("remote_hosts") List<RemoteHost> remoteHosts) {
    List<RemoteHost> peers = Inventory.listOf(remoteHosts);
    int n = peers.size();
    peerIds = new long[2 * n];
    l2Ends = new int[n];
    l3Ends = new int[n];
    mtuEnds = new int[n];
    int l2 = 0;
    int l3 = 0;
    int mtu = 0;
    BitSet withoutId = null;
    for (int p = 0; p < n; p++) {
      RemoteHost r = peers.get(p);
      if (r.hostId() == null) {
        withoutId = withoutId == null ? new BitSet() : withoutId;
        withoutId.set(p);
      } else {
        peerIds[2 * p] = r.hostId().getMostSignificantBits();
        peerIds[2 * p + 1] = r.hostId().getLeastSignificantBits();
      }
      l2 += r.l2Connectivity().size();
      l3 += r.l3Connectivity().size();
      mtu += r.mtuReport().size();
      l2Ends[p] = l2;
      l3Ends[p] = l3;
      mtuEnds[p] = mtu;
    }
    peersWithoutId = withoutId;
    l2Texts = new String[L2_TEXTS * l2];
    l2Successful = new BitSet(l2);
    l3Texts = new String[L3_TEXTS * l3];
    l3Numbers = new double[L3_NUMBERS * l3];
    l3Successful = new BitSet(l3);
    mtuTexts = new String[MTU_TEXTS * mtu];
    mtuSuccessful = new BitSet(mtu);
    int k2 = 0;
    int k3 = 0;
    int km = 0;
    for (RemoteHost r : peers) {
      for (L2 e : r.l2Connectivity()) {
        l2Texts[L2_TEXTS * k2] = e.outgoingNic();
        l2Texts[L2_TEXTS * k2 + 1] = e.outgoingIpAddress();
        l2Texts[L2_TEXTS * k2 + 2] = e.remoteIpAddress();
        l2Texts[L2_TEXTS * k2 + 3] = e.remoteMac();
        l2Successful.set(k2++, e.successful());
      }
      for (L3 e : r.l3Connectivity()) {
        l3Texts[L3_TEXTS * k3] = e.outgoingNic();
        l3Texts[L3_TEXTS * k3 + 1] = e.remoteIpAddress();
        l3Numbers[L3_NUMBERS * k3] = e.averageRttMs();
        l3Numbers[L3_NUMBERS * k3 + 1] = e.packetLossPercentage();
        l3Successful.set(k3++, e.successful());
      }
      for (Mtu e : r.mtuReport()) {
        mtuTexts[MTU_TEXTS * km] = e.outgoingNic();
        mtuTexts[MTU_TEXTS * km + 1] = e.remoteIpAddress();
        mtuSuccessful.set(km++, e.mtuSuccessful());
      }
    }
  }

  public int peerCount() {
    return l2Ends.length;
  }

  /** The peer's host id; null when the agent named none. */
  public UUID peerId(int peer) {
    if (peersWithoutId != null && peersWithoutId.get(peer)) {
      return null;
    }
    return new UUID(peerIds[2 * peer], peerIds[2 * peer + 1]);
  }

  /** Whether the peer is the given host, without building its UUID. */
  public boolean peerIs(int peer, UUID id) {
    return id != null && (peersWithoutId == null || !peersWithoutId.get(peer))
        && peerIds[2 * peer] == id.getMostSignificantBits() && peerIds[2 * peer + 1] == id.getLeastSignificantBits();
  }

  // L2 entries of peer p are l2Start(p) .. l2End(p) - 1
  public int l2Start(int peer) {
    return peer == 0 ? 0 : l2Ends[peer - 1];
  }

  public int l2End(int peer) {
    return l2Ends[peer];
  }

  public String l2RemoteIpAddress(int entry) {
    return l2Texts[L2_TEXTS * entry + 2];
  }

  public boolean l2Successful(int entry) {
    return l2Successful.get(entry);
  }

  // L3 entries of peer p are l3Start(p) .. l3End(p) - 1
  public int l3Start(int peer) {
    return peer == 0 ? 0 : l3Ends[peer - 1];
  }

  public int l3End(int peer) {
    return l3Ends[peer];
  }

  public String l3RemoteIpAddress(int entry) {
    return l3Texts[L3_TEXTS * entry + 1];
  }

  public boolean l3Successful(int entry) {
    return l3Successful.get(entry);
  }

  public double l3AverageRttMs(int entry) {
    return l3Numbers[L3_NUMBERS * entry];
  }

  public double l3PacketLossPercentage(int entry) {
    return l3Numbers[L3_NUMBERS * entry + 1];
  }

  // MTU entries of peer p are mtuStart(p) .. mtuEnd(p) - 1
  public int mtuStart(int peer) {
    return peer == 0 ? 0 : mtuEnds[peer - 1];
  }

  public int mtuEnd(int peer) {
    return mtuEnds[peer];
  }

  public String mtuOutgoingNic(int entry) {
    return mtuTexts[MTU_TEXTS * entry];
  }

  public String mtuRemoteIpAddress(int entry) {
    return mtuTexts[MTU_TEXTS * entry + 1];
  }

  public boolean mtuSuccessful(int entry) {
    return mtuSuccessful.get(entry);
  }

  /** The report as records (built on each call: for JSON and tests, not for the domain's loops). */
  @JsonProperty("remote_hosts")
  public List<RemoteHost> remoteHosts() {
    List<RemoteHost> out = new ArrayList<>(peerCount());
    for (int p = 0; p < peerCount(); p++) {
      List<L2> l2 = new ArrayList<>(l2End(p) - l2Start(p));
      for (int k = l2Start(p); k < l2End(p); k++) {
        l2.add(new L2(l2Texts[L2_TEXTS * k], l2Texts[L2_TEXTS * k + 1], l2Texts[L2_TEXTS * k + 2],
            l2Texts[L2_TEXTS * k + 3], l2Successful(k)));
      }
      List<L3> l3 = new ArrayList<>(l3End(p) - l3Start(p));
      for (int k = l3Start(p); k < l3End(p); k++) {
        l3.add(new L3(l3Texts[L3_TEXTS * k], l3RemoteIpAddress(k), l3Successful(k), l3AverageRttMs(k),
            l3PacketLossPercentage(k)));
      }
      List<Mtu> mtu = new ArrayList<>(mtuEnd(p) - mtuStart(p));
      for (int k = mtuStart(p); k < mtuEnd(p); k++) {
        mtu.add(new Mtu(mtuOutgoingNic(k), mtuRemoteIpAddress(k), mtuSuccessful(k)));
      }
      out.add(new RemoteHost(peerId(p), l2, l3, mtu));
    }
    return out;
  }

  /**
   * Whether two reports reach the same peers the same way: the same peers in the same order, and per peer the same
   * L2 and L3 entries by remote address and success. That is all the majority groups read of a report (the only rule
   * that reads one host's report for others); round-trip times, loss and MTU are the reporting host's own.
   * Conservative: the same reach listed in another order counts as different.
   */
  public static boolean sameReach(ConnectivityReport a, ConnectivityReport b) {
    if (a == b) {
      return true;
    }
    if (a == null || b == null || !Arrays.equals(a.peerIds, b.peerIds)
        || !java.util.Objects.equals(a.peersWithoutId, b.peersWithoutId)
        || !Arrays.equals(a.l2Ends, b.l2Ends) || !Arrays.equals(a.l3Ends, b.l3Ends)
        || !a.l2Successful.equals(b.l2Successful) || !a.l3Successful.equals(b.l3Successful)) {
      return false;
    }
    int l2 = a.l2Ends.length == 0 ? 0 : a.l2Ends[a.l2Ends.length - 1];
    for (int k = 0; k < l2; k++) {
      if (!java.util.Objects.equals(a.l2RemoteIpAddress(k), b.l2RemoteIpAddress(k))) {
        return false;
      }
    }
    int l3 = a.l3Ends.length == 0 ? 0 : a.l3Ends[a.l3Ends.length - 1];
    for (int k = 0; k < l3; k++) {
      if (!java.util.Objects.equals(a.l3RemoteIpAddress(k), b.l3RemoteIpAddress(k))) {
        return false;
      }
    }
    return true;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    return o instanceof ConnectivityReport r && Arrays.equals(peerIds, r.peerIds)
        && java.util.Objects.equals(peersWithoutId, r.peersWithoutId)
        && Arrays.equals(l2Ends, r.l2Ends) && Arrays.equals(l2Texts, r.l2Texts) && l2Successful.equals(r.l2Successful)
        && Arrays.equals(l3Ends, r.l3Ends) && Arrays.equals(l3Texts, r.l3Texts)
        && Arrays.equals(l3Numbers, r.l3Numbers) && l3Successful.equals(r.l3Successful)
        && Arrays.equals(mtuEnds, r.mtuEnds) && Arrays.equals(mtuTexts, r.mtuTexts)
        && mtuSuccessful.equals(r.mtuSuccessful);
  }

  @Override
  public int hashCode() {
    return 31 * (31 * Arrays.hashCode(peerIds) + Arrays.hashCode(l2Texts)) + Arrays.hashCode(l3Numbers);
  }

  @Override
  public String toString() {
    return "ConnectivityReport[" + peerCount() + " peers]";
  }

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record RemoteHost(UUID hostId, List<L2> l2Connectivity, List<L3> l3Connectivity, List<Mtu> mtuReport) {
    public RemoteHost {
      l2Connectivity = Inventory.listOf(l2Connectivity);
      l3Connectivity = Inventory.listOf(l3Connectivity);
      mtuReport = Inventory.listOf(mtuReport);
    }
  }

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record L2(
      String outgoingNic, String outgoingIpAddress, String remoteIpAddress, String remoteMac, boolean successful) {}

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record L3(
      String outgoingNic,
      String remoteIpAddress,
      boolean successful,
      double averageRttMs,
      double packetLossPercentage) {}

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Mtu(String outgoingNic, String remoteIpAddress, boolean mtuSuccessful) {}

  /**
   * One entry of the {@code connectivity-check} request (args[0] is a JSON array of these): another host
   * of the cluster and its NICs, addresses without prefix.
   */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record CheckHost(UUID hostId, List<CheckNic> nics) {}

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record CheckNic(String name, String mac, List<String> ipAddresses) {}
}
