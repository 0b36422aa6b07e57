package dev.rendezvous.agent.installer;

import dev.rendezvous.agent.step.CommandResult;
import dev.rendezvous.agent.step.CommandRunner;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes the freshly written disk the one the machine boots next, as upstream's installer does after writing
 * (reference §1.7.4): on Power {@code bootlist -m normal -o <disk>}; on a BIOS machine (no {@code /sys/firmware/efi})
 * nothing; on UEFI, mount the disk's partition 2 (the EFI system partition), find {@code EFI/redhat} or
 * {@code EFI/centos}, add an entry with {@code efibootmgr -c} for its shim and delete older entries of the same label.
 * Every failure is logged and ignored: a machine that does not boot the new disk first can still be fixed from its
 * console, a failed install cannot.
 */
public final class BootOrder {
  static final String LABEL = "Red Hat Enterprise Linux";
  private static final Logger LOG = LoggerFactory.getLogger(BootOrder.class);
  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final Pattern ENTRY = Pattern.compile("^Boot([0-9A-Fa-f]{4})\\*?\\s+(.*?)(\\t|\\s{2,}|$)");

  private final CommandRunner commands;
  private final Path sysFirmwareEfi;
  private final Path bootlist;
  private final String arch;

  public BootOrder(CommandRunner commands, Path sysFirmwareEfi, Path bootlist, String arch) {
    this.commands = commands;
    this.sysFirmwareEfi = sysFirmwareEfi;
    this.bootlist = bootlist;
    this.arch = arch;
  }

  /** This machine's firmware paths and architecture. */
  public static BootOrder ofThisMachine(CommandRunner commands) {
    return new BootOrder(commands, Path.of("/sys/firmware/efi"), Path.of("/usr/sbin/bootlist"),
        System.getProperty("os.arch"));
  }

  /** What was done, for the log and the tests: "bootlist", "bios", "efi", or why nothing was. */
  public String set(Path device) {
    try {
      if (Files.isExecutable(bootlist)) {
        run(List.of(bootlist.toString(), "-m", "normal", "-o", device.toString()));
        return "bootlist";
      }
      if (!Files.isDirectory(sysFirmwareEfi)) {
        return "bios";
      }
      if (!commands.available("efibootmgr")) {
        return "no efibootmgr";
      }
      Path mount = Files.createTempDirectory("rdv-esp-");
      try {
        if (!run(List.of("mount", partition(device, 2), mount.toString())).ok()) {
          return "esp not mountable";
        }
        try {
          String dir = Files.isDirectory(mount.resolve("EFI/redhat")) ? "redhat"
              : Files.isDirectory(mount.resolve("EFI/centos")) ? "centos" : null;
          if (dir == null) {
            return "no EFI/redhat or EFI/centos";
          }
          String shim = arch.equals("aarch64") || arch.equals("arm64") ? "shimaa64.efi" : "shimx64.efi";
          CommandResult created = run(List.of("efibootmgr", "-v", "-d", device.toString(), "-p", "2", "-c", "-L", LABEL,
              "-l", "\\EFI\\" + dir + "\\" + shim));
          deleteDuplicates(created.stdout());
          return "efi";
        } finally {
          run(List.of("umount", mount.toString()));
        }
      } finally {
        Files.deleteIfExists(mount);
      }
    } catch (IOException | RuntimeException e) {
      LOG.warn("could not set the boot order for {}: {}", device, e.toString());
      return "failed: " + e.getMessage();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted";
    }
  }

  /** efibootmgr lists every entry after creating one: all but the newest (the boot order's first) of our label go. */
  private void deleteDuplicates(String listing) throws IOException, InterruptedException {
    String order = null;
    List<String> ours = new ArrayList<>();
    for (String line : listing.split("\n")) {
      if (line.startsWith("BootOrder:")) {
        order = line.substring("BootOrder:".length()).strip();
      }
      Matcher m = ENTRY.matcher(line);
      if (m.find() && m.group(2).strip().equals(LABEL)) {
        ours.add(m.group(1).toUpperCase());
      }
    }
    String newest = order == null || order.isEmpty() ? null : order.split(",")[0].strip().toUpperCase();
    for (String num : ours) {
      if (!num.equals(newest)) {
        run(List.of("efibootmgr", "-b", num, "-B"));
      }
    }
  }

  private CommandResult run(List<String> argv) throws IOException, InterruptedException {
    CommandResult r = commands.run(argv, TIMEOUT);
    if (!r.ok()) {
      LOG.warn("{} failed: {}", String.join(" ", argv), r.failureText());
    }
    return r;
  }

  /** Partition {@code n} of a disk: {@code /dev/sda2}, {@code /dev/nvme0n1p2}, {@code /dev/loop3p2}. */
  static String partition(Path device, int n) {
    String d = device.toString();
    return Character.isDigit(d.charAt(d.length() - 1)) ? d + "p" + n : d + n;
  }
}
