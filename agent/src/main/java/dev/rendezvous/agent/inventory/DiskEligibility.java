package dev.rendezvous.agent.inventory;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Agent-side installation eligibility, upstream's rules and texts (assisted-installer-agent
 * src/inventory/disks.go): unknown storage controller, LVM volume, ISO installation media, mounted
 * partitions; a partition labelled "agent*" skips the partition checks. Removable disks are eligible
 * (OCPBUGS-33404). Two additions of ours, so the agent never offers the disk it runs from or one it
 * cannot write: a disk mounted as a whole (no partition table, like this VM's root disk) and a
 * read-only disk. Size and drive-type rules belong to the service.
 */
public final class DiskEligibility {
  /** Kernel name prefixes of the controllers upstream's disk library recognises. */
  private static final Set<String> KNOWN_CONTROLLERS = Set.of("sd", "hd", "vd", "xvd", "nvme", "mmcblk", "sr", "dasd");

  private DiskEligibility() {}

  static List<String> reasons(
      BlockDevices.Row disk, List<BlockDevices.Row> partitions, boolean multipath, boolean lvm, boolean isoMount) {
    return reasons(disk, partitions, multipath, lvm, isoMount, false);
  }

  /** {@code loopDisks}: the rig's disks are loop devices (--include-loop-disks), whose "controller" is a file. */
  static List<String> reasons(BlockDevices.Row disk, List<BlockDevices.Row> partitions, boolean multipath, boolean lvm,
      boolean isoMount, boolean loopDisks) {
    List<String> reasons = new ArrayList<>();
    boolean knownController = KNOWN_CONTROLLERS.stream().anyMatch(disk.kname()::startsWith)
        || (loopDisks && disk.kname().startsWith("loop"));
    if (!knownController && !multipath && !lvm && !disk.kname().startsWith("md")) {
      reasons.add("Disk has unknown storage controller");
    }
    if (lvm) {
      reasons.add("Disk is an LVM logical volume");
    }
    if (isoMount) {
      reasons.add("Disk appears to be an ISO installation media (has partition with mountpoint suffix iso)");
    }
    boolean agentLabelled = partitions.stream().anyMatch(p -> p.partlabel() != null && p.partlabel().startsWith("agent"));
    if (!agentLabelled) {
      for (BlockDevices.Row p : partitions) {
        for (String mount : p.mountpoints()) {
          reasons.add("Disk has partition '" + p.kname() + "' mounted on '" + mount + "'");
        }
      }
    }
    for (String mount : disk.mountpoints()) {
      reasons.add("Disk is mounted on '" + mount + "'");
    }
    if (disk.ro()) {
      reasons.add("Disk is read-only");
    }
    return reasons;
  }

  static boolean hasIsoMount(BlockDevices.Row disk, List<BlockDevices.Row> partitions) {
    if (disk.mountpoints().stream().anyMatch(m -> m.endsWith("iso"))) {
      return true;
    }
    return partitions.stream().flatMap(p -> p.mountpoints().stream()).anyMatch(m -> m.endsWith("iso"));
  }
}
