package dev.rendezvous.service.domain.host;

import dev.rendezvous.service.domain.Cidr;
import dev.rendezvous.service.domain.Formats;
import dev.rendezvous.service.domain.validation.HardwareRequirements;
import dev.rendezvous.service.domain.validation.HostValidator;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Installation-disk eligibility as upstream's hardware validator decides it: size against the role's
 * minimum, supported drive types per OCP version and architecture, removable and installation media,
 * multipath and iSCSI rules; and the automatic installation-disk choice.
 */
public final class DiskEligibility {
  private DiskEligibility() {}

  /** Why this disk cannot hold the installation; empty when it can. The agent's own reasons come first. */
  public static List<String> notEligibleReasons(
      Inventory.Disk disk, Inventory inventory, long minSizeGb, String openshiftVersion, String cpuArchitecture) {
    Set<String> reasons = new LinkedHashSet<>();
    check(disk, inventory, minSizeGb, openshiftVersion, cpuArchitecture, reasons);
    return List.copyOf(reasons);
  }

  /**
   * Runs every rule; each failing one adds its message to {@code reasons} (null: stop at the first failure and
   * build no message, as validations ask this of every disk of every host on each pass). True when none failed.
   */
  private static boolean check(Inventory.Disk disk, Inventory inventory, long minSizeGb, String openshiftVersion,
      String cpuArchitecture, Set<String> reasons) {
    boolean ok = true;
    if (disk.installationEligibility() != null && !disk.installationEligibility().eligible()) {
      if (reasons == null) {
        return false;
      }
      reasons.addAll(disk.installationEligibility().notEligibleReasons());
      ok = false;
    }
    long minBytes = minSizeGb * 1_000_000_000L;
    if (disk.sizeBytes() < minBytes) {
      if (reasons == null) {
        return false;
      }
      reasons.add(String.format("Disk is too small (disk only has %s, but %s are required)",
          Formats.siBytes(disk.sizeBytes()), Formats.siBytes(minBytes)));
      ok = false;
    }
    List<String> allowed = allowedDriveTypes(openshiftVersion, cpuArchitecture);
    if (!allowed.contains(disk.driveType())) {
      if (reasons == null) {
        return false;
      }
      reasons.add(String.format("Drive type is %s, it must be one of %s.", disk.driveType(), String.join(", ", allowed)));
      ok = false;
    }
    if (disk.removable()) {
      if (reasons == null) {
        return false;
      }
      reasons.add("Disk is removable");
      ok = false;
    }
    if (disk.isInstallationMedia()) {
      if (reasons == null) {
        return false;
      }
      reasons.add("Disk appears to be an ISO installation media (has partition with type iso9660)");
      ok = false;
    }
    if ("Multipath".equals(disk.driveType())) {
      List<Inventory.Disk> paths = inventory.disks().stream()
          .filter(d -> d.holders().stream().anyMatch(h -> h.equals(disk.name())))
          .toList();
      boolean allFc = !paths.isEmpty() && paths.stream().allMatch(p -> "FC".equals(p.driveType()));
      boolean allIscsi = !paths.isEmpty() && paths.stream().allMatch(p -> "iSCSI".equals(p.driveType()));
      if (!allFc && !allIscsi) {
        if (reasons == null) {
          return false;
        }
        reasons.add("Multipath device has paths of different types, but they must all be either FC or iSCSI");
        ok = false;
      }
    }
    if (("FC".equals(disk.driveType()) || "iSCSI".equals(disk.driveType())) && partOfMultipath(disk, inventory)) {
      if (reasons == null) {
        return false;
      }
      reasons.add("Disk is a path of a multipath device, select the multipath device instead");
      ok = false;
    }
    if ("iSCSI".equals(disk.driveType()) && disk.iscsi() != null && viaDefaultRouteNic(disk.iscsi().hostIpAddress(), inventory)) {
      if (reasons == null) {
        return false;
      }
      reasons.add("iSCSI disk is reached through the interface of the default route, which is not supported");
      ok = false;
    }
    return ok;
  }

  public static boolean eligible(
      Inventory.Disk disk, Inventory inventory, long minSizeGb, String openshiftVersion, String cpuArchitecture) {
    return check(disk, inventory, minSizeGb, openshiftVersion, cpuArchitecture, null);
  }

  public static List<Inventory.Disk> eligibleDisks(
      Inventory inventory, long minSizeGb, String openshiftVersion, String cpuArchitecture) {
    return inventory.disks().stream()
        .filter(d -> eligible(d, inventory, minSizeGb, openshiftVersion, cpuArchitecture))
        .toList();
  }

  /** Upstream ordering: bootable first, non-NVMe first, drive type name, smaller size, then HCTL. */
  public static Optional<Inventory.Disk> chooseInstallationDisk(
      Inventory inventory, long minSizeGb, String openshiftVersion, String cpuArchitecture) {
    List<Inventory.Disk> disks = new ArrayList<>(eligibleDisks(inventory, minSizeGb, openshiftVersion, cpuArchitecture));
    disks.sort(Comparator.comparing((Inventory.Disk d) -> !d.bootable())
        .thenComparing(Inventory.Disk::isNvme)
        .thenComparing(d -> d.driveType() == null ? "" : d.driveType())
        .thenComparingLong(Inventory.Disk::sizeBytes)
        .thenComparing(d -> d.hctl() == null ? "" : d.hctl()));
    return disks.stream().findFirst();
  }

  /** Few (version, architecture) pairs exist and each pass asks for every disk: remembered once computed. */
  private static final java.util.Map<String, List<String>> DRIVE_TYPES = new java.util.concurrent.ConcurrentHashMap<>();

  static List<String> allowedDriveTypes(String openshiftVersion, String cpuArchitecture) {
    String key = openshiftVersion + "|" + cpuArchitecture;
    List<String> known = DRIVE_TYPES.get(key);
    if (known != null) {
      return known;
    }
    List<String> computed = computeAllowedDriveTypes(openshiftVersion, cpuArchitecture);
    if (DRIVE_TYPES.size() < 1024) { // versions come from the catalog; the bound only guards against odd input
      DRIVE_TYPES.put(key, computed);
    }
    return computed;
  }

  private static List<String> computeAllowedDriveTypes(String openshiftVersion, String cpuArchitecture) {
    boolean anyVersion = openshiftVersion == null || openshiftVersion.isEmpty();
    List<String> out = new ArrayList<>(List.of("HDD", "SSD", "Multipath"));
    String arch = cpuArchitecture == null || cpuArchitecture.isEmpty() ? "x86_64" : cpuArchitecture;
    if (arch.equals("x86_64") || arch.equals("s390x")) {
      out.add("FC");
    }
    if (anyVersion || HardwareRequirements.versionAtLeast(openshiftVersion, 4, 15)) {
      out.add("iSCSI");
    }
    if (anyVersion || HardwareRequirements.versionAtLeast(openshiftVersion, 4, 14)) {
      out.add("RAID");
    }
    if (arch.equals("s390x")) {
      out.addAll(List.of("ECKD", "ECKD (ESE)", "FBA"));
    }
    return List.copyOf(out);
  }

  /** Types that count as storage devices for the vSphere disk-UUID check. */
  public static boolean validStorageDeviceType(Inventory.Disk d) {
    return List.of("HDD", "SSD", "Multipath", "FC", "iSCSI", "RAID").contains(d.driveType());
  }

  private static boolean partOfMultipath(Inventory.Disk disk, Inventory inventory) {
    return inventory.disks().stream()
        .anyMatch(m -> "Multipath".equals(m.driveType()) && disk.holders().contains(m.name()));
  }

  private static boolean viaDefaultRouteNic(String hostIp, Inventory inventory) {
    if (hostIp == null) {
      return false;
    }
    for (Inventory.Route r : inventory.routes()) {
      if (!HostValidator.isDefaultRoute(r)) {
        continue;
      }
      for (Inventory.NetInterface i : inventory.interfaces()) {
        if (i.name().equals(r.iface())) {
          for (String a : i.ipv4Addresses()) {
            if (Cidr.parse(a).map(Cidr::addressString).orElse("").equals(hostIp)) {
              return true;
            }
          }
          for (String a : i.ipv6Addresses()) {
            if (Cidr.parse(a).map(Cidr::addressString).equals(Cidr.parse(hostIp).map(Cidr::addressString))) {
              return true;
            }
          }
        }
      }
    }
    return false;
  }
}
