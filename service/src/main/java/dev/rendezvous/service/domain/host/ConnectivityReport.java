package dev.rendezvous.service.domain.host;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import dev.rendezvous.service.domain.SharedText;
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
 * cluster. Here every field is a column, and a column whose entries are all equal (the outgoing NIC and address,
 * a packet loss of 0, one entry of each kind per peer, the same peer addresses on every layer) is held as that one
 * value; peers are shared UUIDs (the same few per cluster); round-trip times are thousandths in chars (or ints).
 * The peer ids, addresses and MACs are another report's columns with one peer swapped ({@link PeerColumns}): the
 * cluster's hosts report the same peers. What is left per peer is the round-trip time, ~2 bytes (it was ~76 with a
 * column per text and an end index per peer, ~16 with the columns of its own).
 * The domain reads it by index ({@link #peerCount()}, {@link #l3Start(int)},
 * ...), which allocates nothing; {@link #remoteHosts()} rebuilds the records for JSON and for tests.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@com.fasterxml.jackson.databind.annotation.JsonDeserialize(using = ConnectivityEntries.Reader.class)
@JsonAutoDetect(getterVisibility = JsonAutoDetect.Visibility.NONE,
    isGetterVisibility = JsonAutoDetect.Visibility.NONE, fieldVisibility = JsonAutoDetect.Visibility.NONE)
public final class ConnectivityReport {
  private final Object peerIds; // PeerColumns form of UUIDs; null for a peer the agent named no host for
  private final PeerColumns.Base base; // the report whose columns this one's are views of (kept alive by it)
  private final Spans l2;
  private final Object l2Nic;
  private final Object l2OutgoingIp;
  private final Object l2RemoteIp;
  private final Object l2RemoteMac;
  private final BitSet l2Successful;
  private final Spans l3;
  private final Object l3Nic;
  private final Object l3RemoteIp;
  private final Numbers l3Rtt;
  private final Numbers l3Loss;
  private final BitSet l3Successful;
  private final Spans mtu;
  private final Object mtuNic;
  private final Object mtuRemoteIp;
  private final BitSet mtuSuccessful;

  @JsonCreator
  public ConnectivityReport(@JsonProperty("remote_hosts") List<RemoteHost> remoteHosts) {
    this(ConnectivityEntries.of(Inventory.listOf(remoteHosts)));
  }

  /** The report of entries read peer by peer (from records, or streamed from JSON by {@link ConnectivityEntries}). */
  ConnectivityReport(ConnectivityEntries e) {
    int n = e.peers;
    Object[] ids = Arrays.copyOf(e.ids, n);
    l2 = Spans.of(Arrays.copyOf(e.l2Ends, n));
    l3 = Spans.of(Arrays.copyOf(e.l3Ends, n));
    mtu = Spans.of(Arrays.copyOf(e.mtuEnds, n));
    String[] nic2 = Arrays.copyOf(e.nic2, e.k2);
    String[] out2 = Arrays.copyOf(e.out2, e.k2);
    String[] ip2 = Arrays.copyOf(e.ip2, e.k2);
    String[] mac2 = Arrays.copyOf(e.mac2, e.k2);
    l2Successful = ConnectivityEntries.trim(e.ok2);
    String[] nic3 = Arrays.copyOf(e.nic3, e.k3);
    String[] ip3 = Arrays.copyOf(e.ip3, e.k3);
    double[] rtt = Arrays.copyOf(e.rtt, e.k3);
    double[] loss = Arrays.copyOf(e.loss, e.k3);
    l3Successful = ConnectivityEntries.trim(e.ok3);
    String[] nicM = Arrays.copyOf(e.nicM, e.km);
    String[] ipM = Arrays.copyOf(e.ipM, e.km);
    mtuSuccessful = ConnectivityEntries.trim(e.okM);
    l2Nic = kept(texts(nic2), null);
    l2OutgoingIp = kept(texts(out2), null);
    l3Nic = kept(texts(nic3), null);
    l3Rtt = Numbers.of(rtt);
    l3Loss = Numbers.of(loss);
    mtuNic = kept(texts(nicM), null);
    // the per-peer columns are shared (interned) only for what they keep: most are views of another report's
    Object ip2Column = texts(ip2);
    Object mac2Column = texts(mac2);
    // the same peer addresses are usually checked on every layer: one column for all of them then
    Object ip3Column = Arrays.equals(ip3, ip2) ? ip2Column : texts(ip3);
    Object ipMColumn = Arrays.equals(ipM, ip2) ? ip2Column : Arrays.equals(ipM, ip3) ? ip3Column : texts(ipM);
    // the cluster's other reports list the same peers, addresses and MACs but for one swapped peer
    PeerColumns.Base shared = n >= PeerColumns.MIN_PEERS ? PeerColumns.baseFor(ids) : null;
    Object peerColumn = shared == null ? ids : PeerColumns.against(shared.peers(), ids, 1);
    if (shared == null || peerColumn == ids) {
      peerIds = kept(ids, null);
      l2RemoteIp = kept(ip2Column, null);
      l2RemoteMac = kept(mac2Column, null);
      l3RemoteIp = ip3Column == ip2Column ? l2RemoteIp : kept(ip3Column, null);
      mtuRemoteIp = ipMColumn == ip2Column ? l2RemoteIp : ipMColumn == ip3Column ? l3RemoteIp : kept(ipMColumn, null);
      base = n >= PeerColumns.MIN_PEERS
          ? new PeerColumns.Base(ids, new Object[][] {array(ip2Column), array(mac2Column), array(ip3Column),
              array(ipMColumn)})
          : null;
      if (base != null) {
        PeerColumns.register(base);
      }
    } else {
      peerIds = kept(peerColumn, shared.peers());
      base = shared;
      Object[][] c = shared.columns();
      l2RemoteIp = kept(PeerColumns.against(c[0], ip2Column, l2.width()), c[0]);
      l2RemoteMac = kept(PeerColumns.against(c[1], mac2Column, l2.width()), c[1]);
      l3RemoteIp = ip3Column == ip2Column ? l2RemoteIp
          : kept(PeerColumns.against(c[2], ip3Column, l3.width()), c[2]);
      mtuRemoteIp = ipMColumn == ip2Column ? l2RemoteIp : ipMColumn == ip3Column ? l3RemoteIp
          : kept(PeerColumns.against(c[3], ipMColumn, mtu.width()), c[3]);
    }
  }

  /**
   * A column as the report keeps it: its texts and ids one shared instance each (every report of a cluster names the
   * same peers, addresses and MACs). {@code base}'s own array is shared already; of a view only the entries it adds.
   */
  private static Object kept(Object column, Object[] base) {
    if (column == base) {
      return column;
    }
    if (column instanceof Object[] a) {
      for (int k = 0; k < a.length; k++) {
        a[k] = shared(a[k]);
      }
      return a;
    }
    if (column instanceof PeerColumns.Swapped v) {
      Object in = v.inserted();
      if (in instanceof Object[] run) {
        for (int k = 0; k < run.length; k++) {
          run[k] = shared(run[k]);
        }
      } else {
        in = shared(in);
      }
      return new PeerColumns.Swapped(v.base(), v.removeAt(), v.insertAt(), v.width(), in);
    }
    return column; // one value: shared already (texts)
  }

  private static Object shared(Object value) {
    return value instanceof UUID id ? SharedText.id(id) : value instanceof String s ? SharedText.of(s) : value;
  }

  private static Object[] array(Object column) {
    return column instanceof Object[] a ? a : null;
  }

  /**
   * A text column: the one value (shared) when every entry carries it (or there are none), else the array, its texts
   * shared by {@link #kept} once it is known which it keeps.
   */
  private static Object texts(String[] values) {
    for (int i = 1; i < values.length; i++) {
      if (!java.util.Objects.equals(values[i], values[0])) {
        return values;
      }
    }
    return values.length == 0 ? null : SharedText.of(values[0]);
  }

  private static String text(Object column, int entry) {
    return (String) PeerColumns.at(column, entry);
  }

  /** Where each peer's entries are: per-peer ends, or none when every peer has the same count. */
  private record Spans(int perPeer, int[] ends) {
    static Spans of(int[] ends) {
      int per = ends.length == 0 ? 0 : ends[0];
      for (int p = 1; p < ends.length; p++) {
        if (ends[p] - ends[p - 1] != per) {
          return new Spans(-1, ends);
        }
      }
      return UNIFORM.length > per ? UNIFORM[per] : new Spans(per, null);
    }

    private static final Spans[] UNIFORM = {new Spans(0, null), new Spans(1, null), new Spans(2, null)};

    /** Entries per peer when every peer has as many, else 0. */
    int width() {
      return ends == null ? perPeer : 0;
    }

    int start(int peer) {
      return ends == null ? peer * perPeer : peer == 0 ? 0 : ends[peer - 1];
    }

    int end(int peer) {
      return ends == null ? (peer + 1) * perPeer : ends[peer];
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Spans s && perPeer == s.perPeer && Arrays.equals(ends, s.ends);
    }

    @Override
    public int hashCode() {
      return 31 * perPeer + Arrays.hashCode(ends);
    }
  }

  /**
   * A number column: the one value when every entry carries it; else thousandths in ints when every value has at most
   * three decimals (ping prints round-trip times to the microsecond), in chars when none is over 65.535 (a LAN's
   * round trips are well under a millisecond), else the doubles.
   */
  private record Numbers(double same, char[] small, int[] thousandths, double[] values) {
    static Numbers of(double[] values) {
      boolean uniform = true;
      boolean inThousandths = true;
      for (int i = 0; i < values.length; i++) {
        uniform &= Double.compare(values[i], values[0]) == 0;
        double v = values[i];
        inThousandths &= v >= 0 && v < 2_000_000 && Math.round(v * 1000) / 1000.0 == v;
      }
      if (uniform) {
        double v = values.length == 0 ? 0 : values[0];
        return Double.compare(v, 0) == 0 ? ZERO : new Numbers(v, null, null, null);
      }
      if (inThousandths) {
        int[] t = new int[values.length];
        int max = 0;
        for (int i = 0; i < values.length; i++) {
          t[i] = (int) Math.round(values[i] * 1000);
          max = Math.max(max, t[i]);
        }
        if (max <= Character.MAX_VALUE) {
          char[] c = new char[t.length];
          for (int i = 0; i < t.length; i++) {
            c[i] = (char) t[i];
          }
          return new Numbers(0, c, null, null);
        }
        return new Numbers(0, null, t, null);
      }
      return new Numbers(0, null, null, values);
    }

    private static final Numbers ZERO = new Numbers(0, null, null, null);

    double at(int entry) {
      return small != null ? small[entry] / 1000.0 : thousandths != null ? thousandths[entry] / 1000.0
          : values != null ? values[entry] : same;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Numbers x && Double.compare(same, x.same) == 0 && Arrays.equals(small, x.small)
          && Arrays.equals(thousandths, x.thousandths) && Arrays.equals(values, x.values);
    }

    @Override
    public int hashCode() {
      return Double.hashCode(same)
          + 31 * (Arrays.hashCode(small) + 31 * (Arrays.hashCode(thousandths) + 31 * Arrays.hashCode(values)));
    }
  }

  /** The peer ids as held (for tests of the sharing). */
  Object peerColumn() {
    return peerIds;
  }

  public int peerCount() {
    return PeerColumns.length(peerIds);
  }

  /** The peer's host id; null when the agent named none. */
  public UUID peerId(int peer) {
    return (UUID) PeerColumns.at(peerIds, peer);
  }

  /** Whether the peer is the given host. */
  public boolean peerIs(int peer, UUID id) {
    UUID p = peerId(peer);
    return id != null && p != null && (p == id || p.equals(id));
  }

  // L2 entries of peer p are l2Start(p) .. l2End(p) - 1
  public int l2Start(int peer) {
    return l2.start(peer);
  }

  public int l2End(int peer) {
    return l2.end(peer);
  }

  public String l2RemoteIpAddress(int entry) {
    return text(l2RemoteIp, entry);
  }

  public boolean l2Successful(int entry) {
    return l2Successful.get(entry);
  }

  // L3 entries of peer p are l3Start(p) .. l3End(p) - 1
  public int l3Start(int peer) {
    return l3.start(peer);
  }

  public int l3End(int peer) {
    return l3.end(peer);
  }

  public String l3RemoteIpAddress(int entry) {
    return text(l3RemoteIp, entry);
  }

  public boolean l3Successful(int entry) {
    return l3Successful.get(entry);
  }

  public double l3AverageRttMs(int entry) {
    return l3Rtt.at(entry);
  }

  public double l3PacketLossPercentage(int entry) {
    return l3Loss.at(entry);
  }

  // MTU entries of peer p are mtuStart(p) .. mtuEnd(p) - 1
  public int mtuStart(int peer) {
    return mtu.start(peer);
  }

  public int mtuEnd(int peer) {
    return mtu.end(peer);
  }

  public String mtuOutgoingNic(int entry) {
    return text(mtuNic, entry);
  }

  public String mtuRemoteIpAddress(int entry) {
    return text(mtuRemoteIp, entry);
  }

  public boolean mtuSuccessful(int entry) {
    return mtuSuccessful.get(entry);
  }

  /** The report as records (built on each call: for JSON and tests, not for the domain's loops). */
  @JsonProperty("remote_hosts")
  public List<RemoteHost> remoteHosts() {
    List<RemoteHost> out = new ArrayList<>(peerCount());
    for (int p = 0; p < peerCount(); p++) {
      List<L2> l2s = new ArrayList<>(l2End(p) - l2Start(p));
      for (int k = l2Start(p); k < l2End(p); k++) {
        l2s.add(new L2(text(l2Nic, k), text(l2OutgoingIp, k), text(l2RemoteIp, k), text(l2RemoteMac, k),
            l2Successful(k)));
      }
      List<L3> l3s = new ArrayList<>(l3End(p) - l3Start(p));
      for (int k = l3Start(p); k < l3End(p); k++) {
        l3s.add(new L3(text(l3Nic, k), l3RemoteIpAddress(k), l3Successful(k), l3AverageRttMs(k),
            l3PacketLossPercentage(k)));
      }
      List<Mtu> mtus = new ArrayList<>(mtuEnd(p) - mtuStart(p));
      for (int k = mtuStart(p); k < mtuEnd(p); k++) {
        mtus.add(new Mtu(mtuOutgoingNic(k), mtuRemoteIpAddress(k), mtuSuccessful(k)));
      }
      out.add(new RemoteHost(peerId(p), l2s, l3s, mtus));
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
    if (a == null || b == null || a.peerCount() != b.peerCount() || !a.l2.equals(b.l2) || !a.l3.equals(b.l3)
        || !a.l2Successful.equals(b.l2Successful) || !a.l3Successful.equals(b.l3Successful)
        || !PeerColumns.same(a.peerIds, b.peerIds, a.peerCount())) {
      return false;
    }
    return PeerColumns.same(a.l2RemoteIp, b.l2RemoteIp, a.l2Entries())
        && PeerColumns.same(a.l3RemoteIp, b.l3RemoteIp, a.l3Entries());
  }

  private int l2Entries() {
    return peerCount() == 0 ? 0 : l2End(peerCount() - 1);
  }

  private int l3Entries() {
    return peerCount() == 0 ? 0 : l3End(peerCount() - 1);
  }

  private int mtuEntries() {
    return peerCount() == 0 ? 0 : mtuEnd(peerCount() - 1);
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof ConnectivityReport r) || peerCount() != r.peerCount() || !l2.equals(r.l2) || !l3.equals(r.l3)
        || !mtu.equals(r.mtu)) {
      return false;
    }
    int e2 = l2Entries();
    int e3 = l3Entries();
    int em = mtuEntries();
    return PeerColumns.same(peerIds, r.peerIds, peerCount())
        && PeerColumns.same(l2Nic, r.l2Nic, e2) && PeerColumns.same(l2OutgoingIp, r.l2OutgoingIp, e2)
        && PeerColumns.same(l2RemoteIp, r.l2RemoteIp, e2) && PeerColumns.same(l2RemoteMac, r.l2RemoteMac, e2)
        && l2Successful.equals(r.l2Successful)
        && PeerColumns.same(l3Nic, r.l3Nic, e3) && PeerColumns.same(l3RemoteIp, r.l3RemoteIp, e3)
        && l3Rtt.equals(r.l3Rtt) && l3Loss.equals(r.l3Loss) && l3Successful.equals(r.l3Successful)
        && PeerColumns.same(mtuNic, r.mtuNic, em) && PeerColumns.same(mtuRemoteIp, r.mtuRemoteIp, em)
        && mtuSuccessful.equals(r.mtuSuccessful);
  }

  @Override
  public int hashCode() {
    return 31 * (31 * PeerColumns.hash(peerIds, peerCount()) + java.util.Objects.hashCode(text(l2RemoteIp, 0)))
        + l3Rtt.hashCode();
  }

  @Override
  public String toString() {
    return "ConnectivityReport[" + peerCount() + " peers]";
  }

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record RemoteHost(UUID hostId, List<L2> l2Connectivity, List<L3> l3Connectivity, List<Mtu> mtuReport) {
    public RemoteHost {
      l2Connectivity = entries(l2Connectivity);
      l3Connectivity = entries(l3Connectivity);
      mtuReport = entries(mtuReport);
    }

    /** Without the null entries a sloppy agent may send; copied only then (a report builds thousands of these). */
    private static <T> List<T> entries(List<T> l) {
      if (l == null) {
        return List.of();
      }
      for (T e : l) {
        if (e == null) {
          return Inventory.listOf(l);
        }
      }
      return java.util.Collections.unmodifiableList(l);
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
