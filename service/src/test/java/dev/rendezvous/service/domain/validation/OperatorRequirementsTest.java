package dev.rendezvous.service.domain.validation;

import static dev.rendezvous.service.domain.Fixtures.NOW;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rendezvous.service.domain.DomainConfig;
import dev.rendezvous.service.domain.Fixtures;
import dev.rendezvous.service.domain.cluster.ClusterContext;
import dev.rendezvous.service.domain.host.HostRole;
import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.host.HostStatus;
import dev.rendezvous.service.domain.operators.OlmOperator;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The OLM operators' requirements, with upstream's numbers: what they add to a host's role minimum, and their host and
 * cluster {@code <operator>-requirements-satisfied} checks as the validators report them. The fixture host has
 * 8 CPUs, 16 GiB, a 120 GiB installation disk and a 21.5 GB second HDD, and vmx.
 */
class OperatorRequirementsTest {
  private static final HostValidator HOSTS = new HostValidator(DomainConfig.defaults());
  private static final ClusterValidator CLUSTERS = new ClusterValidator(DomainConfig.defaults());

  @Test
  void dependenciesAreAddedFirstAndOnce() {
    assertEquals(List.of("lso", "odf"), OlmOperator.withDependencies(List.of("odf")));
    assertEquals(List.of("cnv", "mtv"), OlmOperator.withDependencies(List.of("mtv")), "cnv brings nothing, as upstream's");
    assertEquals(List.of("lso", "odf", "cnv"), OlmOperator.withDependencies(List.of("odf", "cnv", "lso")));
    assertEquals(List.of("nmstate"), OlmOperator.withDependencies(List.of("NMState")));
  }

  @Test
  void operatorsRaiseTheRolesCpuAndMemoryMinimums() {
    // a 3-master cluster with MCE: 4 + 4 cores and 16 + 16 GiB for a master; the fixture host has 8 cores, 16 GiB
    HostValidation mce = validate(List.of("mce"), 3, r -> {}, HostRole.MASTER, 3);
    assertEquals(ValidationStatus.SUCCESS, mce.status(HostValidationId.HAS_CPU_CORES_FOR_ROLE));
    assertEquals(ValidationStatus.FAILURE, mce.status(HostValidationId.HAS_MEMORY_FOR_ROLE));
    assertTrue(message(mce, "has-memory-for-role").contains("32.00 GiB"), message(mce, "has-memory-for-role"));
    assertEquals(ValidationStatus.FAILURE, mce.statuses().get("mce-requirements-satisfied"));
    assertFalse(mce.group(HostValidationId.Blocking.SUFFICIENT), "a failed operator check keeps the host insufficient");

    HostValidation none = validate(List.of(), 3, r -> {}, HostRole.MASTER, 3);
    assertEquals(ValidationStatus.SUCCESS, none.status(HostValidationId.HAS_MEMORY_FOR_ROLE));
    assertEquals("mce is disabled", message(none, "mce-requirements-satisfied"));

    ClusterContext sno = cluster(List.of("cnv", "mce"), 1, r -> {}, HostRole.MASTER, 1);
    HostSnapshot h = sno.hosts().get(0);
    // single node: CNV asks master + worker (4 + 2 cores, 150 + 360 MiB), MCE its SNO figure (8 cores, 32 GiB)
    assertEquals(new OperatorRequirements.Needs(14, 510 + 32 * 1024),
        OperatorRequirements.hostNeeds(sno, h, h.inventory()));
  }

  @Test
  void cnvNeedsVirtualizationAndAssignedRoles() {
    Consumer<ObjectNode> noVirt = n -> {
      ArrayNode flags = (ArrayNode) n.get("cpu").get("flags");
      for (int i = flags.size() - 1; i >= 0; i--) {
        if (flags.get(i).asText().equals("vmx") || flags.get(i).asText().equals("svm")) {
          flags.remove(i);
        }
      }
    };
    HostValidation plain = validate(List.of("lso", "cnv"), 3, noVirt, HostRole.MASTER, 3);
    assertEquals("CPU does not have virtualization support", message(plain, "cnv-requirements-satisfied"));
    HostValidation auto = validate(List.of("lso", "cnv"), 3, r -> {}, HostRole.AUTO_ASSIGN, 3);
    assertEquals("All host roles must be assigned to enable CNV", message(auto, "cnv-requirements-satisfied"));
    HostValidation ok = validate(List.of("lso", "cnv"), 3, r -> {}, HostRole.MASTER, 3);
    assertEquals(ValidationStatus.SUCCESS, ok.statuses().get("cnv-requirements-satisfied"));
    assertEquals(ValidationStatus.SUCCESS, ok.statuses().get("lso-requirements-satisfied"));

    ClusterContext arm = cluster(List.of("lso", "cnv"), 3, r -> {}, HostRole.MASTER, 3).toBuilder()
        .cpuArchitecture("arm64").build();
    ClusterValidation v = CLUSTERS.validate(arm);
    assertFalse(v.conditions().get("cnv-requirements-satisfied"));
    assertFalse(v.requiredForInstall(), "an operator the cluster cannot run blocks the installation");
  }

  @Test
  void odfCountsLargeEnoughNonInstallationDisksOnTheHostsThatRunIt() {
    // the fixture's second disk is 21.5 GB: under ODF's 25 GB
    HostValidation small = validate(List.of("lso", "odf"), 3, r -> {}, HostRole.MASTER, 3);
    assertTrue(message(small, "odf-requirements-satisfied").startsWith("Insufficient resources to deploy ODF in compact mode"),
        message(small, "odf-requirements-satisfied"));
    ClusterContext smallCluster = cluster(List.of("lso", "odf"), 3, r -> {}, HostRole.MASTER, 3);
    assertFalse(CLUSTERS.validate(smallCluster).conditions().get("odf-requirements-satisfied"));

    Consumer<ObjectNode> bigDisk = n -> ((ObjectNode) n.get("disks").get(1)).put("size_bytes", 100_000_000_000L)
        .put("drive_type", "SSD");
    ClusterContext compact = cluster(List.of("lso", "odf"), 3, bigDisk, HostRole.MASTER, 3);
    ClusterValidation ok = CLUSTERS.validate(compact);
    assertTrue(ok.conditions().get("odf-requirements-satisfied"), ok.info().toJson());
    assertTrue(ok.info().toJson().contains("ODF Requirements for Compact Deployment are satisfied."));
    HostSnapshot h = compact.hosts().get(0);
    // compact mode, one eligible disk: 6 + 2 cores and 19 + 5 GiB on top of the master minimum
    assertEquals(new OperatorRequirements.Needs(8, 24 * 1024), OperatorRequirements.hostNeeds(compact, h, h.inventory()));
    assertEquals(ValidationStatus.SUCCESS, HOSTS.validate(h, compact, NOW).statuses().get("odf-requirements-satisfied"));

    // two workers: neither compact nor standard
    List<HostSnapshot> hosts = new ArrayList<>(compact.hosts());
    hosts.add(Fixtures.host(4, HostStatus.KNOWN).role(HostRole.WORKER).build());
    hosts.add(Fixtures.host(5, HostStatus.KNOWN).role(HostRole.WORKER).build());
    ClusterValidation twoWorkers = CLUSTERS.validate(compact.toBuilder().hosts(hosts).build());
    assertFalse(twoWorkers.conditions().get("odf-requirements-satisfied"));
    assertTrue(twoWorkers.info().toJson().contains("no dedicated worker nodes or at least three"));
    HostValidation worker = HOSTS.validate(hosts.get(3), compact.toBuilder().hosts(List.of(compact.hosts().get(0),
        compact.hosts().get(1), compact.hosts().get(2), hosts.get(3))).build(), NOW);
    assertEquals(ValidationStatus.FAILURE, worker.statuses().get("odf-requirements-satisfied"));
  }

  @Test
  void lvmNeedsASecondDiskAndVersionGatedOperatorsNameTheirMinimum() {
    Consumer<ObjectNode> oneDisk = n -> ((ArrayNode) n.get("disks")).remove(1);
    HostValidation lvm = validate(List.of("lvm"), 1, oneDisk, HostRole.MASTER, 1);
    assertEquals(ValidationStatus.FAILURE, lvm.statuses().get("lvm-requirements-satisfied"));
    assertEquals(ValidationStatus.SUCCESS,
        validate(List.of("lvm"), 1, r -> {}, HostRole.MASTER, 1).statuses().get("lvm-requirements-satisfied"));

    ClusterContext old = cluster(List.of("lso", "cnv", "mtv"), 3, r -> {}, HostRole.MASTER, 3).toBuilder()
        .openshiftVersion("4.13").build();
    ClusterValidation v = CLUSTERS.validate(old);
    assertFalse(v.conditions().get("mtv-requirements-satisfied"));
    assertTrue(v.info().toJson().contains("Migration Toolkit for Virtualization is only supported for OpenShift "
        + "versions 4.14.0 and above"), v.info().toJson());
    assertTrue(v.conditions().get("cnv-requirements-satisfied"));
  }

  @Test
  void anIgnoredOperatorValidationNoLongerBlocks() {
    ClusterContext c = cluster(List.of("mce"), 3, r -> {}, HostRole.MASTER, 3).toBuilder()
        .ignoredHostValidations(java.util.Set.of("mce-requirements-satisfied", "has-memory-for-role")).build();
    HostValidation v = HOSTS.validate(c.hosts().get(0), c, NOW);
    assertEquals(ValidationStatus.FAILURE, v.statuses().get("mce-requirements-satisfied"));
    assertTrue(v.conditions().get("mce-requirements-satisfied"), "ignored, so the condition holds");
    assertTrue(v.passes(HostValidationId.HAS_MEMORY_FOR_ROLE));
    assertFalse(validate(List.of("mce"), 3, r -> {}, HostRole.MASTER, 3).conditions().get("mce-requirements-satisfied"));
  }

  private static ClusterContext cluster(List<String> operators, int controlPlane, Consumer<ObjectNode> inventory,
      HostRole role, int hostCount) {
    List<HostSnapshot> hosts = new ArrayList<>();
    for (int i = 1; i <= hostCount; i++) {
      hosts.add(Fixtures.host(i, HostStatus.KNOWN).inventory(Fixtures.inventoryForHost(i, inventory)).role(role).build());
    }
    return Fixtures.cluster(hosts).olmOperators(operators).controlPlaneCount(controlPlane).build();
  }

  private static HostValidation validate(List<String> operators, int controlPlane, Consumer<ObjectNode> inventory,
      HostRole role, int hostCount) {
    ClusterContext c = cluster(operators, controlPlane, inventory, role, hostCount);
    return HOSTS.validate(c.hosts().get(0), c, NOW);
  }

  private static String message(HostValidation v, String id) {
    return v.info().all().stream().filter(r -> r.id().equals(id)).findFirst().orElseThrow().message();
  }
}
