package dev.rendezvous.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.rendezvous.agent.executor.ConnectivityCheckExecutor;
import dev.rendezvous.agent.inventory.InventoryCollector;
import dev.rendezvous.agent.inventory.OshiHardwareProbe;
import dev.rendezvous.agent.step.HostRoot;
import dev.rendezvous.agent.step.ProcessCommandRunner;
import dev.rendezvous.agent.step.StepOutcome;
import dev.rendezvous.agent.wire.ConnectivityCheck;
import dev.rendezvous.agent.wire.Inventory;
import dev.rendezvous.agent.wire.Step;
import dev.rendezvous.agent.wire.WireJson;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The real collectors on the machine running the tests (no fixtures): every reported device must exist
 * in this host's /sys, and a real ping to 127.0.0.1 must come back. Skipped where lsblk / ip / ping are
 * missing (Debian packages util-linux, iproute2, iputils-ping).
 */
class RealHostTest {
  final ProcessCommandRunner commands = new ProcessCommandRunner();

  @Test
  void inventoryOfThisHost() throws Exception {
    assumeTrue(commands.available("lsblk") && commands.available("ip"), "lsblk and ip are installed");
    InventoryCollector collector = new InventoryCollector(HostRoot.SYSTEM, commands, new OshiHardwareProbe(), Optional.empty());
    Inventory inv = collector.collect();
    assertTrue(inv.cpu().count() >= 1);
    assertTrue(inv.memory().usableBytes() > 0 && inv.memory().physicalBytes() >= inv.memory().usableBytes());
    for (Inventory.Disk d : inv.disks()) {
      assertTrue(Files.exists(Path.of("/sys/block", d.name())), d.name());
      assertTrue(d.sizeBytes() >= 0);
    }
    for (Inventory.Interface i : inv.interfaces()) {
      assertTrue(Files.exists(Path.of("/sys/class/net", i.name())), i.name());
    }
    for (Inventory.Route r : inv.routes()) {
      assertTrue(Files.exists(Path.of("/sys/class/net", r.interfaceName())), r.interfaceName());
    }
    assertEquals(Files.exists(Path.of("/sys/firmware/efi")) ? "uefi" : "bios", inv.boot().currentBootMode());
    assertEquals(inv, WireJson.read(WireJson.write(inv), Inventory.class));
  }

  @Test
  void realPingToLoopback() throws Exception {
    assumeTrue(commands.available("ping") && commands.available("ip"), "ping and ip are installed");
    InventoryCollector collector = new InventoryCollector(HostRoot.SYSTEM, commands, new OshiHardwareProbe(), Optional.empty());
    StepOutcome out = new ConnectivityCheckExecutor(commands, collector::interfaces, 2).execute(new Step(
        "connectivity-check", "c-1", List.of("[{\"host_id\":\"self\",\"nics\":[{\"name\":\"lo\",\"mac\":\"00:00:00:00:00:00\","
            + "\"ip_addresses\":[\"127.0.0.1/8\"]}]}]")));
    assertEquals(0, out.exitCode(), out.error());
    ConnectivityCheck.L3Connectivity l3 = WireJson.read(out.output(), ConnectivityCheck.Report.class)
        .remoteHosts().get(0).l3Connectivity().get(0);
    assertTrue(l3.successful(), l3.toString());
    assertEquals(0.0, l3.packetLossPercentage());
    assertTrue(l3.averageRttMs() > 0 && l3.averageRttMs() < 100, l3.toString());
  }
}
