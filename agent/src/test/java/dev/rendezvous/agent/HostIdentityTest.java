package dev.rendezvous.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rendezvous.agent.step.HostRoot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HostIdentityTest {
  @TempDir
  Path tmp;

  void write(String path, String text) throws Exception {
    Path p = tmp.resolve(path.substring(1));
    Files.createDirectories(p.getParent());
    Files.writeString(p, text);
  }

  @Test
  void vmWithoutDmiUsesMachineId() {
    HostIdentity id = HostIdentity.resolve(Fixtures.root(Fixtures.VM), Optional.empty());
    assertEquals(new HostIdentity("4c2f0a5e-9b7d-4e1f-a3c8-5d6b7e8f9a01", HostIdentity.Source.MACHINE_ID), id);
  }

  @Test
  void boardSerialComesFirstAsUpstream() {
    HostIdentity id = HostIdentity.resolve(Fixtures.root(Fixtures.SERVER), Optional.empty());
    assertEquals(HostIdentity.Source.BOARD_SERIAL, id.source());
    // echo -n ".7XK1Y23.CNFCP0012345." | md5sum → ee911c8938c3b527ec1292a6120a6a7e
    assertEquals("ee911c89-38c3-b527-ec12-92a6120a6a7e", id.hostId());
  }

  @Test
  void productUuidWhenTheSerialIsAPlaceholder() throws Exception {
    write("/sys/class/dmi/id/board_serial", "To be filled by O.E.M.\n");
    write("/sys/class/dmi/id/product_uuid", "4C4C4544-0058-4B10-8031-B7C04F593233\n");
    write("/etc/machine-id", "0123456789abcdef0123456789abcdef\n");
    assertEquals(new HostIdentity("4c4c4544-0058-4b10-8031-b7c04f593233", HostIdentity.Source.PRODUCT_UUID),
        HostIdentity.resolve(new HostRoot(tmp), Optional.empty()));
  }

  @Test
  void bogusProductUuidIsSkipped() throws Exception {
    write("/sys/class/dmi/id/product_uuid", "03000200-0400-0500-0006-000700080009\n");
    write("/etc/machine-id", "0123456789abcdef0123456789abcdef\n");
    assertEquals(HostIdentity.Source.MACHINE_ID, HostIdentity.resolve(new HostRoot(tmp), Optional.empty()).source());
  }

  @Test
  void lowestPhysicalMacThenTheFallback() throws Exception {
    assertEquals(new HostIdentity("deaddead-dead-dead-dead-deaddeaddead", HostIdentity.Source.FALLBACK),
        HostIdentity.resolve(new HostRoot(tmp), Optional.empty()));
    write("/sys/class/net/eth1/address", "52:54:00:00:00:02\n");
    write("/sys/class/net/eth1/device/vendor", "0x1af4\n");
    write("/sys/class/net/eth0/address", "52:54:00:00:00:01\n");
    write("/sys/class/net/eth0/device/vendor", "0x1af4\n");
    write("/sys/class/net/veth0/address", "02:00:00:00:00:00\n");
    assertEquals(new HostIdentity(HostIdentity.md5Uuid("52:54:00:00:00:01"), HostIdentity.Source.MAC),
        HostIdentity.resolve(new HostRoot(tmp), Optional.empty()));
  }

  @Test
  void overrideWins() {
    assertEquals(HostIdentity.Source.OVERRIDE,
        HostIdentity.resolve(Fixtures.root(Fixtures.SERVER), Optional.of("AAAAAAAA-0000-0000-0000-000000000001")).source());
  }
}
