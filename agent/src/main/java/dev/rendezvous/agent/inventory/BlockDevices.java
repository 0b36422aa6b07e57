package dev.rendezvous.agent.inventory;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rendezvous.agent.step.HostRoot;
import dev.rendezvous.agent.wire.Inventory;
import dev.rendezvous.agent.wire.WireJson;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Disks from {@code lsblk --json --list --bytes --output} {@link #LSBLK_COLUMNS} plus sysfs and udev links.
 * Field sources: name/path/size/removable/read-only/rotational/model/vendor/serial/wwn/hctl/mountpoints/
 * partition labels = lsblk; hidden, holders, dm/uuid, virtio serial = /sys/block/X; by_id / by_path =
 * /dev/disk/by-id, /dev/disk/by-path symlinks; bootable = MBR boot signature (0x55AA at 510) of the device,
 * which is what upstream's {@code file -s} "DOS/MBR boot sector" test sees.
 *
 * <p>Skipped as upstream: sysfs hidden, loop*, zram*, dm-* that are neither multipath nor LVM. Eligibility
 * reasons: see {@link DiskEligibility}.
 */
public final class BlockDevices {
  public static final String LSBLK_COLUMNS =
      "NAME,KNAME,PATH,PKNAME,TYPE,SIZE,RO,RM,ROTA,MODEL,SERIAL,WWN,VENDOR,TRAN,HCTL,MOUNTPOINTS,FSTYPE,LABEL,PARTLABEL";

  private BlockDevices() {}

  /** The lsblk command line whose output {@link #parse} reads. */
  public static List<String> lsblkCommand() {
    return List.of("lsblk", "--json", "--list", "--bytes", "--output", LSBLK_COLUMNS);
  }

  /** One row of lsblk's list output. */
  record Row(
      String kname, String pkname, String type, long size, boolean ro, boolean rm, boolean rota, String model,
      String serial, String wwn, String vendor, String hctl, List<String> mountpoints, String partlabel) {}

  public static List<Inventory.Disk> parse(String lsblkJson, HostRoot root) {
    return parse(lsblkJson, root, false);
  }

  /** {@code includeLoopDisks}: test rigs whose hosts' disks are file-backed loop devices report those too. */
  public static List<Inventory.Disk> parse(String lsblkJson, HostRoot root, boolean includeLoopDisks) {
    Map<String, Row> devices = new LinkedHashMap<>();
    Map<String, List<Row>> partitions = new LinkedHashMap<>();
    for (JsonNode n : WireJson.read(lsblkJson, JsonNode.class).path("blockdevices")) {
      Row r = row(n);
      if ("part".equals(r.type())) {
        partitions.computeIfAbsent(r.pkname(), k -> new ArrayList<>()).add(r);
      } else {
        devices.putIfAbsent(r.kname(), r);
      }
    }
    Map<String, String> byId = links(root, "/dev/disk/by-id", BlockDevices::byIdPreference);
    Map<String, String> byPath = links(root, "/dev/disk/by-path", Comparator.naturalOrder());

    List<Inventory.Disk> disks = new ArrayList<>();
    for (Row d : devices.values()) {
      String name = d.kname();
      String sys = "/sys/block/" + name;
      boolean loop = name.startsWith("loop") || "loop".equals(d.type());
      if ((loop && !includeLoopDisks) || name.startsWith("zram")
          || root.read(sys + "/hidden").orElse("0").equals("1")) {
        continue;
      }
      String dmUuid = root.read(sys + "/dm/uuid").orElse("");
      boolean multipath = dmUuid.startsWith("mpath-");
      boolean lvm = dmUuid.startsWith("LVM-");
      if (name.startsWith("dm-") && !multipath && !lvm) {
        continue;
      }
      String idLink = byId.get(name);
      String pathLink = byPath.get(name);
      String driveType = driveType(d, multipath, lvm, pathLink);
      List<Row> parts = partitions.getOrDefault(name, List.of());
      boolean isoMount = DiskEligibility.hasIsoMount(d, parts);
      boolean installationMedia = "ODD".equals(driveType) || isoMount;
      String serial = blankToNull(d.serial());
      if (serial == null) {
        serial = root.read(sys + "/serial").filter(s -> !s.isEmpty()).orElse(null);
      }
      String holders = String.join(",", root.list(sys + "/holders"));
      String path = "/dev/" + name;
      disks.add(new Inventory.Disk(
          idLink != null ? idLink : pathLink != null ? pathLink : path,
          name,
          path,
          idLink,
          pathLink,
          blankToNull(d.hctl()),
          driveType,
          d.size(),
          hasBootSignature(root, path),
          d.rm(),
          installationMedia,
          blankToNull(d.model()),
          blankToNull(d.vendor()),
          serial,
          blankToNull(d.wwn()),
          blankToNull(d.wwn()) != null,
          "",
          null,
          holders.isEmpty() ? null : holders,
          null,
          null,
          Inventory.InstallationEligibility.of(
              DiskEligibility.reasons(d, parts, multipath, lvm, isoMount, includeLoopDisks))));
    }
    disks.sort(Comparator.comparing(Inventory.Disk::name));
    return disks;
  }

  static String driveType(Row d, boolean multipath, boolean lvm, String byPath) {
    if ("rom".equals(d.type())) {
      return "ODD";
    }
    if (d.kname().startsWith("fd")) {
      return "FDD";
    }
    if (multipath) {
      return "Multipath";
    }
    if (lvm) {
      return "LVM";
    }
    if (d.kname().startsWith("md")) {
      return "RAID";
    }
    if (byPath != null && byPath.contains("-iscsi-")) {
      return "iSCSI";
    }
    if (byPath != null && (byPath.contains("-fc-") || byPath.startsWith("/dev/disk/by-path/fc-"))) {
      return "FC";
    }
    return d.rota() ? "HDD" : "SSD";
  }

  /** wwn- links first (stable across hosts), then nvme-eui., then any other, alphabetically. */
  private static int byIdPreference(String a, String b) {
    return Integer.compare(rank(a), rank(b)) != 0 ? Integer.compare(rank(a), rank(b)) : a.compareTo(b);
  }

  private static int rank(String link) {
    return link.startsWith("wwn-") ? 0 : link.startsWith("nvme-eui.") ? 1 : 2;
  }

  /** kernel name → best "/dev/disk/by-x/link" pointing at it (partition links ignored). */
  private static Map<String, String> links(HostRoot root, String dir, Comparator<String> preference) {
    Map<String, String> best = new LinkedHashMap<>();
    for (String link : root.list(dir)) {
      if (link.matches(".*-part\\d+$")) {
        continue;
      }
      Optional<String> target = root.linkTargetName(dir + "/" + link);
      target.ifPresent(t -> best.merge(t, link, (x, y) -> preference.compare(x, y) <= 0 ? x : y));
    }
    best.replaceAll((k, v) -> dir + "/" + v);
    return best;
  }

  static boolean hasBootSignature(HostRoot root, String devPath) {
    try (InputStream in = Files.newInputStream(root.path(devPath))) {
      byte[] sector = in.readNBytes(512);
      return isMbrBootSector(sector);
    } catch (IOException | RuntimeException e) {
      return false; // no media (empty DVD drive), no permission, or not present in a test tree
    }
  }

  static boolean isMbrBootSector(byte[] sector) {
    return sector.length >= 512 && (sector[510] & 0xff) == 0x55 && (sector[511] & 0xff) == 0xaa;
  }

  private static Row row(JsonNode n) {
    List<String> mounts = new ArrayList<>();
    for (JsonNode m : n.path("mountpoints")) {
      if (!m.isNull() && !m.asText().isEmpty()) {
        mounts.add(m.asText());
      }
    }
    if (mounts.isEmpty() && n.hasNonNull("mountpoint")) {
      mounts.add(n.get("mountpoint").asText()); // util-linux < 2.37
    }
    return new Row(
        n.path("kname").asText(n.path("name").asText()),
        n.path("pkname").isNull() ? null : n.path("pkname").asText(null),
        n.path("type").asText(""),
        n.path("size").asLong(0),
        bool(n.path("ro")),
        bool(n.path("rm")),
        bool(n.path("rota")),
        text(n, "model"),
        text(n, "serial"),
        text(n, "wwn"),
        text(n, "vendor"),
        text(n, "hctl"),
        List.copyOf(mounts),
        text(n, "partlabel"));
  }

  /** lsblk prints booleans as JSON booleans (util-linux >= 2.33) or as "0"/"1" strings before. */
  private static boolean bool(JsonNode n) {
    return n.isBoolean() ? n.booleanValue() : "1".equals(n.asText()) || "true".equals(n.asText());
  }

  private static String text(JsonNode n, String field) {
    JsonNode v = n.get(field);
    return v == null || v.isNull() ? null : v.asText().trim();
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s.trim();
  }
}
