package dev.rendezvous.service.domain.host;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import dev.rendezvous.service.domain.planning.StepOutputs;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The agent's {@code inventory} step output (upstream models.Inventory), snake_case, unknown fields ignored.
 * Parse with {@link StepOutputs#inventory(String)}.
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonIgnoreProperties(ignoreUnknown = true)
public record Inventory(
    String hostname,
    String bmcAddress,
    String bmcV6address,
    List<NetInterface> interfaces,
    List<Disk> disks,
    Boot boot,
    SystemVendor systemVendor,
    Memory memory,
    Cpu cpu,
    List<Gpu> gpus,
    List<Route> routes,
    String tpmVersion,
    Truncation truncation) {

  public Inventory {
    interfaces = listOf(interfaces);
    disks = listOf(disks);
    gpus = listOf(gpus);
    routes = shared(listOf(routes));
    boot = shared(boot);
    memory = shared(memory);
    cpu = shared(cpu);
  }

  /**
   * The parts a site's hosts have alike (routes, NIC flags, boot, memory, CPU, disk eligibility), one instance of each:
   * the brain keeps every host's inventory parsed (issue 13: memory per idle host).
   */
  private static final dev.rendezvous.service.domain.SharedText.Values<Object> PARTS =
      new dev.rendezvous.service.domain.SharedText.Values<>();

  @SuppressWarnings("unchecked")
  private static <T> T shared(T part) {
    return part == null ? null : (T) PARTS.of(part);
  }

  public static <T> List<T> listOf(List<T> l) {
    return l == null ? List.of() : List.copyOf(new ArrayList<>(l.stream().filter(x -> x != null).toList()));
  }

  public long cpuCount() {
    return cpu == null ? 0 : cpu.count();
  }

  public long physicalMemoryBytes() {
    return memory == null ? 0 : memory.physicalBytes();
  }

  /** Upstream refuses an inventory without cpu, memory or disks ("Inventory is not valid"). */
  public boolean isUsable() {
    return cpu != null && memory != null && !disks.isEmpty();
  }

  public boolean fullyTruncated() {
    return truncation != null && "full".equals(truncation.type());
  }

  public boolean partiallyTruncated() {
    return truncation != null && "partial".equals(truncation.type());
  }

  /** All interface addresses in CIDR form (IPv4 then IPv6). */
  public List<String> allCidrAddresses() {
    List<String> out = new ArrayList<>();
    for (NetInterface i : interfaces) {
      out.addAll(i.ipv4Addresses());
    }
    for (NetInterface i : interfaces) {
      out.addAll(i.ipv6Addresses());
    }
    return out;
  }

  /**
   * Whether two inventories hold the same addresses, interface by interface: all the connectivity majority groups read
   * of an inventory (which networks a host is on, which address families it has).
   */
  public static boolean sameAddresses(Inventory a, Inventory b) {
    if (a == b) {
      return true;
    }
    if (a == null || b == null || a.interfaces.size() != b.interfaces.size()) {
      return false;
    }
    for (int i = 0; i < a.interfaces.size(); i++) {
      NetInterface x = a.interfaces.get(i);
      NetInterface y = b.interfaces.get(i);
      if (!x.ipv4Addresses().equals(y.ipv4Addresses()) || !x.ipv6Addresses().equals(y.ipv6Addresses())) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether two inventories are the same to every rule that reads a host's inventory for another host or for the
   * cluster (roles, names, addresses, disks for operators, connectivity targets): equal but for the fields that
   * change in every report of an idle machine and that no such rule reads — smartctl's output and I/O figures per disk
   * (power-on hours, temperatures), the CPU's current frequency — and the usable memory, which across hosts only
   * weighs hosts when roles are suggested for a host that has none (its own new inventory triggers that).
   */
  public static boolean sameForPeers(Inventory a, Inventory b) {
    if (a == b) {
      return true;
    }
    if (a == null || b == null) {
      return false;
    }
    return java.util.Objects.equals(a.hostname, b.hostname) && java.util.Objects.equals(a.bmcAddress, b.bmcAddress)
        && java.util.Objects.equals(a.bmcV6address, b.bmcV6address) && a.interfaces.equals(b.interfaces)
        && sameDisksForPeers(a.disks, b.disks) && java.util.Objects.equals(a.boot, b.boot)
        && java.util.Objects.equals(a.systemVendor, b.systemVendor)
        && (a.memory == null ? b.memory == null : b.memory != null && a.memory.physicalBytes() == b.memory.physicalBytes()
            && java.util.Objects.equals(a.memory.physicalBytesMethod(), b.memory.physicalBytesMethod()))
        && (a.cpu == null ? b.cpu == null : b.cpu != null && a.cpu.count() == b.cpu.count()
            && a.cpu.flags().equals(b.cpu.flags()) && java.util.Objects.equals(a.cpu.modelName(), b.cpu.modelName())
            && java.util.Objects.equals(a.cpu.architecture(), b.cpu.architecture()))
        && a.gpus.equals(b.gpus) && a.routes.equals(b.routes) && java.util.Objects.equals(a.tpmVersion, b.tpmVersion)
        && java.util.Objects.equals(a.truncation, b.truncation);
  }

  private static boolean sameDisksForPeers(List<Disk> a, List<Disk> b) {
    if (a.size() != b.size()) {
      return false;
    }
    for (int i = 0; i < a.size(); i++) {
      Disk x = a.get(i);
      Disk y = b.get(i);
      if (!x.withoutVolatileFields().equals(y.withoutVolatileFields())) {
        return false;
      }
    }
    return true;
  }

  public java.util.Optional<Disk> diskById(String id) {
    return disks.stream().filter(d -> d.identifier().equals(id) || id.equals(d.path())).findFirst();
  }

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record NetInterface(
      String name,
      String macAddress,
      List<String> ipv4Addresses,
      List<String> ipv6Addresses,
      long mtu,
      long speedMbps,
      boolean hasCarrier,
      String type,
      String vendor,
      String product,
      String biosdevname,
      String clientId,
      List<String> flags) {
    public NetInterface {
      ipv4Addresses = listOf(ipv4Addresses);
      ipv6Addresses = listOf(ipv6Addresses);
      flags = shared(listOf(flags));
    }
  }

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Disk(
      String id,
      String name,
      String path,
      String byId,
      String byPath,
      String hctl,
      String driveType,
      long sizeBytes,
      boolean bootable,
      boolean removable,
      boolean isInstallationMedia,
      String model,
      String vendor,
      String serial,
      String wwn,
      boolean hasUuid,
      String smart,
      @JsonProperty("partitionTypes") String partitionTypes,
      List<String> holders,
      IoPerf ioPerf,
      Iscsi iscsi,
      InstallationEligibility installationEligibility) {
    public Disk {
      holders = listOf(holders);
      installationEligibility = shared(installationEligibility);
    }

    /** Upstream common.GetDeviceIdentifier: the id field, else by-id, else by-path, else the path. */
    public String identifier() {
      if (id != null && !id.isEmpty()) {
        return id;
      }
      if (byId != null && !byId.isEmpty()) {
        return byId;
      }
      if (byPath != null && !byPath.isEmpty()) {
        return byPath;
      }
      return path == null ? "" : path;
    }

    /** This disk without smartctl's output and I/O figures (they change between reports of an idle machine). */
    Disk withoutVolatileFields() {
      return smart == null && ioPerf == null ? this : new Disk(id, name, path, byId, byPath, hctl, driveType, sizeBytes,
          bootable, removable, isInstallationMedia, model, vendor, serial, wwn, hasUuid, null, partitionTypes, holders,
          null, iscsi, installationEligibility);
    }

    public boolean isNvme() {
      return (name != null && name.toLowerCase(Locale.ROOT).contains("nvme"))
          || (path != null && path.toLowerCase(Locale.ROOT).contains("nvme"));
    }
  }

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record IoPerf(long syncDuration) {}

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Iscsi(String hostIpAddress) {}

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record InstallationEligibility(boolean eligible, List<String> notEligibleReasons) {
    public InstallationEligibility {
      notEligibleReasons = listOf(notEligibleReasons);
    }
  }

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Boot(
      String currentBootMode, String pxeInterface, String commandLine, String secureBootState, String deviceType) {}

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record SystemVendor(String manufacturer, String productName, String serialNumber, boolean virtual) {}

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Memory(long physicalBytes, long usableBytes, String physicalBytesMethod) {}

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Cpu(long count, double frequency, List<String> flags, String modelName, String architecture) {
    /** The same model's ~100 flags on every host of a site: one list of them. */
    private static final dev.rendezvous.service.domain.SharedText.Values<List<String>> FLAGS =
        new dev.rendezvous.service.domain.SharedText.Values<>();

    public Cpu {
      flags = FLAGS.of(listOf(flags));
    }
  }

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Gpu(String vendor, String vendorId, String deviceId, String name, String address) {}

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Route(
      @JsonProperty("interface") String iface, String gateway, String destination, int family, long metric) {}

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Truncation(String type, List<String> reasons) {
    public Truncation {
      reasons = listOf(reasons);
    }
  }
}
