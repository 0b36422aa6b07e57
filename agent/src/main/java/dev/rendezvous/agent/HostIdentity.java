package dev.rendezvous.agent;

import dev.rendezvous.agent.inventory.HardwareProbe;
import dev.rendezvous.agent.step.HostRoot;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Locale;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The host id the agent registers with, in upstream's order of sources (assisted-installer-agent):
 * <ol>
 *   <li>{@code --host-id} override (swarms, tests);
 *   <li>md5 of the motherboard serial (/sys/class/dmi/id/board_serial) unless it is a placeholder;
 *   <li>the SMBIOS system UUID (/sys/class/dmi/id/product_uuid), lower-cased, unless all-zero or the
 *       well-known bogus {@code 03000200-0400-0500-0006-000700080009};
 *   <li><b>ours</b>: /etc/machine-id formatted as a UUID — VMs that hide DMI (like the one this was
 *       written on, stack.md trap 8) still get a stable, unique id that survives reboots;
 *   <li>md5 of the lowest MAC of a physical NIC;
 *   <li>{@code deaddead-dead-dead-dead-deaddeaddead}.
 * </ol>
 */
public record HostIdentity(String hostId, Source source) {
  public enum Source { OVERRIDE, BOARD_SERIAL, PRODUCT_UUID, MACHINE_ID, MAC, FALLBACK }

  static final String FALLBACK_ID = "deaddead-dead-dead-dead-deaddeaddead";
  private static final String BOGUS_UUID = "03000200-0400-0500-0006-000700080009";
  private static final String ZERO_UUID = "00000000-0000-0000-0000-000000000000";

  public static HostIdentity resolve(HostRoot root, Optional<String> override) {
    if (override.isPresent()) {
      return new HostIdentity(override.get().toLowerCase(Locale.ROOT), Source.OVERRIDE);
    }
    Optional<String> serial = root.read("/sys/class/dmi/id/board_serial").filter(s -> !HardwareProbe.isPlaceholder(s));
    if (serial.isPresent()) {
      return new HostIdentity(md5Uuid(serial.get()), Source.BOARD_SERIAL);
    }
    Optional<String> uuid = root.read("/sys/class/dmi/id/product_uuid").map(s -> s.toLowerCase(Locale.ROOT))
        .filter(s -> s.matches("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"))
        .filter(s -> !s.equals(ZERO_UUID) && !s.equals(BOGUS_UUID));
    if (uuid.isPresent()) {
      return new HostIdentity(uuid.get(), Source.PRODUCT_UUID);
    }
    Optional<String> machineId = root.read("/etc/machine-id").map(s -> s.toLowerCase(Locale.ROOT))
        .filter(s -> s.matches("[0-9a-f]{32}") && !s.matches("0{32}"));
    if (machineId.isPresent()) {
      return new HostIdentity(asUuid(machineId.get()), Source.MACHINE_ID);
    }
    TreeSet<String> macs = new TreeSet<>();
    for (String nic : root.list("/sys/class/net")) {
      if (root.exists("/sys/class/net/" + nic + "/device")) {
        root.read("/sys/class/net/" + nic + "/address").filter(m -> !m.equals("00:00:00:00:00:00")).ifPresent(macs::add);
      }
    }
    if (!macs.isEmpty()) {
      return new HostIdentity(md5Uuid(macs.first()), Source.MAC);
    }
    return new HostIdentity(FALLBACK_ID, Source.FALLBACK);
  }

  static String md5Uuid(String s) {
    try {
      byte[] d = MessageDigest.getInstance("MD5").digest(s.getBytes(StandardCharsets.UTF_8));
      StringBuilder hex = new StringBuilder();
      for (byte b : d) {
        hex.append(String.format("%02x", b));
      }
      return asUuid(hex.toString());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  static String asUuid(String hex32) {
    return hex32.substring(0, 8) + "-" + hex32.substring(8, 12) + "-" + hex32.substring(12, 16) + "-"
        + hex32.substring(16, 20) + "-" + hex32.substring(20);
  }
}
