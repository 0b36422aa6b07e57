package dev.rendezvous.agent.dryrun;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.agent.wire.ConnectivityCheck;
import dev.rendezvous.agent.wire.Inventory;
import dev.rendezvous.agent.wire.Step;
import dev.rendezvous.agent.wire.StepModels;
import dev.rendezvous.agent.wire.WireJson;
import java.util.List;
import org.junit.jupiter.api.Test;

class DryRunExecutorsTest {
  final DryRunHost host = new DryRunHost("0b8a4c1e-2d3f-4a5b-8c6d-7e8f9a0b1c2d", 300, "10.200.0.0/16", null);

  @Test
  void inventoryPassesUpstreamMasterThresholds() {
    Inventory inv = WireJson.read(host.inventoryJson(), Inventory.class);
    assertTrue(inv.cpu().count() >= 8, "SNO needs 8 cores");
    assertTrue(inv.memory().physicalBytes() >= 16384L << 20, "master needs 16 GiB");
    Inventory.Disk disk = inv.disks().get(0);
    assertTrue(disk.installationEligibility().eligible());
    assertTrue(disk.sizeBytes() >= 120_000_000_000L, "100 GB + operators");
    assertEquals("SSD", disk.driveType());
    assertEquals(List.of("10.200.1.54/16"), inv.interfaces().get(0).ipv4Addresses(), "index 300 + 10");
    assertEquals("02:d7:00:00:01:2c", inv.interfaces().get(0).macAddress());
    assertEquals("rdv-dry-300", inv.hostname());
  }

  @Test
  void connectivityToEveryRequestedAddressSucceeds() {
    var out = DryRunExecutors.connectivity(host, new Step("connectivity-check", "c", List.of(
        "[{\"host_id\":\"h2\",\"nics\":[{\"name\":\"ens3\",\"mac\":\"02:D7:00:00:00:01\",\"ip_addresses\":[\"10.200.0.11/16\"]}]}]")));
    ConnectivityCheck.RemoteHost h = WireJson.read(out.output(), ConnectivityCheck.Report.class).remoteHosts().get(0);
    assertEquals("h2", h.hostId());
    assertTrue(h.l3Connectivity().get(0).successful());
    assertEquals("10.200.0.11", h.l3Connectivity().get(0).remoteIpAddress());
    assertEquals("02:d7:00:00:00:01", h.l2Connectivity().get(0).remoteMac());
    double rtt = h.l3Connectivity().get(0).averageRttMs();
    assertTrue(rtt >= 0.2 && rtt < 0.6, "a LAN's round trip: " + rtt);
  }

  @Test
  void freeAddressesLeaveOutTheHostItself() {
    var out = DryRunExecutors.freeAddresses(new DryRunHost("x", 5, "10.0.0.0/24", null),
        new Step("free-network-addresses", "f", List.of("[\"10.0.0.0/24\"]")));
    List<StepModels.FreeNetworkAddresses> nets = WireJson.read(out.output(), WireJson.listOf(StepModels.FreeNetworkAddresses.class));
    List<String> free = nets.get(0).freeAddresses();
    assertTrue(!free.contains("10.0.0.15") && free.contains("10.0.0.16") && !free.contains("10.0.0.1"));
  }

  @Test
  void theClusterNamesResolveAndTheWildcardProbeDoesNot() {
    var out = DryRunExecutors.domains(host, new Step("domain-resolution", "d", List.of("{\"domains\":["
        + "{\"domain_name\":\"api.sw1.example.com\"},{\"domain_name\":\"validateNoWildcardDNS.sw1.example.com\"}]}")));
    StepModels.DomainResolutionResponse r = WireJson.read(out.output(), StepModels.DomainResolutionResponse.class);
    assertEquals(1, r.resolutions().get(0).ipv4Addresses().size(), "api resolves");
    assertTrue(r.resolutions().get(1).ipv4Addresses().isEmpty(), "no wildcard record");
  }
}
