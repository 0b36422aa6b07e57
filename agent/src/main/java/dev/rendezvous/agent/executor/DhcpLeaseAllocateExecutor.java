package dev.rendezvous.agent.executor;

import dev.rendezvous.agent.dhcp.DhcpClient;
import dev.rendezvous.agent.dhcp.DhcpLease;
import dev.rendezvous.agent.netcheck.Ipv4Network;
import dev.rendezvous.agent.step.StepExecutor;
import dev.rendezvous.agent.step.StepOutcome;
import dev.rendezvous.agent.wire.Inventory;
import dev.rendezvous.agent.wire.Step;
import dev.rendezvous.agent.wire.StepModels;
import dev.rendezvous.agent.wire.WireJson;
import java.io.IOException;
import java.net.InetAddress;
import java.time.Clock;
import java.time.Duration;

/**
 * {@code dhcp-lease-allocate}: args[0] = {"interface", "api_vip_mac", "ingress_vip_mac", "api_vip_lease",
 * "ingress_vip_lease"}. Leases one address for each VIP's MAC from the DHCP server on the named NIC's network (see
 * {@link DhcpClient}); a lease the service handed back is renewed (its address asked for again). Output upstream's
 * {"api_vip_address", "ingress_vip_address", "api_vip_lease", "ingress_vip_lease"}, the leases in dhclient's form.
 * No answer fails the step (exit -1, why on stderr): the VIPs stay unallocated and the cluster says so.
 */
public final class DhcpLeaseAllocateExecutor implements StepExecutor {
  private final InterfaceSource local;
  private final Duration answerWait;
  private final Clock clock;

  public DhcpLeaseAllocateExecutor(InterfaceSource local, Duration answerWait, Clock clock) {
    this.local = local;
    this.answerWait = answerWait;
    this.clock = clock;
  }

  @Override
  public StepOutcome execute(Step step) throws Exception {
    if (step.arg(0) == null) {
      throw new IllegalArgumentException("dhcp-lease-allocate: args[0] ({\"interface\", \"api_vip_mac\", ...}) is missing");
    }
    StepModels.DhcpAllocationRequest req = WireJson.read(step.arg(0), StepModels.DhcpAllocationRequest.class);
    if (req.interfaceName() == null || req.interfaceName().isBlank()) {
      throw new IllegalArgumentException("dhcp-lease-allocate: interface is missing");
    }
    byte[] apiMac = DhcpClient.parseMac(req.apiVipMac());
    byte[] ingressMac = DhcpClient.parseMac(req.ingressVipMac());
    InetAddress broadcast = broadcastOf(req.interfaceName());
    try (DhcpClient client = new DhcpClient(broadcast, answerWait, 3, clock)) {
      DhcpLease api = client.lease("api", apiMac, DhcpLease.fixedAddress(req.apiVipLease()).orElse(null));
      DhcpLease ingress = client.lease("ingress", ingressMac, DhcpLease.fixedAddress(req.ingressVipLease()).orElse(null));
      return StepOutcome.ok(WireJson.write(new StepModels.DhcpAllocationResponse(api.addressText(), ingress.addressText(),
          api.text(), ingress.text())));
    } catch (IOException e) {
      return StepOutcome.failure(StepOutcome.AGENT_ERROR, "dhcp-lease-allocate on " + req.interfaceName() + ": "
          + e.getMessage());
    }
  }

  @Override
  public Duration timeout(Step step, Duration dflt) {
    return answerWait.multipliedBy(16).plusSeconds(5); // two VIPs, each up to a renewal and two full exchanges
  }

  /** The broadcast address of the NIC's first IPv4 network; the limited broadcast when it has none. */
  private InetAddress broadcastOf(String nic) throws IOException, InterruptedException {
    for (Inventory.Interface i : local.interfaces()) {
      if (i.name().equals(nic) && i.ipv4Addresses() != null && !i.ipv4Addresses().isEmpty()) {
        Ipv4Network n = Ipv4Network.parse(i.ipv4Addresses().get(0));
        return InetAddress.getByName(Ipv4Network.toDotted(n.network() | ~n.mask()));
      }
    }
    return InetAddress.getByName("255.255.255.255");
  }
}
