package dev.rendezvous.service.domain.validation;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.rendezvous.service.domain.host.HostRole;
import dev.rendezvous.service.domain.planning.InvalidStepOutputException;
import dev.rendezvous.service.domain.planning.StepOutputs;
import java.util.Map;

/**
 * Per-role hardware thresholds (upstream data/default_hw_requirements.json, fed via
 * HW_VALIDATOR_REQUIREMENTS). Defaults are upstream's; {@link #lowered} and {@link #fromUpstreamJson}
 * let a deployment (or a test on a small machine) relax them.
 */
public record HardwareRequirements(
    RoleRequirements master,
    RoleRequirements arbiter,
    RoleRequirements worker,
    RoleRequirements sno,
    int snoCpuCoresFrom422,
    RoleRequirements edgeWorker) {

  /**
   * One role's numbers. Latency and packet-loss thresholds are {@code null} where upstream has none (SNO,
   * edge worker): the corresponding validations then pass.
   */
  public record RoleRequirements(
      int cpuCores,
      long ramMib,
      long diskSizeGb,
      long installationDiskSpeedThresholdMs,
      Double networkLatencyThresholdMs,
      Double packetLossPercentage) {}

  public static HardwareRequirements defaults() {
    return new HardwareRequirements(
        new RoleRequirements(4, 16384, 100, 10, 100.0, 0.0),
        new RoleRequirements(2, 8192, 50, 10, 1000.0, 0.0),
        new RoleRequirements(2, 8192, 100, 10, 1000.0, 10.0),
        new RoleRequirements(8, 16384, 100, 10, null, null),
        4,
        new RoleRequirements(2, 8192, 15, 10, null, null));
  }

  /** Every role lowered to the given CPU/RAM/disk (thresholds for latency and loss kept), for small machines. */
  public HardwareRequirements lowered(int cpuCores, long ramMib, long diskSizeGb) {
    return new HardwareRequirements(
        lower(master, cpuCores, ramMib, diskSizeGb),
        lower(arbiter, cpuCores, ramMib, diskSizeGb),
        lower(worker, cpuCores, ramMib, diskSizeGb),
        lower(sno, cpuCores, ramMib, diskSizeGb),
        Math.min(snoCpuCoresFrom422, cpuCores),
        lower(edgeWorker, cpuCores, ramMib, diskSizeGb));
  }

  private static RoleRequirements lower(RoleRequirements r, int cpu, long ram, long disk) {
    return new RoleRequirements(
        Math.min(r.cpuCores(), cpu),
        Math.min(r.ramMib(), ram),
        Math.min(r.diskSizeGb(), disk),
        r.installationDiskSpeedThresholdMs(),
        r.networkLatencyThresholdMs(),
        r.packetLossPercentage());
  }

  /**
   * Requirements for a host's role in a cluster. Auto-assign uses the worker numbers (upstream), a
   * single-node master the SNO numbers (4 cores from OCP 4.22), BlueField DPUs the edge-worker numbers.
   */
  public RoleRequirements forRole(HostRole role, boolean singleNode, String openshiftVersion, String productName) {
    if ("BlueField SoC".equals(productName) && role != HostRole.MASTER) {
      return edgeWorker;
    }
    return switch (role) {
      case MASTER, BOOTSTRAP -> {
        if (!singleNode) {
          yield master;
        }
        if (versionAtLeast(openshiftVersion, 4, 22)) {
          yield new RoleRequirements(snoCpuCoresFrom422, sno.ramMib(), sno.diskSizeGb(),
              sno.installationDiskSpeedThresholdMs(), sno.networkLatencyThresholdMs(), sno.packetLossPercentage());
        }
        yield sno;
      }
      case ARBITER -> arbiter;
      case WORKER, AUTO_ASSIGN -> worker;
    };
  }

  /** Lowest CPU of master and worker: the "any role" minimum of has-min-cpu-cores. */
  public int minCpuCoresAnyRole() {
    return Math.min(master.cpuCores(), worker.cpuCores());
  }

  public long minRamMibAnyRole() {
    return Math.min(master.ramMib(), worker.ramMib());
  }

  /** Unbound hosts are judged by the role with the smallest disk requirement. */
  public RoleRequirements smallestDiskRole() {
    RoleRequirements best = master;
    for (RoleRequirements r : new RoleRequirements[] {arbiter, worker}) {
      if (r.diskSizeGb() < best.diskSizeGb()) {
        best = r;
      }
    }
    return best;
  }

  public static boolean versionAtLeast(String version, int major, int minor) {
    if (version == null) {
      return false;
    }
    String[] p = version.split("[.-]");
    try {
      int ma = Integer.parseInt(p[0]);
      int mi = p.length > 1 ? Integer.parseInt(p[1]) : 0;
      return ma > major || (ma == major && mi >= minor);
    } catch (NumberFormatException e) {
      return false;
    }
  }

  /**
   * Parses upstream's HW_VALIDATOR_REQUIREMENTS JSON (a list of {version, master, arbiter, worker, sno,
   * edge-worker}); the entry with version "default" (else the first) is used, missing roles keep defaults.
   */
  public static HardwareRequirements fromUpstreamJson(String json) {
    try {
      JsonNode root = StepOutputs.JSON.readTree(json);
      JsonNode entry = root.isArray() && root.size() > 0 ? root.get(0) : root;
      if (root.isArray()) {
        for (JsonNode n : root) {
          if ("default".equals(n.path("version").asText())) {
            entry = n;
          }
        }
      }
      HardwareRequirements d = defaults();
      return new HardwareRequirements(
          role(entry.get("master"), d.master),
          role(entry.get("arbiter"), d.arbiter),
          role(entry.get("worker"), d.worker),
          role(entry.get("sno"), d.sno),
          d.snoCpuCoresFrom422,
          role(entry.get("edge-worker"), d.edgeWorker));
    } catch (JsonProcessingException e) {
      throw new InvalidStepOutputException("hw_validator_requirements", e.getOriginalMessage(), e);
    }
  }

  private static RoleRequirements role(JsonNode n, RoleRequirements fallback) {
    if (n == null || n.isNull()) {
      return fallback;
    }
    return new RoleRequirements(
        n.path("cpu_cores").asInt(fallback.cpuCores()),
        n.path("ram_mib").asLong(fallback.ramMib()),
        n.path("disk_size_gb").asLong(fallback.diskSizeGb()),
        n.path("installation_disk_speed_threshold_ms").asLong(fallback.installationDiskSpeedThresholdMs()),
        n.has("network_latency_threshold_ms") ? n.get("network_latency_threshold_ms").asDouble() : fallback.networkLatencyThresholdMs(),
        n.has("packet_loss_percentage") ? n.get("packet_loss_percentage").asDouble() : fallback.packetLossPercentage());
  }

  /** Used by the preflight-requirements endpoint; role name → requirements. */
  public Map<String, RoleRequirements> asMap() {
    return Map.of("master", master, "arbiter", arbiter, "worker", worker, "sno", sno, "edge-worker", edgeWorker);
  }
}
