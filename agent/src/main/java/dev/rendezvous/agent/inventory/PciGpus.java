package dev.rendezvous.agent.inventory;

import dev.rendezvous.agent.step.HostRoot;
import dev.rendezvous.agent.wire.Inventory;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * GPUs: PCI functions in /sys/bus/pci/devices whose class is a display controller: 0x0300 (VGA), 0x0302
 * (3D) or 0x0380 (other display). Names come from the pci.ids database when the host has one
 * (hwdata / pciutils); otherwise the name is left out and the ids remain.
 */
public final class PciGpus {
  private static final String[] PCI_IDS = {"/usr/share/hwdata/pci.ids", "/usr/share/misc/pci.ids"};

  private PciGpus() {}

  public static List<Inventory.Gpu> scan(HostRoot root) {
    List<Inventory.Gpu> gpus = new ArrayList<>();
    PciIds ids = null;
    for (String address : root.list("/sys/bus/pci/devices")) {
      String dir = "/sys/bus/pci/devices/" + address;
      String cls = root.read(dir + "/class").orElse("");
      if (!(cls.startsWith("0x0300") || cls.startsWith("0x0302") || cls.startsWith("0x0380"))) {
        continue;
      }
      String vendorId = strip0x(root.read(dir + "/vendor").orElse(""));
      String deviceId = strip0x(root.read(dir + "/device").orElse(""));
      if (ids == null) {
        ids = PciIds.load(root, PCI_IDS);
      }
      gpus.add(new Inventory.Gpu(ids.vendor(vendorId).orElse(null), vendorId, deviceId,
          ids.device(vendorId, deviceId).orElse(null), address));
    }
    return gpus;
  }

  private static String strip0x(String s) {
    return s.startsWith("0x") ? s.substring(2) : s;
  }

  /** The few lines of pci.ids we need: "vvvv  Vendor" and "\tdddd  Device". */
  record PciIds(String text) {
    static PciIds load(HostRoot root, String[] candidates) {
      for (String c : candidates) {
        Optional<String> t = root.readRaw(c);
        if (t.isPresent()) {
          return new PciIds(t.get());
        }
      }
      return new PciIds("");
    }

    Optional<String> vendor(String vendorId) {
      int i = vendorLine(vendorId);
      return i < 0 ? Optional.empty() : Optional.of(lineAt(i).substring(4).trim());
    }

    Optional<String> device(String vendorId, String deviceId) {
      int i = vendorLine(vendorId);
      if (i < 0) {
        return Optional.empty();
      }
      int pos = text.indexOf('\n', i) + 1;
      while (pos > 0 && pos < text.length()) {
        String line = lineAt(pos);
        if (!line.startsWith("\t") && !line.startsWith("#")) {
          break;
        }
        if (line.startsWith("\t" + deviceId + " ")) {
          return Optional.of(line.substring(deviceId.length() + 1).trim());
        }
        pos = text.indexOf('\n', pos) + 1;
      }
      return Optional.empty();
    }

    private int vendorLine(String vendorId) {
      if (vendorId.isEmpty()) {
        return -1;
      }
      String key = "\n" + vendorId + "  ";
      int i = text.indexOf(key);
      return i < 0 ? -1 : i + 1;
    }

    private String lineAt(int pos) {
      int end = text.indexOf('\n', pos);
      return text.substring(pos, end < 0 ? text.length() : end);
    }
  }
}
