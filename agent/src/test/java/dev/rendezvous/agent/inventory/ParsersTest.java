package dev.rendezvous.agent.inventory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.rendezvous.agent.Fixtures;
import java.util.List;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;

class ParsersTest {
  @Test
  void ipv6Text() {
    assertEquals("fd00::1", Ipv6Text.canonical("fd00:0:0:0:0:0:0:1"));
    assertEquals("::", Ipv6Text.canonical("0:0:0:0:0:0:0:0"));
    assertEquals("2001:db8::1:0:0:1", Ipv6Text.canonical("2001:db8:0:0:1:0:0:1"), "first longest run");
    assertEquals("2001:db8:0:1:1:1:1:1", Ipv6Text.canonical("2001:db8:0:1:1:1:1:1"), "a single zero group stays");
    assertEquals("fe80::", RouteTable.ipv6("fe800000000000000000000000000000"));
  }

  @Test
  void littleEndianIpv4() {
    assertEquals("192.0.2.1", RouteTable.littleEndianIpv4("010200C0"));
  }

  @Test
  void armCpuinfo() {
    String arm = "processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd evtstrm aes\nCPU part\t: 0xd0c\n\n"
        + "processor\t: 1\nFeatures\t: fp asimd evtstrm aes\nCPU part\t: 0xd0c\n";
    var cpu = CpuInfo.parse(arm, "aarch64", OptionalDouble.of(3000));
    assertEquals(2, cpu.count());
    assertEquals(List.of("fp", "asimd", "evtstrm", "aes"), cpu.flags());
    assertEquals("0xd0c", cpu.modelName());
    assertEquals(3000.0, cpu.frequency(), 1e-9);
  }

  @Test
  void meminfoNeedsMemTotal() {
    assertEquals(24683656L * 1024,
        MemoryInfo.memTotalBytes(Fixtures.root(Fixtures.VM).readRaw("/proc/meminfo").orElseThrow()));
    assertThrows(IllegalArgumentException.class, () -> MemoryInfo.memTotalBytes("MemFree: 1 kB\n"));
  }

  @Test
  void bootDeviceType() {
    assertEquals("ephemeral", BootInfo.deviceType("/dev/loop1 /sysroot xfs ro 0 0\n"));
    assertEquals("persistent", BootInfo.deviceType("/dev/sda4 /sysroot xfs rw 0 0\n"));
    assertEquals("ephemeral", BootInfo.deviceType("overlay / overlay rw 0 0\n"));
    assertEquals("persistent", BootInfo.deviceType("/dev/vda / ext4 rw 0 0\n"));
    assertEquals("aa:bb:cc:dd:ee:ff", BootInfo.pxeInterface("quiet BOOTIF=01-AA-BB-CC-DD-EE-FF ip=dhcp"));
  }

  @Test
  void mbrSignature() {
    byte[] sector = new byte[512];
    assertEquals(false, BlockDevices.isMbrBootSector(sector));
    sector[510] = 0x55;
    sector[511] = (byte) 0xaa;
    assertEquals(true, BlockDevices.isMbrBootSector(sector));
  }
}
