package dev.rendezvous.agent.inventory;

import dev.rendezvous.agent.step.HostRoot;
import dev.rendezvous.agent.wire.Inventory;
import java.io.IOException;
import java.nio.file.Files;
import java.util.Locale;
import java.util.Set;

/**
 * Boot facts: mode = /sys/firmware/efi present (uefi) or not (bios); command line = /proc/cmdline;
 * PXE interface = the MAC in BOOTIF=01-aa-bb-..; secure boot = byte 4 of the SecureBoot efivar (after its
 * 4 attribute bytes); device type = ephemeral when /sysroot (CoreOS live) or / is a loop device or an
 * in-memory filesystem, else persistent.
 */
public final class BootInfo {
  static final String SECURE_BOOT_VAR =
      "/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c";
  private static final Set<String> MEMORY_FS = Set.of("overlay", "tmpfs", "squashfs", "rootfs", "ramfs");

  private BootInfo() {}

  public static Inventory.Boot read(HostRoot root) {
    boolean uefi = root.exists("/sys/firmware/efi");
    String cmdline = root.read("/proc/cmdline").orElse("");
    return new Inventory.Boot(
        uefi ? "uefi" : "bios",
        pxeInterface(cmdline),
        cmdline,
        uefi ? secureBoot(root) : "NotSupported",
        deviceType(root.read("/proc/mounts").orElse("")));
  }

  static String pxeInterface(String cmdline) {
    for (String token : cmdline.split("\\s+")) {
      if (token.startsWith("BOOTIF=")) {
        String v = token.substring(7).toLowerCase(Locale.ROOT);
        if (v.matches("01-([0-9a-f]{2}-){5}[0-9a-f]{2}")) {
          return v.substring(3).replace('-', ':');
        }
        return v.replace('-', ':');
      }
    }
    return null;
  }

  private static String secureBoot(HostRoot root) {
    try {
      byte[] b = Files.readAllBytes(root.path(SECURE_BOOT_VAR));
      return b.length < 5 ? "Unknown" : b[4] == 1 ? "Enabled" : "Disabled";
    } catch (IOException e) {
      return "Unknown";
    }
  }

  static String deviceType(String procMounts) {
    String rootSource = null;
    String rootFs = null;
    for (String line : procMounts.split("\n")) {
      String[] f = line.split("\\s+");
      if (f.length < 3) {
        continue;
      }
      if (f[1].equals("/sysroot")) {
        return f[0].startsWith("/dev/loop") ? "ephemeral" : "persistent";
      }
      if (f[1].equals("/")) {
        rootSource = f[0];
        rootFs = f[2];
      }
    }
    if (rootSource == null) {
      return "persistent";
    }
    return rootSource.startsWith("/dev/loop") || MEMORY_FS.contains(rootFs) ? "ephemeral" : "persistent";
  }
}
