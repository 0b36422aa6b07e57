package dev.rendezvous.service.domain.validation;

import dev.rendezvous.service.domain.DomainConfig;
import dev.rendezvous.service.domain.cluster.ClusterContext;
import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.host.Inventory;
import dev.rendezvous.service.domain.validation.HardwareRequirements.RoleRequirements;
import java.time.Instant;

/**
 * What every host check reads: the host, its cluster ({@code null} when unbound), its usable inventory (or
 * {@code null}), the evaluation time, the instant its silence is measured at (see HostStateMachine) and the
 * configuration. Shared by {@link HostValidator} and its check classes.
 */
record HostCheckContext(HostSnapshot host, ClusterContext cluster, Inventory inventory, Instant now, Instant judged,
    DomainConfig cfg) {
  boolean unbound() {
    return cluster == null;
  }

  boolean umn() {
    return cluster != null && cluster.userManagedNetworking();
  }

  boolean sno() {
    return cluster != null && cluster.singleNode();
  }

  RoleRequirements roleRequirements() {
    if (cluster == null) {
      return cfg.hardware().smallestDiskRole();
    }
    String product = inventory == null || inventory.systemVendor() == null ? null : inventory.systemVendor().productName();
    RoleRequirements base =
        cfg.hardware().forRole(host.effectiveRole(), cluster.singleNode(), cluster.openshiftVersion(), product);
    // as upstream's hardware check: the role's minimum plus what each of the cluster's operators needs on this host
    OperatorRequirements.Needs ops = OperatorRequirements.hostNeeds(cluster, host, inventory);
    if (ops.cpuCores() == 0 && ops.ramMib() == 0) {
      return base;
    }
    return new RoleRequirements(base.cpuCores() + ops.cpuCores(), base.ramMib() + ops.ramMib(), base.diskSizeGb(),
        base.installationDiskSpeedThresholdMs(), base.networkLatencyThresholdMs(), base.packetLossPercentage());
  }

  String domain(String prefix) {
    return prefix + "." + cluster.name() + "." + cluster.baseDnsDomain();
  }
}
