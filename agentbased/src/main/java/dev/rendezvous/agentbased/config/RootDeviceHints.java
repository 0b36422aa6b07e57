package dev.rendezvous.agentbased.config;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Optional;

/**
 * A host's {@code rootDeviceHints} (metal3's RootDeviceHints, as agent-config.yaml writes them), matched against the
 * disks of our host inventory the way upstream assisted-service's GetAcceptableDisksWithHints does: every hint given
 * must match; string hints compare exactly except model and vendor (substring); minSizeGigabytes compares the size in
 * decimal GB (bytes / 10^9, rounded down); rotational means drive_type HDD. The WWN extensions are never matched
 * (openshift-install refuses them, and inventories do not carry them).
 *
 * @param deviceName {@code /dev/sda} or {@code /dev/disk/by-path/...}: the disk's path or by-path name
 * @param minSizeGigabytes null or 0: no minimum
 * @param rotational null: either
 */
public record RootDeviceHints(
    String deviceName,
    String hctl,
    String model,
    String vendor,
    String serialNumber,
    Long minSizeGigabytes,
    String wwn,
    String wwnWithExtension,
    String wwnVendorExtension,
    Boolean rotational) {

  private static final long GB = 1_000_000_000L;

  /** Whether no hint is given (then every eligible disk is acceptable). */
  public boolean isEmpty() {
    return blank(deviceName) && blank(hctl) && blank(model) && blank(vendor) && blank(serialNumber)
        && (minSizeGigabytes == null || minSizeGigabytes == 0) && blank(wwn) && blank(wwnWithExtension)
        && blank(wwnVendorExtension) && rotational == null;
  }

  /** Whether one disk of an inventory ({@code inventory.disks[i]}, snake_case) satisfies every hint given. */
  public boolean matches(JsonNode disk) {
    if (disk == null || !disk.isObject()) {
      return false;
    }
    if (!blank(deviceName) && !deviceName.equals(text(disk, "path")) && !deviceName.equals(text(disk, "by_path"))) {
      return false;
    }
    if (!blank(hctl) && !hctl.equals(text(disk, "hctl"))) {
      return false;
    }
    if (!blank(model) && !text(disk, "model").contains(model)) {
      return false;
    }
    if (!blank(vendor) && !text(disk, "vendor").contains(vendor)) {
      return false;
    }
    if (!blank(serialNumber) && !serialNumber.equals(text(disk, "serial"))) {
      return false;
    }
    if (minSizeGigabytes != null && minSizeGigabytes != 0
        && disk.path("size_bytes").asLong(0) / GB < minSizeGigabytes) {
      return false;
    }
    if (!blank(wwn) && !wwn.equals(text(disk, "wwn"))) {
      return false;
    }
    return rotational == null || rotational == "HDD".equals(text(disk, "drive_type"));
  }

  /**
   * The {@code installation_disk_id} to select for a host (PATCH {@code disks_selected_config[{id, role: install}]}):
   * the id of the first disk, in inventory order, that is eligible for installation and matches the hints; with no
   * hints (null or empty), the first eligible disk, as upstream. Empty when no disk qualifies: upstream then selects
   * the placeholder {@code /dev/not-found-by-hints} so that the host fails its disk validation instead of installing
   * elsewhere; the caller decides.
   *
   * @param inventory the host's inventory JSON (with {@code disks})
   */
  public static Optional<String> choose(RootDeviceHints hints, JsonNode inventory) {
    if (inventory == null) {
      return Optional.empty();
    }
    for (JsonNode disk : inventory.path("disks")) {
      if (disk.path("installation_eligibility").path("eligible").asBoolean(false)
          && (hints == null || hints.matches(disk))) {
        String id = diskId(disk);
        if (!id.isEmpty()) {
          return Optional.of(id);
        }
      }
    }
    return Optional.empty();
  }

  /** The disk's identifier as the service keeps it: its id, else by_id, else by_path, else path (upstream's order). */
  public static String diskId(JsonNode disk) {
    for (String k : new String[] {"id", "by_id", "by_path", "path"}) {
      String v = text(disk, k);
      if (!v.isEmpty()) {
        return v;
      }
    }
    return "";
  }

  private static String text(JsonNode n, String key) {
    JsonNode v = n.get(key);
    return v == null || v.isNull() ? "" : v.asText();
  }

  private static boolean blank(String s) {
    return s == null || s.isEmpty();
  }
}
