package dev.rendezvous.agent.installer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.agent.step.CommandResult;
import dev.rendezvous.agent.step.CommandRunner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Upstream's boot order step (reference §1.7.4) against recorded commands: no firmware on this machine is touched.
 * The "mount" is recorded, not run, so the ESP's content is what the test puts into the mount point it is given.
 */
class BootOrderTest {
  @TempDir Path dir;

  /** Records argv; on "mount" lays out an ESP with {@code efiDir} in the mount point; efibootmgr answers {@code listing}. */
  static final class Recorder implements CommandRunner {
    final List<List<String>> ran = new ArrayList<>();
    final String efiDir;
    final String listing;

    Recorder(String efiDir, String listing) {
      this.efiDir = efiDir;
      this.listing = listing;
    }

    @Override
    public CommandResult run(List<String> command, Duration timeout) throws java.io.IOException {
      ran.add(command);
      if (command.get(0).equals("mount") && efiDir != null) {
        Files.createDirectories(Path.of(command.get(2), "EFI", efiDir));
      }
      if (command.get(0).equals("umount")) {
        try (var walk = Files.walk(Path.of(command.get(1)))) {
          for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
            if (!p.equals(Path.of(command.get(1)))) {
              Files.delete(p);
            }
          }
        }
      }
      return new CommandResult(0, command.get(0).equals("efibootmgr") && command.contains("-c") ? listing : "", "", false);
    }

    @Override
    public boolean available(String program) {
      return true;
    }
  }

  @Test
  void onUefiTheDisksShimBecomesTheFirstEntryAndOlderOnesOfTheLabelGo() throws Exception {
    Path efi = Files.createDirectories(dir.resolve("efi"));
    String listing = String.join("\n", "BootCurrent: 0001", "BootOrder: 0004,0001,0003",
        "Boot0001* Red Hat Enterprise Linux\tHD(2,GPT,aa)/File(\\EFI\\redhat\\shimx64.efi)",
        "Boot0003* UEFI PXEv4\tPciRoot(0x0)", "Boot0004* Red Hat Enterprise Linux\tHD(2,GPT,bb)/File(\\EFI\\redhat\\shimx64.efi)");
    Recorder r = new Recorder("redhat", listing);
    assertEquals("efi", new BootOrder(r, efi, dir.resolve("no-bootlist"), "amd64").set(Path.of("/dev/nvme0n1")));
    assertEquals("mount", r.ran.get(0).get(0));
    assertEquals("/dev/nvme0n1p2", r.ran.get(0).get(1));
    assertEquals(List.of("efibootmgr", "-v", "-d", "/dev/nvme0n1", "-p", "2", "-c", "-L", "Red Hat Enterprise Linux",
        "-l", "\\EFI\\redhat\\shimx64.efi"), r.ran.get(1));
    assertEquals(List.of("efibootmgr", "-b", "0001", "-B"), r.ran.get(2), "the older entry of the label is deleted");
    assertEquals("umount", r.ran.get(3).get(0));
    assertEquals(4, r.ran.size());
  }

  @Test
  void biosMachinesPowerAndDisksWithoutAnEspAreHandledAsUpstream() throws Exception {
    Recorder bios = new Recorder("redhat", "");
    assertEquals("bios", new BootOrder(bios, dir.resolve("none"), dir.resolve("no-bootlist"), "amd64")
        .set(Path.of("/dev/sda")));
    assertTrue(bios.ran.isEmpty(), "nothing runs on a BIOS machine");

    Path bootlist = dir.resolve("bootlist");
    Files.writeString(bootlist, "#!/bin/sh\n");
    bootlist.toFile().setExecutable(true);
    Recorder power = new Recorder(null, "");
    assertEquals("bootlist", new BootOrder(power, dir, bootlist, "ppc64le").set(Path.of("/dev/sda")));
    assertEquals(List.of(bootlist.toString(), "-m", "normal", "-o", "/dev/sda"), power.ran.get(0));

    Recorder noShim = new Recorder(null, "");
    assertEquals("no EFI/redhat or EFI/centos", new BootOrder(noShim, Files.createDirectories(dir.resolve("efi2")),
        dir.resolve("no-bootlist"), "aarch64").set(Path.of("/dev/sda")));
    assertEquals("/dev/sda2", noShim.ran.get(0).get(1));
    assertEquals("umount", noShim.ran.get(noShim.ran.size() - 1).get(0));
  }
}
