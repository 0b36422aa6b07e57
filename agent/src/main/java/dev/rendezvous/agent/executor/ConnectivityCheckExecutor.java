package dev.rendezvous.agent.executor;

import dev.rendezvous.agent.netcheck.ArpingParser;
import dev.rendezvous.agent.netcheck.IpPrefix;
import dev.rendezvous.agent.netcheck.NeighbourTable;
import dev.rendezvous.agent.netcheck.PingParser;
import dev.rendezvous.agent.step.CommandResult;
import dev.rendezvous.agent.step.CommandRunner;
import dev.rendezvous.agent.step.StepExecutor;
import dev.rendezvous.agent.step.StepOutcome;
import dev.rendezvous.agent.wire.ConnectivityCheck;
import dev.rendezvous.agent.wire.Inventory;
import dev.rendezvous.agent.wire.Step;
import dev.rendezvous.agent.wire.WireJson;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * {@code connectivity-check}: for every address of every other host,
 * <ul>
 *   <li>L3: {@code ping -c N -i 0.2 -W 1 [-I nic] ip} → loss and average RTT from ping's summary
 *       ({@code -I} when a local interface is on the address's subnet);
 *   <li>L2 (on-link addresses): IPv4 with {@code arping -c 2 -w 2 -I nic ip} when installed, else (and for
 *       IPv6) the kernel neighbour entry the ping just made, {@code ip -j neigh show to ip dev nic};
 *       successful = the answering MAC is one of the remote host's NIC MACs;
 *   <li>MTU (on-link, local MTU != 1500): {@code ping -M do -s mtu-28 (v4) / mtu-48 (v6)}.
 * </ul>
 * Probes run in parallel ({@link #PARALLELISM}); output sorted by host id, then address (and MAC).
 */
public final class ConnectivityCheckExecutor implements StepExecutor {
  static final int PARALLELISM = 16;
  private final CommandRunner commands;
  private final InterfaceSource local;
  private final int pingCount;

  public ConnectivityCheckExecutor(CommandRunner commands, InterfaceSource local, int pingCount) {
    this.commands = commands;
    this.local = local;
    this.pingCount = pingCount;
  }

  @Override
  public StepOutcome execute(Step step) throws Exception {
    if (step.arg(0) == null) {
      throw new IllegalArgumentException("connectivity-check: args[0] (connectivity-check-params JSON) is missing");
    }
    if (!commands.available("ping")) {
      return StepOutcome.failure(StepOutcome.AGENT_ERROR,
          "connectivity-check: ping is not installed (Debian package iputils-ping)");
    }
    List<ConnectivityCheck.Host> hosts =
        WireJson.read(step.arg(0), WireJson.listOf(ConnectivityCheck.Host.class));
    List<Inventory.Interface> nics = local.interfaces();
    List<Callable<Probe>> tasks = new ArrayList<>();
    for (int h = 0; h < hosts.size(); h++) {
      ConnectivityCheck.Host host = hosts.get(h);
      Set<String> macs = new LinkedHashSet<>();
      Set<String> ips = new LinkedHashSet<>();
      for (ConnectivityCheck.Nic nic : host.nics()) {
        if (nic.mac() != null) {
          macs.add(nic.mac().toLowerCase(Locale.ROOT));
        }
        for (String ip : nic.ipAddresses()) {
          ips.add(ip.contains("/") ? ip.substring(0, ip.indexOf('/')) : ip);
        }
      }
      int index = h;
      for (String ip : ips) {
        tasks.add(() -> probe(index, ip, macs, nics));
      }
    }
    List<Probe> probes = Parallel.run("connectivity", PARALLELISM, tasks);
    List<ConnectivityCheck.RemoteHost> remote = new ArrayList<>();
    for (int h = 0; h < hosts.size(); h++) {
      List<ConnectivityCheck.L2Connectivity> l2 = new ArrayList<>();
      List<ConnectivityCheck.L3Connectivity> l3 = new ArrayList<>();
      List<ConnectivityCheck.MtuReport> mtu = new ArrayList<>();
      for (Probe p : probes) {
        if (p.host == h) {
          l3.add(p.l3);
          l2.addAll(p.l2);
          mtu.addAll(p.mtu);
        }
      }
      l3.sort(Comparator.comparing(ConnectivityCheck.L3Connectivity::remoteIpAddress));
      l2.sort(Comparator.comparing(ConnectivityCheck.L2Connectivity::remoteIpAddress)
          .thenComparing(ConnectivityCheck.L2Connectivity::remoteMac));
      mtu.sort(Comparator.comparing(ConnectivityCheck.MtuReport::remoteIpAddress));
      remote.add(new ConnectivityCheck.RemoteHost(hosts.get(h).hostId(), l2, l3, mtu));
    }
    remote.sort(Comparator.comparing(ConnectivityCheck.RemoteHost::hostId, Comparator.nullsFirst(Comparator.naturalOrder())));
    return StepOutcome.ok(WireJson.write(new ConnectivityCheck.Report(remote)));
  }

  private record Probe(
      int host, ConnectivityCheck.L3Connectivity l3, List<ConnectivityCheck.L2Connectivity> l2,
      List<ConnectivityCheck.MtuReport> mtu) {}

  private Probe probe(int host, String ip, Set<String> remoteMacs, List<Inventory.Interface> nics)
      throws IOException, InterruptedException {
    OnLink onLink = onLink(ip, nics);
    List<String> ping = new ArrayList<>(List.of("ping", "-c", String.valueOf(pingCount), "-i", "0.2", "-W", "1"));
    if (onLink != null) {
      ping.addAll(List.of("-I", onLink.nic.name()));
    }
    ping.add(ip);
    CommandResult pr = commands.run(ping, Duration.ofMillis(pingCount * 200L + 3000));
    var stats = PingParser.parse(pr.stdout());
    ConnectivityCheck.L3Connectivity l3 = new ConnectivityCheck.L3Connectivity(
        onLink == null ? null : onLink.nic.name(), ip,
        stats.map(PingParser.PingStats::anyReply).orElse(false),
        stats.map(PingParser.PingStats::averageRttMs).orElse(0.0),
        stats.map(PingParser.PingStats::packetLossPercentage).orElse(100.0));

    List<ConnectivityCheck.L2Connectivity> l2 = new ArrayList<>();
    List<ConnectivityCheck.MtuReport> mtu = new ArrayList<>();
    if (onLink != null) {
      String nic = onLink.nic.name();
      Set<String> macs;
      if (onLink.prefix.isIpv4() && commands.available("arping")) {
        CommandResult ar = commands.run(List.of("arping", "-c", "2", "-w", "2", "-I", nic, ip), Duration.ofSeconds(5));
        macs = ArpingParser.replyingMacs(ar.stdout());
      } else {
        CommandResult nr = commands.run(List.of("ip", "-j", "neigh", "show", "to", ip, "dev", nic), Duration.ofSeconds(5));
        macs = new LinkedHashSet<>();
        if (nr.ok()) {
          NeighbourTable.parse(nr.stdout()).macOf(ip, nic).ifPresent(macs::add);
        }
      }
      for (String mac : macs) {
        l2.add(new ConnectivityCheck.L2Connectivity(nic, onLink.prefix.ip(), ip, mac, remoteMacs.contains(mac)));
      }
      int localMtu = onLink.nic.mtu();
      if (localMtu > 0 && localMtu != 1500) {
        int payload = localMtu - (onLink.prefix.isIpv4() ? 28 : 48);
        CommandResult mr = commands.run(
            List.of("ping", "-c", "2", "-i", "0.2", "-W", "1", "-M", "do", "-s", String.valueOf(payload), "-I", nic, ip),
            Duration.ofSeconds(5));
        mtu.add(new ConnectivityCheck.MtuReport(nic, ip, mr.ok()));
      }
    }
    return new Probe(host, l3, l2, mtu);
  }

  record OnLink(Inventory.Interface nic, IpPrefix prefix) {}

  /** The first local interface (by name) with an address on {@code ip}'s subnet. */
  static OnLink onLink(String ip, List<Inventory.Interface> nics) {
    return nics.stream()
        .sorted(Comparator.comparing(Inventory.Interface::name))
        .flatMap(n -> java.util.stream.Stream.concat(n.ipv4Addresses().stream(), n.ipv6Addresses().stream())
            .map(IpPrefix::parse).filter(p -> p.contains(ip)).map(p -> new OnLink(n, p)))
        .findFirst()
        .orElse(null);
  }
}
