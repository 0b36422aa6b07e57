package dev.rendezvous.service.domain.validation;

import static dev.rendezvous.service.domain.validation.ValidationStatus.FAILURE;
import static dev.rendezvous.service.domain.validation.ValidationStatus.PENDING;
import static dev.rendezvous.service.domain.validation.ValidationStatus.SUCCESS;

import dev.rendezvous.service.domain.cluster.ClusterContext;
import dev.rendezvous.service.domain.host.HostRole;
import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.host.Inventory;
import dev.rendezvous.service.domain.operators.OlmOperator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * What each OLM operator asks of the hosts and of the cluster, with upstream's numbers (its operator plugins'
 * defaults): the CPU and RAM a host needs on top of its role's minimum, the host and cluster
 * {@code <operator>-requirements-satisfied} checks, and the preflight requirements the UI shows before any host
 * exists. Pure functions of the cluster and host snapshots.
 */
public final class OperatorRequirements {
  /** CPU cores and RAM a host needs for one operator (added to its role's minimum, as upstream's hardware check). */
  public record Needs(int cpuCores, long ramMib) {
    public static final Needs NONE = new Needs(0, 0);

    public Needs plus(Needs o) {
      return new Needs(cpuCores + o.cpuCores, ramMib + o.ramMib);
    }
  }

  /** One check's outcome: upstream's status and the message a user reads. */
  public record Check(ValidationStatus status, String message) {}

  /** One role's numbers in the preflight requirements. */
  public record RoleNeeds(int cpuCores, long ramMib, List<String> qualitative) {}

  /** An operator's entry in {@code GET /v2/clusters/{id}/preflight-requirements}. */
  public record Preflight(String operatorName, List<String> dependencies, RoleNeeds master, RoleNeeds worker) {}

  // ODF (upstream internal/operators/odf config defaults)
  static final int ODF_MIN_DISKS = 3;
  static final int ODF_MIN_HOSTS = 3;
  static final int ODF_CPU_PER_DISK = 2;
  static final long ODF_RAM_GIB_PER_DISK = 5;
  static final int ODF_CPU_COMPACT = 6;
  static final int ODF_CPU_STANDARD = 8;
  static final long ODF_RAM_GIB = 19;
  static final long ODF_MIN_DISK_GB = 25;
  // LVM
  static final int LVM_CPU = 1;
  static final long LVM_RAM_MIB = 1200;
  // CNV: masters, workers, and 1 GiB more per supported GPU or SR-IOV NIC
  static final int CNV_MASTER_CPU = 4;
  static final long CNV_MASTER_RAM_MIB = 150;
  static final int CNV_WORKER_CPU = 2;
  static final long CNV_WORKER_RAM_MIB = 360;
  static final Set<String> CNV_GPUS = Set.of("10de:1db6", "10de:1eb8");
  static final Set<String> CNV_SRIOV_NICS = Set.of("8086:158b", "15b3:1015", "15b3:1017", "15b3:1013", "15b3:101b");
  // MCE
  static final int MCE_CPU = 4;
  static final long MCE_RAM_GIB = 16;
  static final int MCE_SNO_CPU = 8;
  static final long MCE_SNO_RAM_GIB = 32;
  // MTV
  static final int MTV_CPU = 1;
  static final long MTV_RAM_MIB = 1024;

  private OperatorRequirements() {}

  /** The sum over the cluster's operators of what this host needs beyond its role's minimum. */
  public static Needs hostNeeds(ClusterContext c, HostSnapshot h, Inventory inv) {
    Needs total = Needs.NONE;
    for (String name : c.olmOperators()) {
      Optional<OlmOperator> op = OlmOperator.parse(name);
      if (op.isPresent()) {
        total = total.plus(hostNeeds(op.get(), c, h, inv));
      }
    }
    return total;
  }

  public static Needs hostNeeds(OlmOperator op, ClusterContext c, HostSnapshot h, Inventory inv) {
    boolean master = isMaster(h);
    return switch (op) {
      case LSO, NMSTATE -> Needs.NONE;
      case LVM -> new Needs(LVM_CPU, LVM_RAM_MIB); // upstream gives every host the master figure
      case ODF -> odfNeeds(c, h, inv);
      case CNV -> {
        Needs masterNeeds = new Needs(CNV_MASTER_CPU, CNV_MASTER_RAM_MIB);
        Needs workerNeeds = new Needs(CNV_WORKER_CPU, CNV_WORKER_RAM_MIB + 1024L * cnvDevices(inv));
        if (c.singleNode()) {
          yield masterNeeds.plus(workerNeeds);
        }
        yield master ? masterNeeds : workerNeeds;
      }
      case MCE -> c.singleNode() ? new Needs(MCE_SNO_CPU, MCE_SNO_RAM_GIB * 1024) : new Needs(MCE_CPU, MCE_RAM_GIB * 1024);
      case MTV -> new Needs(MTV_CPU, MTV_RAM_MIB);
    };
  }

  /** The host side of {@code <operator>-requirements-satisfied}. */
  public static Check validateHost(OlmOperator op, ClusterContext c, HostSnapshot h, Inventory inv) {
    if (inv == null) {
      return new Check(PENDING, "Missing Inventory in the host.");
    }
    return switch (op) {
      case LSO, NMSTATE -> satisfied(op);
      case LVM -> lvmDisks(h, inv) == 0
          ? new Check(FAILURE, "Logical Volume Manager requires at least one non-installation HDD/SSD disk on the host")
          : satisfied(op);
      case ODF -> odfHost(c, h, inv);
      case CNV -> cnvHost(c, h, inv);
      case MCE, MTV -> enoughFor(op, hostNeeds(op, c, h, inv), inv);
    };
  }

  /** The cluster side of {@code <operator>-requirements-satisfied}. */
  public static Check validateCluster(OlmOperator op, ClusterContext c) {
    if (op.minVersion() != null && !atLeast(c.openshiftVersion(), op.minVersion())) {
      return new Check(FAILURE, op.fullName() + " is only supported for OpenShift versions " + op.minVersion()
          + ".0 and above");
    }
    return switch (op) {
      case ODF -> odfCluster(c);
      case CNV -> "x86_64".equals(c.cpuArchitecture()) ? satisfied(op)
          : new Check(FAILURE, "OpenShift Virtualization is supported only for x86_64 CPU architecture.");
      default -> satisfied(op);
    };
  }

  /** What the UI shows for an operator before hosts exist (upstream GetPreflightRequirements). */
  public static Preflight preflight(OlmOperator op, boolean singleNode) {
    RoleNeeds none = new RoleNeeds(0, 0, List.of());
    return switch (op) {
      case LSO, NMSTATE -> new Preflight(op.wire(), op.dependencies(), none, none);
      case LVM -> new Preflight(op.wire(), op.dependencies(), new RoleNeeds(LVM_CPU, LVM_RAM_MIB,
          List.of("At least 1 non-installation disk with no partitions or filesystems")), none);
      case ODF -> new Preflight(op.wire(), op.dependencies(),
          new RoleNeeds(ODF_CPU_COMPACT, ODF_RAM_GIB * 1024, List.of("Requirements apply only for master-only clusters",
              "At least 3 hosts", "At least 1 non-boot SSD or HDD disk on 3 hosts")),
          new RoleNeeds(ODF_CPU_STANDARD, ODF_RAM_GIB * 1024, List.of("Requirements apply only for clusters with workers",
              ODF_RAM_GIB_PER_DISK + " GiB of additional RAM for each non-boot disk",
              ODF_CPU_PER_DISK + " additional CPUs for each non-boot disk", "At least 3 workers",
              "At least 1 non-boot SSD or HDD disk on 3 workers")));
      case CNV -> {
        List<String> q = List.of("Additional 1GiB of RAM per each supported GPU",
            "Additional 1GiB of RAM per each supported SR-IOV NIC", "CPU has virtualization flag (vmx or svm)");
        yield new Preflight(op.wire(), op.dependencies(), new RoleNeeds(CNV_MASTER_CPU, CNV_MASTER_RAM_MIB, q),
            new RoleNeeds(CNV_WORKER_CPU, CNV_WORKER_RAM_MIB, q));
      }
      case MCE -> {
        RoleNeeds n = singleNode ? new RoleNeeds(MCE_SNO_CPU, MCE_SNO_RAM_GIB * 1024, List.of())
            : new RoleNeeds(MCE_CPU, MCE_RAM_GIB * 1024, List.of());
        yield new Preflight(op.wire(), op.dependencies(), n, new RoleNeeds(MCE_CPU, MCE_RAM_GIB * 1024, List.of()));
      }
      case MTV -> new Preflight(op.wire(), op.dependencies(), new RoleNeeds(MTV_CPU, MTV_RAM_MIB, List.of()),
          new RoleNeeds(MTV_CPU, MTV_RAM_MIB, List.of()));
    };
  }

  // --- ODF ---------------------------------------------------------------------------------------------------

  enum OdfMode { COMPACT, STANDARD, UNKNOWN }

  /** Compact when there are no workers (ODF on the masters), standard with three or more, else neither. */
  static OdfMode odfMode(ClusterContext c) {
    long workers = c.hosts().stream().filter(h -> h.effectiveRole() == HostRole.WORKER).count();
    if (workers == 0) {
      return OdfMode.COMPACT;
    }
    return workers >= ODF_MIN_HOSTS ? OdfMode.STANDARD : OdfMode.UNKNOWN;
  }

  private static Needs odfNeeds(ClusterContext c, HostSnapshot h, Inventory inv) {
    long disks = inv == null ? 0 : odfDisks(h, inv);
    boolean master = isMaster(h) || h.effectiveRole() == HostRole.AUTO_ASSIGN;
    if (odfMode(c) == OdfMode.COMPACT) {
      long d = Math.max(1, disks);
      int cpu = (master ? ODF_CPU_COMPACT : ODF_CPU_STANDARD) + (int) d * ODF_CPU_PER_DISK;
      return new Needs(cpu, (ODF_RAM_GIB + d * ODF_RAM_GIB_PER_DISK) * 1024);
    }
    if (isMaster(h)) {
      return Needs.NONE; // in standard mode ODF runs on the workers only
    }
    return new Needs(ODF_CPU_STANDARD + (int) disks * ODF_CPU_PER_DISK, (ODF_RAM_GIB + disks * ODF_RAM_GIB_PER_DISK) * 1024);
  }

  private static Check odfHost(ClusterContext c, HostSnapshot h, Inventory inv) {
    OdfMode mode = odfMode(c);
    long eligible = odfDisks(h, inv);
    if (eligible == 0 && storageDisks(h, inv, 0) > 0) {
      return new Check(FAILURE, "Insufficient resources to deploy ODF in " + modeName(mode) + " mode. ODF requires a "
          + "minimum of 3 hosts. Each host must have at least 1 additional disk of " + ODF_MIN_DISK_GB
          + " GB minimum and an installation disk.");
    }
    if (mode == OdfMode.COMPACT) {
      if (isMaster(h) || h.effectiveRole() == HostRole.AUTO_ASSIGN) {
        return eligible == 0
            ? new Check(FAILURE, "Insufficient disks, ODF requires at least one non-installation SSD or HDD disk on each "
                + "host in compact mode.")
            : satisfied(OlmOperator.ODF);
      }
      return new Check(FAILURE, "ODF unsupported Host Role for Compact Mode.");
    }
    if (h.effectiveRole() == HostRole.AUTO_ASSIGN) {
      return new Check(FAILURE, "For ODF Standard Mode, host role must be assigned to master or worker.");
    }
    return satisfied(OlmOperator.ODF);
  }

  private static Check odfCluster(ClusterContext c) {
    OdfMode mode = odfMode(c);
    if (mode == OdfMode.UNKNOWN) {
      return new Check(FAILURE, "The cluster must either have no dedicated worker nodes or at least three. Add or "
          + "remove hosts, or change their roles configurations to meet the requirement.");
    }
    long disks = 0;
    long hostsWithDisks = 0;
    for (HostSnapshot h : c.hosts()) {
      boolean runsOdf = mode == OdfMode.COMPACT ? h.effectiveRole() != HostRole.WORKER : h.effectiveRole() == HostRole.WORKER;
      if (!runsOdf) {
        continue;
      }
      Inventory inv = h.inventory() != null && h.inventory().isUsable() ? h.inventory() : null;
      if (inv == null) {
        return new Check(PENDING, "Missing Inventory in some of the hosts");
      }
      long d = odfDisks(h, inv);
      disks += d;
      hostsWithDisks += d > 0 ? 1 : 0;
    }
    if (disks >= ODF_MIN_DISKS && hostsWithDisks >= ODF_MIN_HOSTS) {
      return new Check(SUCCESS, "ODF Requirements for " + (mode == OdfMode.COMPACT ? "Compact" : "Standard")
          + " Deployment are satisfied.");
    }
    return new Check(FAILURE, "Insufficient resources to deploy ODF in " + modeName(mode) + " mode. ODF requires a "
        + "minimum of " + ODF_MIN_HOSTS + " hosts. Each host must have at least 1 additional disk of " + ODF_MIN_DISK_GB
        + " GB minimum and an installation disk.");
  }

  private static String modeName(OdfMode mode) {
    return mode.name().toLowerCase(Locale.ROOT);
  }

  /** The disks ODF may use on the host (its manifests count OSDs from these); 0 without an inventory. */
  public static long odfDisks(HostSnapshot h) {
    return h.inventory() == null ? 0 : odfDisks(h, h.inventory());
  }

  private static long odfDisks(HostSnapshot h, Inventory inv) {
    return storageDisks(h, inv, ODF_MIN_DISK_GB * 1_000_000_000L);
  }

  private static long lvmDisks(HostSnapshot h, Inventory inv) {
    return storageDisks(h, inv, 1);
  }

  /** SSD or HDD disks other than the installation disk (and the boot medium) of at least {@code minBytes}. */
  static long storageDisks(HostSnapshot h, Inventory inv, long minBytes) {
    String install = h.installationDisk().map(Inventory.Disk::identifier).orElse(null);
    return inv.disks().stream()
        .filter(d -> "SSD".equals(d.driveType()) || "HDD".equals(d.driveType()))
        .filter(d -> !d.isInstallationMedia() && !d.identifier().equals(install))
        .filter(d -> d.sizeBytes() > 0 && d.sizeBytes() >= minBytes)
        .count();
  }

  // --- CNV, MCE, MTV -----------------------------------------------------------------------------------------

  private static Check cnvHost(ClusterContext c, HostSnapshot h, Inventory inv) {
    List<String> flags = inv.cpu() == null ? List.of() : inv.cpu().flags();
    if (!flags.contains("vmx") && !flags.contains("svm")) {
      return new Check(FAILURE, "CPU does not have virtualization support");
    }
    if (!c.singleNode() && h.effectiveRole() == HostRole.AUTO_ASSIGN) {
      return new Check(FAILURE, "All host roles must be assigned to enable CNV");
    }
    Needs n = hostNeeds(OlmOperator.CNV, c, h, inv);
    if (inv.cpuCount() < n.cpuCores()) {
      return new Check(FAILURE, "Insufficient CPU to deploy CNV. Required CPU count is " + n.cpuCores() + " but found "
          + inv.cpuCount());
    }
    long usableMib = usableMib(inv);
    if (usableMib < n.ramMib()) {
      return new Check(FAILURE, "Insufficient memory to deploy CNV. Required memory is " + n.ramMib() + " MiB but found "
          + usableMib + " MiB");
    }
    return satisfied(OlmOperator.CNV);
  }

  private static Check enoughFor(OlmOperator op, Needs n, Inventory inv) {
    if (inv.cpuCount() < n.cpuCores()) {
      return new Check(FAILURE, "Insufficient CPU to deploy " + op.fullName() + ". Required CPU count is " + n.cpuCores()
          + " but found " + inv.cpuCount());
    }
    long usableMib = usableMib(inv);
    if (usableMib < n.ramMib()) {
      return new Check(FAILURE, "Insufficient memory to deploy " + op.fullName() + ". Required memory is " + n.ramMib()
          + " MiB but found " + usableMib + " MiB");
    }
    return satisfied(op);
  }

  /** Supported GPUs and SR-IOV NICs, each asking 1 GiB more of a CNV worker. */
  static int cnvDevices(Inventory inv) {
    if (inv == null) {
      return 0;
    }
    int n = 0;
    for (Inventory.Gpu g : inv.gpus()) {
      if (CNV_GPUS.contains(deviceKey(g.vendorId(), g.deviceId()))) {
        n++;
      }
    }
    for (Inventory.NetInterface i : inv.interfaces()) {
      if (CNV_SRIOV_NICS.contains(deviceKey(i.vendor(), i.product()))) {
        n++;
      }
    }
    return n;
  }

  private static String deviceKey(String vendor, String device) {
    return strip(vendor) + ":" + strip(device);
  }

  private static String strip(String id) {
    String s = id == null ? "" : id.toLowerCase(Locale.ROOT);
    return s.startsWith("0x") ? s.substring(2) : s;
  }

  private static long usableMib(Inventory inv) {
    long bytes = inv.memory() == null ? 0 : inv.memory().usableBytes();
    return bytes / (1024 * 1024);
  }

  private static boolean isMaster(HostSnapshot h) {
    return h.effectiveRole() == HostRole.MASTER || h.effectiveRole() == HostRole.BOOTSTRAP;
  }

  private static Check satisfied(OlmOperator op) {
    return new Check(SUCCESS, op.fullName() + " requirements are satisfied");
  }

  private static boolean atLeast(String version, String min) {
    String[] p = min.split("\\.");
    return HardwareRequirements.versionAtLeast(version, Integer.parseInt(p[0]), Integer.parseInt(p[1]));
  }
}
