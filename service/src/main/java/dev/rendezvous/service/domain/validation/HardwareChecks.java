package dev.rendezvous.service.domain.validation;

import static dev.rendezvous.service.domain.validation.ValidationStatus.FAILURE;
import static dev.rendezvous.service.domain.validation.ValidationStatus.PENDING;
import static dev.rendezvous.service.domain.validation.ValidationStatus.SUCCESS;
import static dev.rendezvous.service.domain.validation.ValidationStatus.SUCCESS_SUPPRESS_OUTPUT;

import dev.rendezvous.service.domain.Formats;
import dev.rendezvous.service.domain.cluster.ClusterContext;
import dev.rendezvous.service.domain.host.DiskEligibility;
import dev.rendezvous.service.domain.host.HostRole;
import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.host.Inventory;
import dev.rendezvous.service.domain.planning.StepOutputs;
import java.util.List;

/**
 * Host validations on the host's hardware inventory: CPU, memory, disks (eligibility, speed, skipped
 * formatting, encryption) and inventory truncation. Split out of {@link HostValidator}, which dispatches here.
 */
final class HardwareChecks {

  private HardwareChecks() {}

  static CheckOutcome minCpu(HostCheckContext c) {
    if (c.inventory() == null) {
      return new CheckOutcome(PENDING, "Missing inventory");
    }
    int min = c.cfg().hardware().minCpuCoresAnyRole();
    if (c.inventory().cpuCount() >= min) {
      return new CheckOutcome(SUCCESS, "Sufficient CPU cores");
    }
    return new CheckOutcome(FAILURE, String.format("The host is not eligible to participate in Openshift Cluster because "
        + "the minimum required CPU cores for any role is %d, found only %d", min, c.inventory().cpuCount()));
  }

  /** Upstream tolerates 100 MiB missing, and 2% more when the size came from /proc/meminfo. */
  static long requiredMemoryBytes(long ramMib, Inventory inv) {
    long required = ramMib * 1024 * 1024 - 100L * 1024 * 1024;
    if (inv.memory() != null && "meminfo".equals(inv.memory().physicalBytesMethod())) {
      required = (long) (required * 0.98);
    }
    return required;
  }

  static CheckOutcome minMemory(HostCheckContext c) {
    if (c.inventory() == null) {
      return new CheckOutcome(PENDING, "Missing inventory");
    }
    long min = c.cfg().hardware().minRamMibAnyRole();
    if (c.inventory().physicalMemoryBytes() >= requiredMemoryBytes(min, c.inventory())) {
      return new CheckOutcome(SUCCESS, "Sufficient minimum RAM");
    }
    return new CheckOutcome(FAILURE, String.format("The host is not eligible to participate in Openshift Cluster because "
        + "the minimum required RAM for any role is %s, found only %s", Formats.iecBytes(min * 1024 * 1024),
        Formats.iecBytes(c.inventory().physicalMemoryBytes())));
  }

  static CheckOutcome minValidDisks(HostCheckContext c) {
    if (c.inventory() == null) {
      return new CheckOutcome(PENDING, "Missing inventory");
    }
    if (!eligibleDisks(c).isEmpty()) {
      return new CheckOutcome(SUCCESS, "Sufficient disk capacity");
    }
    return new CheckOutcome(FAILURE, "No eligible disks were found, please check specific disks to see why they are not eligible");
  }

  private static List<Inventory.Disk> eligibleDisks(HostCheckContext c) {
    String version = c.cluster() == null ? null : c.cluster().openshiftVersion();
    String arch = c.cluster() == null ? c.inventory().cpu().architecture() : c.cluster().cpuArchitecture();
    return DiskEligibility.eligibleDisks(c.inventory(), c.roleRequirements().diskSizeGb(), version, arch);
  }

  static CheckOutcome cpuForRole(HostCheckContext c) {
    if (c.inventory() == null) {
      return new CheckOutcome(PENDING, "Missing inventory or role");
    }
    int need = c.roleRequirements().cpuCores();
    HostRole role = c.host().effectiveRole();
    if (c.inventory().cpuCount() >= need) {
      return new CheckOutcome(SUCCESS, "Sufficient CPU cores for role " + role);
    }
    return new CheckOutcome(FAILURE, String.format("Require at least %d CPU cores for %s role, found only %d", need, role,
        c.inventory().cpuCount()));
  }

  static CheckOutcome memoryForRole(HostCheckContext c) {
    if (c.inventory() == null) {
      return new CheckOutcome(PENDING, "Missing inventory or role");
    }
    long mib = c.roleRequirements().ramMib();
    HostRole role = c.host().effectiveRole();
    if (c.inventory().physicalMemoryBytes() >= requiredMemoryBytes(mib, c.inventory())) {
      return new CheckOutcome(SUCCESS, "Sufficient RAM for role " + role);
    }
    return new CheckOutcome(FAILURE, String.format("Require at least %s RAM for role %s, found only %s",
        Formats.iecBytes(mib * 1024 * 1024), role, Formats.iecBytes(c.inventory().physicalMemoryBytes())));
  }

  static CheckOutcome diskEncryption(HostCheckContext c) {
    if (c.unbound() || "none".equals(c.cluster().diskEncryption().enableOn())) {
      return new CheckOutcome(SUCCESS_SUPPRESS_OUTPUT, "");
    }
    if (c.inventory() == null) {
      return new CheckOutcome(PENDING, "Missing host inventory");
    }
    HostRole role = c.host().effectiveRole();
    if (role == HostRole.AUTO_ASSIGN) {
      return new CheckOutcome(PENDING, "Missing role assignment");
    }
    ClusterContext.DiskEncryption de = c.cluster().diskEncryption();
    if (!de.enabledFor(role)) {
      return new CheckOutcome(SUCCESS_SUPPRESS_OUTPUT, "");
    }
    if ("tang".equals(de.mode())) {
      if (c.host().tangConnectivity() == null) {
        return new CheckOutcome(PENDING, "");
      }
      if (!c.host().tangConnectivity().isSuccess()) {
        return new CheckOutcome(FAILURE, "Could not validate that all Tang servers are reachable and working: "
            + StepOutputs.toJson(c.host().tangConnectivity()));
      }
      return new CheckOutcome(SUCCESS, "Installation disk can be encrypted using tang");
    }
    String tpm = c.inventory().tpmVersion();
    if ("2.0".equals(tpm)) {
      return new CheckOutcome(SUCCESS, "Installation disk can be encrypted using tpmv2");
    }
    if (tpm == null || "none".equals(tpm)) {
      return new CheckOutcome(FAILURE, "TPM version could not be found, make sure TPM is enabled in host's BIOS");
    }
    return new CheckOutcome(FAILURE, "The host's TPM version is not supported, expected-version: 2.0, actual-version: " + tpm);
  }

  static CheckOutcome noSkipInstallationDisk(HostCheckContext c) {
    String disk = c.host().installationDiskId();
    if (disk == null || disk.isEmpty() || !c.host().skipFormattingDiskIds().contains(disk)) {
      return new CheckOutcome(SUCCESS, "No request to skip formatting of the installation disk");
    }
    return new CheckOutcome(FAILURE, "Requesting to skip the formatting of the installation disk is not allowed. The "
        + "installation disk must be formatted. Please either change this host's installation disk or do not skip "
        + "the formatting of the installation disk");
  }

  static CheckOutcome noSkipMissingDisk(HostCheckContext c) {
    if (c.host().inventory() == null) {
      return new CheckOutcome(PENDING, "Host inventory not available yet");
    }
    for (String id : c.host().skipFormattingDiskIds()) {
      boolean found = c.host().inventory().disks().stream().anyMatch(d -> d.identifier().equals(id));
      if (!found) {
        return new CheckOutcome(FAILURE, "One or more of the disks that you have requested to skip the formatting of are "
            + "no longer present on this host. To ensure they haven't just changed their identity, please remove your "
            + "request to skip their formatting and then if needed add them back using the new ID");
      }
    }
    return new CheckOutcome(SUCCESS, "All disks that have skipped formatting are present in the host inventory");
  }

  static CheckOutcome truncation(HostCheckContext c, String kind) {
    Inventory inv = c.host().inventory();
    Inventory.Truncation t = inv == null ? null : inv.truncation();
    if (t != null && kind.equals(t.type())) {
      String what = kind.equals("full") ? "fully" : "partially";
      return new CheckOutcome(FAILURE, "The host inventory was " + what + " truncated by the agent: " + String.join(", ", t.reasons()));
    }
    return new CheckOutcome(SUCCESS, kind.equals("full") ? "The host inventory is not fully truncated"
        : "The host inventory is not partially truncated");
  }

  static CheckOutcome diskSpeed(HostCheckContext c) {
    HostSnapshot.DiskSpeed s = c.host().installationDiskPath() == null ? null : c.host().diskSpeeds().get(c.host().installationDiskPath());
    if (s == null || !s.tested()) {
      return new CheckOutcome(SUCCESS, "Speed of installation disk has not yet been measured");
    }
    if (s.exitCode() == 0) {
      return new CheckOutcome(SUCCESS, "Speed of installation disk is sufficient");
    }
    return new CheckOutcome(FAILURE,
        "While preparing the previous installation the installation disk speed measurement failed or was found to be insufficient");
  }

  static boolean diskSpeedCheckSuccessful(HostSnapshot h) {
    // as upstream: a host booted from a persistent disk, or keeping partitions, is never sent the check (see the
    // planner), so there is nothing to wait for
    boolean persistentBoot = h.inventory() != null && h.inventory().boot() != null
        && "persistent".equals(h.inventory().boot().deviceType());
    if (persistentBoot || h.installerArgs().stream()
        .anyMatch(a -> a.startsWith("--save-partindex") || a.startsWith("--save-partlabel"))) {
      return true;
    }
    HostSnapshot.DiskSpeed s = h.installationDiskPath() == null ? null : h.diskSpeeds().get(h.installationDiskPath());
    return s != null && s.tested() && s.exitCode() == 0;
  }
}
