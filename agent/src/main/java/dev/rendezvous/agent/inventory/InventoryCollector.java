package dev.rendezvous.agent.inventory;

import dev.rendezvous.agent.step.CommandResult;
import dev.rendezvous.agent.step.CommandRunner;
import dev.rendezvous.agent.step.HostRoot;
import dev.rendezvous.agent.wire.Inventory;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Builds the {@code inventory} step's output from a host tree, two commands ({@code lsblk} and
 * {@code ip -j -d addr}; {@code systemd-detect-virt} when present) and a {@link HardwareProbe}. Each
 * section's source is documented on its reader class.
 */
public final class InventoryCollector {
  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(30);
  private static final Set<String> LOCALHOST_NAMES = Set.of(
      "localhost", "localhost.localdomain", "localhost4", "localhost4.localdomain4", "localhost6",
      "localhost6.localdomain6");

  private final HostRoot root;
  private final CommandRunner commands;
  private final HardwareProbe probe;
  private final Optional<String> hostnameOverride;

  private final boolean includeLoopDisks;

  public InventoryCollector(HostRoot root, CommandRunner commands, HardwareProbe probe, Optional<String> hostname) {
    this(root, commands, probe, hostname, false);
  }

  public InventoryCollector(HostRoot root, CommandRunner commands, HardwareProbe probe, Optional<String> hostname,
      boolean includeLoopDisks) {
    this.includeLoopDisks = includeLoopDisks;
    this.root = root;
    this.commands = commands;
    this.probe = probe;
    this.hostnameOverride = hostname;
  }

  /** The interfaces alone (the connectivity and free-address steps need them, not the rest). */
  public List<Inventory.Interface> interfaces() throws IOException, InterruptedException {
    return NetworkInterfaces.parse(require(List.of("ip", "-j", "-d", "addr", "show")), root);
  }

  public Inventory collect() throws IOException, InterruptedException {
    Inventory.Cpu cpu = CpuInfo.parse(
        root.readRaw("/proc/cpuinfo").orElse(""), CpuInfo.architecture(root.read("/proc/sys/kernel/arch")),
        probe.cpuMaxMhz());
    long memTotal = MemoryInfo.memTotalBytes(root.readRaw("/proc/meminfo")
        .orElseThrow(() -> new IOException("cannot read /proc/meminfo")));
    Inventory.Memory memory = MemoryInfo.of(memTotal, probe.memoryModulesBytes(), MemoryInfo.sysfsOnlineBytes(root));
    List<Inventory.Disk> disks = BlockDevices.parse(require(BlockDevices.lsblkCommand()), root, includeLoopDisks);
    List<Inventory.Interface> interfaces = interfaces();
    List<Inventory.Route> routes = new ArrayList<>(RouteTable.parseIpv4(root.readRaw("/proc/net/route").orElse("")));
    routes.addAll(RouteTable.parseIpv6(root.readRaw("/proc/net/ipv6_route").orElse("")));
    Optional<String> virt = optional(List.of("systemd-detect-virt", "--vm"));
    return new Inventory(
        hostname(interfaces),
        null,
        null,
        interfaces,
        disks,
        BootInfo.read(root),
        SystemVendorInfo.read(root, probe, virt, cpu.flags()),
        memory,
        cpu,
        PciGpus.scan(root),
        List.copyOf(routes),
        tpmVersion(root),
        null);
  }

  /**
   * /proc/sys/kernel/hostname; a localhost name is replaced (as upstream) by the lower-case MAC, with
   * dashes, of the first interface by name that has a MAC and an address.
   */
  String hostname(List<Inventory.Interface> interfaces) {
    if (hostnameOverride.isPresent()) {
      return hostnameOverride.get();
    }
    String name = root.read("/proc/sys/kernel/hostname").orElse("localhost");
    if (!LOCALHOST_NAMES.contains(name)) {
      return name;
    }
    return interfaces.stream()
        .filter(i -> !i.macAddress().isEmpty() && !(i.ipv4Addresses().isEmpty() && i.ipv6Addresses().isEmpty()))
        .sorted(java.util.Comparator.comparing(Inventory.Interface::name))
        .map(i -> i.macAddress().replace(':', '-'))
        .findFirst()
        .orElse(name);
  }

  /** /sys/class/tpm/tpm0/tpm_version_major: "2" → "2.0", "1" → "1.2", absent → "none". */
  static String tpmVersion(HostRoot root) {
    return switch (root.read("/sys/class/tpm/tpm0/tpm_version_major").orElse("")) {
      case "2" -> "2.0";
      case "1" -> "1.2";
      default -> root.exists("/sys/class/tpm/tpm0") ? "1.2" : "none";
    };
  }

  private String require(List<String> command) throws IOException, InterruptedException {
    CommandResult r = commands.run(command, COMMAND_TIMEOUT);
    if (!r.ok()) {
      throw new IOException(String.join(" ", command) + " failed (exit " + r.exitCode() + "): " + r.failureText());
    }
    return r.stdout();
  }

  private Optional<String> optional(List<String> command) throws InterruptedException {
    if (!commands.available(command.get(0))) {
      return Optional.empty();
    }
    try {
      CommandResult r = commands.run(command, COMMAND_TIMEOUT);
      // systemd-detect-virt exits 1 and prints "none" on bare metal
      return r.timedOut() ? Optional.empty() : Optional.of(r.stdout().trim());
    } catch (IOException e) {
      return Optional.empty();
    }
  }
}
