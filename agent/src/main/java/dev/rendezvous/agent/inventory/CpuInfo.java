package dev.rendezvous.agent.inventory;

import dev.rendezvous.agent.wire.Inventory;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;

/**
 * CPU facts from /proc/cpuinfo (upstream uses {@code lscpu -J}, which reads the same file):
 * count = "processor" entries, model = "model name" (x86) / "Model name" / "cpu model" / "CPU part",
 * flags = "flags" (x86) / "Features" (arm), frequency = max of every "cpu MHz" and the sysfs/OSHI maximum.
 */
public final class CpuInfo {
  private CpuInfo() {}

  public static Inventory.Cpu parse(String cpuinfo, String architecture, OptionalDouble maxMhz) {
    int count = 0;
    String model = null;
    List<String> flags = List.of();
    double mhz = maxMhz.orElse(0.0);
    for (String line : cpuinfo.split("\n")) {
      int colon = line.indexOf(':');
      if (colon < 0) {
        continue;
      }
      String key = line.substring(0, colon).trim().toLowerCase(Locale.ROOT);
      String value = line.substring(colon + 1).trim();
      switch (key) {
        case "processor" -> count++;
        case "model name", "cpu model", "cpu part" -> {
          if (model == null && !value.isEmpty()) {
            model = value;
          }
        }
        case "flags", "features" -> {
          if (flags.isEmpty() && !value.isEmpty()) {
            flags = Arrays.asList(value.split("\\s+"));
          }
        }
        case "cpu mhz" -> {
          try {
            mhz = Math.max(mhz, Double.parseDouble(value));
          } catch (NumberFormatException ignored) {
            // some kernels print "unknown"
          }
        }
        default -> {}
      }
    }
    return new Inventory.Cpu(architecture, count, List.copyOf(flags), mhz, model == null ? "unknown" : model);
  }

  /** uname -m style name from /proc/sys/kernel/arch, else the JVM's os.arch mapped to it. */
  public static String architecture(java.util.Optional<String> kernelArch) {
    if (kernelArch.isPresent() && !kernelArch.get().isBlank()) {
      return kernelArch.get();
    }
    String a = System.getProperty("os.arch", "unknown");
    return switch (a) {
      case "amd64", "x86_64" -> "x86_64";
      case "aarch64", "arm64" -> "aarch64";
      default -> a;
    };
  }
}
