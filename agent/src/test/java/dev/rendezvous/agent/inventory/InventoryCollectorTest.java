package dev.rendezvous.agent.inventory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.agent.FixtureCommands;
import dev.rendezvous.agent.Fixtures;
import dev.rendezvous.agent.wire.Inventory;
import dev.rendezvous.agent.wire.WireJson;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The whole inventory from the captured VM tree and from the hand-written server tree (fixtures/README.md). */
class InventoryCollectorTest {

  static Inventory collect(String fixture, String detectVirt, int detectVirtRc) throws Exception {
    FixtureCommands commands = new FixtureCommands()
        .onFixture(BlockDevices.lsblkCommand(), fixture, "lsblk.json")
        .onFixture(List.of("ip", "-j", "-d", "addr", "show"), fixture, "ip-addr.json")
        .on(List.of("systemd-detect-virt", "--vm"), detectVirt + "\n", detectVirtRc);
    return new InventoryCollector(Fixtures.root(fixture), commands, HardwareProbe.NONE, Optional.empty()).collect();
  }

  static <T> Map<String, T> byName(List<T> items, Function<T, String> name) {
    return items.stream().collect(Collectors.toMap(name, x -> x));
  }

  @Test
  void capturedVm() throws Exception {
    Inventory inv = collect(Fixtures.VM, "kvm", 0);

    assertEquals("vm", inv.hostname());
    assertEquals("x86_64", inv.cpu().architecture());
    assertEquals(2, inv.cpu().count());
    assertEquals("AMD EPYC", inv.cpu().modelName());
    assertEquals(2445.406, inv.cpu().frequency(), 1e-9);
    assertTrue(inv.cpu().flags().containsAll(List.of("avx2", "hypervisor", "sse4_2")));

    assertEquals(24683656L * 1024, inv.memory().usableBytes());
    assertEquals(192L * 0x8000000L, inv.memory().physicalBytes(), "192 online blocks of 128 MiB");
    assertEquals("ghw", inv.memory().physicalBytesMethod());

    assertEquals(1, inv.disks().size(), "zram0 is skipped");
    Inventory.Disk vda = inv.disks().get(0);
    assertEquals("vda", vda.name());
    assertEquals("/dev/vda", vda.path());
    assertEquals("/dev/vda", vda.id(), "no udev links on this VM");
    assertEquals(274877906944L, vda.sizeBytes());
    assertEquals("HDD", vda.driveType(), "virtio reports rotational");
    assertEquals("201663336423722", vda.serial(), "virtio serial from sysfs");
    assertEquals("0x1af4", vda.vendor());
    assertFalse(vda.installationEligibility().eligible());
    assertEquals(List.of("Disk is mounted on '/run/netns'", "Disk is mounted on '/'"),
        vda.installationEligibility().notEligibleReasons());

    assertEquals(1, inv.interfaces().size(), "lo and the address-less ifb0/ifb1 are left out");
    Inventory.Interface eth0 = inv.interfaces().get(0);
    assertEquals("eth0", eth0.name());
    assertEquals("02:fc:00:00:00:01", eth0.macAddress());
    assertEquals(List.of("192.0.2.2/24"), eth0.ipv4Addresses());
    assertEquals(List.of("fd00::2/64"), eth0.ipv6Addresses(), "link-local fe80:: dropped");
    assertEquals(1400, eth0.mtu());
    assertTrue(eth0.hasCarrier());
    assertEquals(-1, eth0.speedMbps(), "virtio reports no speed");
    assertEquals("physical", eth0.type());
    assertEquals("0x1af4", eth0.vendor());
    assertEquals("0x0001", eth0.product(), "device is the virtio bus device (virtio2), not the PCI function");
    assertEquals(List.of("broadcast", "multicast", "up", "running"), eth0.flags());

    Map<String, Inventory.Route> v4 = inv.routes().stream().filter(r -> r.family() == 2)
        .collect(Collectors.toMap(Inventory.Route::destination, r -> r));
    assertEquals("192.0.2.1", v4.get("0.0.0.0").gateway());
    assertEquals("eth0", v4.get("0.0.0.0").interfaceName());
    assertEquals("0.0.0.0", v4.get("192.0.2.0").gateway());
    List<String> v6 = inv.routes().stream().filter(r -> r.family() == 10)
        .map(r -> r.destination() + " via " + r.gateway() + " metric " + r.metric()).toList();
    assertEquals(List.of("fd00:: via :: metric 256", "fe80:: via :: metric 256", ":: via fd00::1 metric 1024"), v6,
        "main table only: no lo, local or multicast rows");

    assertEquals("bios", inv.boot().currentBootMode());
    assertEquals("NotSupported", inv.boot().secureBootState());
    assertEquals("persistent", inv.boot().deviceType());
    assertNull(inv.boot().pxeInterface());
    assertNull(inv.systemVendor().manufacturer(), "DMI hidden on this VM");
    assertTrue(inv.systemVendor().virtual());
    assertEquals(List.of(), inv.gpus());
    assertEquals("none", inv.tpmVersion());

    String json = WireJson.write(inv);
    assertTrue(json.contains("\"interface\":\"eth0\""), "route field is named interface");
    assertTrue(json.contains("\"installation_eligibility\""));
    assertEquals(inv, WireJson.read(json, Inventory.class), "round-trips");
  }

  @Test
  void syntheticServer() throws Exception {
    Inventory inv = collect(Fixtures.SERVER, "none", 1);
    Map<String, Inventory.Disk> disks = byName(inv.disks(), Inventory.Disk::name);
    assertEquals(List.of("dm-0", "md0", "nvme0n1", "rbd0", "sda", "sdb", "sdc", "sdd", "sde", "sr0"),
        inv.disks().stream().map(Inventory.Disk::name).toList(),
        "dm-crypt, loop, zram and the hidden namespace are skipped");

    Inventory.Disk sda = disks.get("sda");
    assertEquals("/dev/disk/by-id/wwn-0x5002538e40a1b2c3", sda.id());
    assertEquals("/dev/disk/by-id/wwn-0x5002538e40a1b2c3", sda.byId());
    assertEquals("/dev/disk/by-path/pci-0000:00:17.0-ata-1", sda.byPath());
    assertEquals("SSD", sda.driveType());
    assertTrue(sda.bootable(), "boot signature 55AA");
    assertTrue(sda.hasUuid());
    assertEquals("0:0:0:0", sda.hctl());
    assertEquals("Samsung SSD 860", sda.model());
    assertEquals("S3Z9NB0K123456", sda.serial());
    assertTrue(sda.installationEligibility().eligible());

    assertEquals(List.of("Disk has partition 'sdb1' mounted on '/var/lib/containers'"),
        disks.get("sdb").installationEligibility().notEligibleReasons());
    assertEquals("HDD", disks.get("sdb").driveType());
    assertFalse(disks.get("sdb").bootable());

    Inventory.Disk sdc = disks.get("sdc");
    assertTrue(sdc.removable());
    assertTrue(sdc.isInstallationMedia());
    assertTrue(sdc.installationEligibility().notEligibleReasons()
        .contains("Disk appears to be an ISO installation media (has partition with mountpoint suffix iso)"));

    assertEquals(List.of("Disk is read-only"), disks.get("sdd").installationEligibility().notEligibleReasons());
    assertEquals("iSCSI", disks.get("sde").driveType());
    assertEquals("ODD", disks.get("sr0").driveType());
    assertTrue(disks.get("sr0").isInstallationMedia());
    assertEquals("RAID", disks.get("md0").driveType());
    assertTrue(disks.get("md0").installationEligibility().eligible());
    assertEquals("LVM", disks.get("dm-0").driveType());
    assertEquals(List.of("Disk is an LVM logical volume", "Disk is mounted on '/home'"),
        disks.get("dm-0").installationEligibility().notEligibleReasons());
    assertEquals(List.of("Disk has unknown storage controller"),
        disks.get("rbd0").installationEligibility().notEligibleReasons());
    Inventory.Disk nvme = disks.get("nvme0n1");
    assertEquals("/dev/disk/by-id/nvme-eui.0025388b91c1a2b3", nvme.id(), "nvme-eui. link preferred");
    assertTrue(nvme.installationEligibility().eligible(), "agent-labelled partition skips partition checks");

    assertEquals(List.of("bond0", "eno1", "eno2", "veth-ns"),
        inv.interfaces().stream().map(Inventory.Interface::name).sorted().toList(), "bridge without address left out");
    Map<String, Inventory.Interface> nics = byName(inv.interfaces(), Inventory.Interface::name);
    assertEquals(List.of("192.168.10.21/24"), nics.get("eno1").ipv4Addresses(), "169.254/16 dropped");
    assertEquals(List.of("2001:db8:10::21/64"), nics.get("eno1").ipv6Addresses());
    assertEquals(1000, nics.get("eno1").speedMbps());
    assertEquals("bond", nics.get("bond0").type());
    assertEquals("veth", nics.get("veth-ns").type());
    assertFalse(nics.get("eno2").hasCarrier());
    assertEquals("3c-ec-ef-aa-bb-ce", inv.hostname(), "localhost replaced by the MAC of bond0, first by name with an address");

    assertEquals(2, inv.gpus().size());
    Map<String, Inventory.Gpu> gpus = byName(inv.gpus(), Inventory.Gpu::address);
    assertEquals("NVIDIA Corporation", gpus.get("0000:3b:00.0").vendor());
    assertEquals("TU104GL [Tesla T4]", gpus.get("0000:3b:00.0").name());
    assertEquals("10de", gpus.get("0000:3b:00.0").vendorId());
    assertEquals("1eb8", gpus.get("0000:3b:00.0").deviceId());
    assertEquals("CoffeeLake-S GT2 [UHD Graphics 630]", gpus.get("0000:00:02.0").name());

    assertEquals("uefi", inv.boot().currentBootMode());
    assertEquals("Enabled", inv.boot().secureBootState());
    assertEquals("ephemeral", inv.boot().deviceType(), "/sysroot on a loop device: live ISO");
    assertEquals("3c:ec:ef:aa:bb:cc", inv.boot().pxeInterface());
    assertEquals(new Inventory.SystemVendor("Dell Inc.", "PowerEdge R640", "7XK1Y23", false), inv.systemVendor());
    assertEquals("2.0", inv.tpmVersion());
    assertEquals("meminfo", inv.memory().physicalBytesMethod());
    assertEquals(196608000L * 1024, inv.memory().physicalBytes());
    assertEquals("192.168.10.1", inv.routes().get(0).gateway());
    assertEquals(100, inv.routes().get(0).metric());
  }

  @Test
  void hardwareProbeFillsWhatFilesLack() throws Exception {
    FixtureCommands commands = new FixtureCommands()
        .onFixture(BlockDevices.lsblkCommand(), Fixtures.VM, "lsblk.json")
        .onFixture(List.of("ip", "-j", "-d", "addr", "show"), Fixtures.VM, "ip-addr.json");
    HardwareProbe probe = new HardwareProbe() {
      public java.util.OptionalLong memoryModulesBytes() {
        return java.util.OptionalLong.of(24L << 30);
      }

      public java.util.OptionalDouble cpuMaxMhz() {
        return java.util.OptionalDouble.of(3500);
      }

      public Optional<String> manufacturer() {
        return Optional.of("QEMU");
      }

      public Optional<String> productName() {
        return Optional.of("Standard PC (Q35 + ICH9, 2009)");
      }

      public Optional<String> serialNumber() {
        return Optional.empty();
      }
    };
    Inventory inv = new InventoryCollector(Fixtures.root(Fixtures.VM), commands, probe, Optional.of("node-7")).collect();
    assertEquals("node-7", inv.hostname());
    assertEquals(new Inventory.Memory(24L << 30, 24683656L * 1024, "dmidecode"), inv.memory());
    assertEquals(3500.0, inv.cpu().frequency(), 1e-9);
    assertEquals("QEMU", inv.systemVendor().manufacturer());
    assertTrue(inv.systemVendor().virtual(), "no systemd-detect-virt: the hypervisor CPU flag decides");
  }

  @Test
  void failsClearlyWhenLsblkFails() {
    FixtureCommands commands = new FixtureCommands()
        .on(BlockDevices.lsblkCommand(), r -> new dev.rendezvous.agent.step.CommandResult(1, "", "lsblk: unknown column: MOUNTPOINTS", false))
        .onFixture(List.of("ip", "-j", "-d", "addr", "show"), Fixtures.VM, "ip-addr.json");
    var e = org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class, () ->
        new InventoryCollector(Fixtures.root(Fixtures.VM), commands, HardwareProbe.NONE, Optional.empty()).collect());
    assertTrue(e.getMessage().contains("unknown column: MOUNTPOINTS"), e.getMessage());
  }
}
