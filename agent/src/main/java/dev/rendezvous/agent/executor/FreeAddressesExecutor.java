package dev.rendezvous.agent.executor;

import dev.rendezvous.agent.netcheck.IpPrefix;
import dev.rendezvous.agent.netcheck.Ipv4Network;
import dev.rendezvous.agent.step.CommandRunner;
import dev.rendezvous.agent.step.StepExecutor;
import dev.rendezvous.agent.step.StepOutcome;
import dev.rendezvous.agent.wire.Inventory;
import dev.rendezvous.agent.wire.Step;
import dev.rendezvous.agent.wire.StepModels;
import dev.rendezvous.agent.wire.WireJson;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code free-network-addresses}: args[0] = JSON array of canonical IPv4 CIDRs. Each network is split into
 * /22 chunks (as upstream) and swept: {@code arping -c 1 -w 1 -I nic ip} when a local interface is on the
 * network and arping is installed (answers even where ICMP is filtered, like upstream's nmap ARP scan),
 * else {@code ping -c 1 -W 1 ip}; at most {@link #concurrency} probes at a time. Free = every address that
 * did not answer, network and broadcast included (upstream's nmap listing); stops after 8000 free.
 */
public final class FreeAddressesExecutor implements StepExecutor {
  static final int MAX_FREE = 8000;
  private final CommandRunner commands;
  private final InterfaceSource local;
  private final int concurrency;

  public FreeAddressesExecutor(CommandRunner commands, InterfaceSource local, int concurrency) {
    this.commands = commands;
    this.local = local;
    this.concurrency = concurrency;
  }

  @Override
  public StepOutcome execute(Step step) throws Exception {
    if (step.arg(0) == null) {
      throw new IllegalArgumentException("free-network-addresses: args[0] (JSON array of CIDRs) is missing");
    }
    List<String> cidrs = WireJson.read(step.arg(0), WireJson.listOf(String.class));
    List<Ipv4Network> networks = new ArrayList<>();
    for (String c : cidrs) {
      Ipv4Network n = Ipv4Network.parse(c);
      if (!n.isCanonical()) {
        throw new IllegalArgumentException(
            "free-network-addresses: " + c + " is not a network address (expected " + n + ")");
      }
      networks.add(n);
    }
    boolean arping = commands.available("arping");
    if (!arping && !commands.available("ping")) {
      return StepOutcome.failure(StepOutcome.AGENT_ERROR,
          "free-network-addresses: neither arping nor ping is installed (Debian packages iputils-arping, iputils-ping)");
    }
    List<Inventory.Interface> nics = local.interfaces();
    List<StepModels.FreeNetworkAddresses> result = new ArrayList<>();
    int freeCount = 0;
    for (Ipv4Network network : networks) {
      List<String> free = new ArrayList<>();
      for (Ipv4Network chunk : network.split(Math.max(22, network.prefix()))) {
        if (freeCount >= MAX_FREE) {
          break;
        }
        String nic = arping ? onLinkNic(chunk, nics) : null;
        List<String> addresses = chunk.addresses();
        List<Callable<Boolean>> probes = new ArrayList<>();
        for (int i = 0; i < addresses.size(); i++) {
          String ip = addresses.get(i);
          boolean edge = chunk.prefix() < 31 && (i == 0 || i == addresses.size() - 1);
          probes.add(() -> !edge && answers(ip, nic));
        }
        List<Boolean> up = Parallel.run("free-addresses", concurrency, probes);
        for (int i = 0; i < addresses.size() && freeCount < MAX_FREE; i++) {
          if (!up.get(i)) {
            free.add(addresses.get(i));
            freeCount++;
          }
        }
      }
      result.add(new StepModels.FreeNetworkAddresses(network.toString(), free));
    }
    return StepOutcome.ok(WireJson.write(result));
  }

  private boolean answers(String ip, String nic) throws Exception {
    List<String> cmd = nic != null
        ? List.of("arping", "-c", "1", "-w", "1", "-I", nic, ip)
        : List.of("ping", "-c", "1", "-W", "1", ip);
    return commands.run(cmd, Duration.ofSeconds(4)).ok();
  }

  private static String onLinkNic(Ipv4Network chunk, List<Inventory.Interface> nics) {
    String probe = Ipv4Network.toDotted(chunk.network());
    for (Inventory.Interface n : nics) {
      for (String a : n.ipv4Addresses()) {
        if (IpPrefix.parse(a).contains(probe)) {
          return n.name();
        }
      }
    }
    return null;
  }
}
