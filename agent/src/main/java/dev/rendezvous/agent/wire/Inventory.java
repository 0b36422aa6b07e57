package dev.rendezvous.agent.wire;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.util.List;

/** Upstream {@code models.Inventory}: the output of the {@code inventory} step (sent as a JSON string). */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record Inventory(
    String hostname,
    String bmcAddress,
    String bmcV6address,
    List<Interface> interfaces,
    List<Disk> disks,
    Boot boot,
    SystemVendor systemVendor,
    Memory memory,
    Cpu cpu,
    List<Gpu> gpus,
    List<Route> routes,
    String tpmVersion,
    Truncation truncation) {

  public Inventory withDisks(List<Disk> d) {
    return new Inventory(hostname, bmcAddress, bmcV6address, interfaces, d, boot, systemVendor, memory, cpu, gpus,
        routes, tpmVersion, truncation);
  }

  public Inventory withNetwork(List<Interface> i, List<Route> r) {
    return new Inventory(hostname, bmcAddress, bmcV6address, i, disks, boot, systemVendor, memory, cpu, gpus, r,
        tpmVersion, truncation);
  }

  public Inventory withTruncation(Truncation t) {
    return new Inventory(hostname, bmcAddress, bmcV6address, interfaces, disks, boot, systemVendor, memory, cpu, gpus,
        routes, tpmVersion, t);
  }

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record Cpu(String architecture, int count, List<String> flags, double frequency, String modelName) {}

  /** {@code physical_bytes_method}: {@code dmidecode}, {@code ghw} (sysfs memory blocks) or {@code meminfo}. */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record Memory(long physicalBytes, long usableBytes, String physicalBytesMethod) {}

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record Interface(
      String name,
      String macAddress,
      List<String> ipv4Addresses,
      List<String> ipv6Addresses,
      int mtu,
      List<String> flags,
      boolean hasCarrier,
      long speedMbps,
      String type,
      String vendor,
      String product,
      String biosdevname,
      String clientId) {}

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
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
      String holders,
      IoPerf ioPerf,
      Iscsi iscsi,
      InstallationEligibility installationEligibility) {}

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record IoPerf(long syncDuration) {}

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record Iscsi(String hostIpAddress) {}

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record InstallationEligibility(boolean eligible, List<String> notEligibleReasons) {
    public static InstallationEligibility of(List<String> reasons) {
      return new InstallationEligibility(reasons.isEmpty(), List.copyOf(reasons));
    }
  }

  /** {@code current_boot_mode} bios/uefi; {@code secure_boot_state} Unknown/NotSupported/Enabled/Disabled. */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record Boot(
      String currentBootMode, String pxeInterface, String commandLine, String secureBootState, String deviceType) {}

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record SystemVendor(String manufacturer, String productName, String serialNumber, boolean virtual) {}

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record Gpu(String vendor, String vendorId, String deviceId, String name, String address) {}

  /** {@code family}: 2 (AF_INET) or 10 (AF_INET6), as upstream's netlink values. */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record Route(
      @JsonProperty("interface") String interfaceName, String gateway, String destination, int family, int metric) {}

  /** {@code type} partial/full. */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record Truncation(String type, List<String> reasons) {}
}
