package dev.rendezvous.agent.inventory;

import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * Facts a library reads better than plain files: DMI memory modules (dmidecode), DMI system identity with
 * its fallbacks, the CPU's maximum frequency. {@link OshiHardwareProbe} on a host; {@link #NONE} for
 * captured trees, where only the files speak.
 */
public interface HardwareProbe {
  OptionalLong memoryModulesBytes();

  OptionalDouble cpuMaxMhz();

  Optional<String> manufacturer();

  Optional<String> productName();

  Optional<String> serialNumber();

  HardwareProbe NONE = new HardwareProbe() {
    @Override
    public OptionalLong memoryModulesBytes() {
      return OptionalLong.empty();
    }

    @Override
    public OptionalDouble cpuMaxMhz() {
      return OptionalDouble.empty();
    }

    @Override
    public Optional<String> manufacturer() {
      return Optional.empty();
    }

    @Override
    public Optional<String> productName() {
      return Optional.empty();
    }

    @Override
    public Optional<String> serialNumber() {
      return Optional.empty();
    }
  };

  /** DMI placeholders that mean "unknown" (upstream's list for serials, plus OSHI's "unknown"). */
  static boolean isPlaceholder(String s) {
    if (s == null) {
      return true;
    }
    String l = s.trim().toLowerCase(java.util.Locale.ROOT);
    return l.isEmpty() || l.equals("unknown") || l.equals("none") || l.equals("(none)") || l.equals("-")
        || l.equals("default string") || l.equals("not specified") || l.equals("to be filled by o.e.m.")
        || l.startsWith("unspecified") || l.equals("0") || l.equals("system serial number");
  }
}
