package dev.rendezvous.agent.inventory;

import dev.rendezvous.agent.step.HostRoot;
import dev.rendezvous.agent.wire.Inventory;
import java.util.List;
import java.util.Optional;

/**
 * System vendor: /sys/class/dmi/id/{sys_vendor,product_name,product_serial}, else OSHI (which also tries
 * dmidecode); placeholders like "To be filled by O.E.M." count as unknown and are left out.
 * {@code virtual}: {@code systemd-detect-virt --vm} naming a hypervisor, else the CPU's "hypervisor" flag.
 */
public final class SystemVendorInfo {
  private SystemVendorInfo() {}

  public static Inventory.SystemVendor read(
      HostRoot root, HardwareProbe probe, Optional<String> detectVirtOutput, List<String> cpuFlags) {
    String manufacturer = dmi(root, "sys_vendor").or(probe::manufacturer).orElse(null);
    String product = dmi(root, "product_name").or(probe::productName).orElse(null);
    String serial = dmi(root, "product_serial").or(probe::serialNumber).orElse(null);
    boolean virtual = detectVirtOutput
        .map(o -> !o.isBlank() && !o.trim().equals("none"))
        .orElse(cpuFlags.contains("hypervisor"));
    return new Inventory.SystemVendor(manufacturer, product, serial, virtual);
  }

  private static Optional<String> dmi(HostRoot root, String field) {
    return root.read("/sys/class/dmi/id/" + field).filter(v -> !HardwareProbe.isPlaceholder(v));
  }
}
