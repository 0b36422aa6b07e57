package dev.rendezvous.agent.executor;

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
 * {@code verify-vips}: args[0] = [{"vip", "vip_type"}] (a bare array, as upstream's). Whether something already
 * answers at each VIP, which a cluster's VIP must never have: {@code arping} from the NIC on the VIP's network (it
 * answers where ICMP is filtered, as upstream's nmap ARP ping does), else {@code ping}. An answer makes the VIP
 * {@code failed}, silence {@code succeeded}. Without either tool the step fails (upstream's agent bails out too), so
 * the service never takes "not probed" for "free".
 */
public final class VerifyVipsExecutor implements StepExecutor {
  private final CommandRunner commands;
  private final InterfaceSource local;

  public VerifyVipsExecutor(CommandRunner commands, InterfaceSource local) {
    this.commands = commands;
    this.local = local;
  }

  @Override
  public StepOutcome execute(Step step) throws Exception {
    if (step.arg(0) == null) {
      throw new IllegalArgumentException("verify-vips: args[0] ([{\"vip\", \"vip_type\"}]) is missing");
    }
    List<StepModels.VerifyVip> vips = WireJson.read(step.arg(0), WireJson.listOf(StepModels.VerifyVip.class));
    boolean arping = commands.available("arping");
    if (!arping && !commands.available("ping")) {
      return StepOutcome.failure(StepOutcome.AGENT_ERROR,
          "verify-vips: neither arping nor ping is installed (Debian packages iputils-arping, iputils-ping)");
    }
    List<Inventory.Interface> nics = local.interfaces();
    List<Callable<Boolean>> probes = new ArrayList<>();
    for (StepModels.VerifyVip v : vips) {
      if (v.vip() == null || v.vip().isBlank()) {
        throw new IllegalArgumentException("verify-vips: an entry has no vip");
      }
      ConnectivityCheckExecutor.OnLink onLink = ConnectivityCheckExecutor.onLink(v.vip(), nics);
      String nic = arping && onLink != null && onLink.prefix().isIpv4() ? onLink.nic().name() : null;
      probes.add(() -> answers(v.vip(), nic));
    }
    List<Boolean> taken = Parallel.run("verify-vips", 8, probes);
    List<StepModels.VerifiedVip> out = new ArrayList<>();
    for (int i = 0; i < vips.size(); i++) {
      out.add(new StepModels.VerifiedVip(vips.get(i).vip(), vips.get(i).vipType(), taken.get(i) ? "failed" : "succeeded"));
    }
    return StepOutcome.ok(WireJson.write(out));
  }

  private boolean answers(String ip, String nic) throws Exception {
    List<String> cmd = nic != null
        ? List.of("arping", "-c", "2", "-w", "2", "-I", nic, ip)
        : List.of("ping", ip.contains(":") ? "-6" : "-4", "-c", "2", "-W", "1", ip);
    return commands.run(cmd, Duration.ofSeconds(5)).ok();
  }
}
