package dev.rendezvous.agent.inventory;

import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import oshi.SystemInfo;
import oshi.hardware.HardwareAbstractionLayer;
import oshi.hardware.PhysicalMemory;

/**
 * OSHI on the live host. OSHI reads /sys/class/dmi/id and falls back to dmidecode / lshw; on a VM that
 * hides DMI (stack.md trap 8) the identity fields come back "unknown" and are reported as absent.
 * Built lazily: OSHI loads JNA on first use (a few hundred ms), on a step worker thread.
 */
public final class OshiHardwareProbe implements HardwareProbe {
  private static final Logger LOG = LoggerFactory.getLogger(OshiHardwareProbe.class);
  private volatile HardwareAbstractionLayer hal;

  private HardwareAbstractionLayer hal() {
    HardwareAbstractionLayer h = hal;
    if (h == null) {
      synchronized (this) {
        if (hal == null) {
          hal = new SystemInfo().getHardware();
        }
        h = hal;
      }
    }
    return h;
  }

  @Override
  public OptionalLong memoryModulesBytes() {
    try {
      long sum = hal().getMemory().getPhysicalMemory().stream().mapToLong(PhysicalMemory::getCapacity).sum();
      return sum > 0 ? OptionalLong.of(sum) : OptionalLong.empty();
    } catch (RuntimeException | LinkageError e) {
      LOG.debug("OSHI memory modules unavailable", e);
      return OptionalLong.empty();
    }
  }

  @Override
  public OptionalDouble cpuMaxMhz() {
    try {
      long hz = hal().getProcessor().getMaxFreq();
      return hz > 0 ? OptionalDouble.of(hz / 1_000_000.0) : OptionalDouble.empty();
    } catch (RuntimeException | LinkageError e) {
      return OptionalDouble.empty();
    }
  }

  @Override
  public Optional<String> manufacturer() {
    return known(() -> hal().getComputerSystem().getManufacturer());
  }

  @Override
  public Optional<String> productName() {
    return known(() -> hal().getComputerSystem().getModel());
  }

  @Override
  public Optional<String> serialNumber() {
    return known(() -> hal().getComputerSystem().getSerialNumber());
  }

  private static Optional<String> known(java.util.function.Supplier<String> s) {
    try {
      String v = s.get();
      return HardwareProbe.isPlaceholder(v) ? Optional.empty() : Optional.of(v.trim());
    } catch (RuntimeException | LinkageError e) {
      return Optional.empty();
    }
  }
}
