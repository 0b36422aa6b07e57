package dev.rendezvous.service.domain.validation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rendezvous.service.domain.DomainConfig;
import dev.rendezvous.service.domain.Fixtures;
import dev.rendezvous.service.domain.cluster.ClusterContext;
import dev.rendezvous.service.domain.cluster.MajorityGroups;
import dev.rendezvous.service.domain.host.ConnectivityReport;
import dev.rendezvous.service.domain.host.DiskEligibility;
import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.host.HostStatus;
import dev.rendezvous.service.domain.host.Inventory;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Disk eligibility, majority groups and validation change events. */
class ValidationSupportTest {

  @ParameterizedTest(name = "[{index}] {0} {1} {2} {3}")
  @CsvSource(delimiter = '|', value = {
    "HDD|128849018880|4.16|x86_64|",
    "HDD|53687091200|4.16|x86_64|Disk is too small (disk only has 54 GB, but 100 GB are required)",
    "ODD|128849018880|4.16|x86_64|Drive type is ODD, it must be one of HDD, SSD, Multipath, FC, iSCSI, RAID.",
    "RAID|128849018880|4.13|x86_64|Drive type is RAID",
    "RAID|128849018880|4.14|x86_64|",
    "FC|128849018880|4.16|aarch64|Drive type is FC",
    "ECKD|128849018880|4.16|s390x|",
  })
  void diskEligibility(String type, long size, String version, String arch, String reason) {
    Inventory inv = Fixtures.inventory(n -> ((ObjectNode) n.get("disks").get(0)).put("drive_type", type).put("size_bytes", size));
    List<String> reasons = DiskEligibility.notEligibleReasons(inv.disks().get(0), inv, 100, version, arch);
    // the check without messages (what validations ask of every disk) must agree with the reasons
    assertEquals(reasons.isEmpty(), DiskEligibility.eligible(inv.disks().get(0), inv, 100, version, arch), reasons.toString());
    if (reason == null) {
      assertEquals(List.of(), reasons);
    } else {
      assertTrue(reasons.stream().anyMatch(r -> r.startsWith(reason)), reasons.toString());
    }
  }

  @Test
  void installationMediaAndRemovableAreNotEligibleAndChoiceFollowsUpstreamOrder() {
    Inventory inv = Fixtures.inventory(n -> {
      ((ObjectNode) n.get("disks").get(1)).put("size_bytes", 107374182400L).put("bootable", true).put("hctl", "0:0:0:2");
    });
    List<String> cd = DiskEligibility.notEligibleReasons(inv.disks().get(2), inv, 100, "4.16", "x86_64");
    assertTrue(cd.contains("Disk is removable"));
    assertTrue(cd.contains("Disk appears to be an ISO installation media (has partition with type iso9660)"));
    // both bootable HDDs, sdb is smaller: smaller size wins
    assertEquals("/dev/sdb", DiskEligibility.chooseInstallationDisk(inv, 100, "4.16", "x86_64").orElseThrow().path());
    Inventory nonBootable = Fixtures.inventory(n -> ((ObjectNode) n.get("disks").get(1)).put("size_bytes", 107374182400L));
    assertEquals("/dev/sda", DiskEligibility.chooseInstallationDisk(nonBootable, 100, "4.16", "x86_64").orElseThrow().path(),
        "bootable first");
  }

  static ConnectivityReport l2To(int... peers) {
    return new ConnectivityReport(java.util.Arrays.stream(peers).mapToObj(p -> new ConnectivityReport.RemoteHost(
        Fixtures.hostId(p),
        List.of(new ConnectivityReport.L2("enp1s0", "", "192.168.111." + (20 + p), "", true)),
        List.of(new ConnectivityReport.L3("enp1s0", "192.168.111." + (20 + p), true, 0.3, 0)),
        List.of())).toList());
  }

  @Test
  void majorityGroupIsTheLargestFullyConnectedSet() {
    List<HostSnapshot> hosts = List.of(
        Fixtures.host(1, HostStatus.KNOWN).connectivity(l2To(2, 3, 4)).build(),
        Fixtures.host(2, HostStatus.KNOWN).connectivity(l2To(1, 3)).build(),
        Fixtures.host(3, HostStatus.KNOWN).connectivity(l2To(1, 2)).build(),
        Fixtures.host(4, HostStatus.KNOWN).connectivity(l2To()).build());
    MajorityGroups g = MajorityGroups.compute(hosts);
    List<java.util.UUID> expected = List.of(Fixtures.hostId(1), Fixtures.hostId(2), Fixtures.hostId(3));
    assertEquals(expected, g.groupFor("192.168.111.0/24"));
    assertEquals(expected, g.groupFor(MajorityGroups.IPV4));
    assertEquals(List.of("192.168.111.21"), g.l3ConnectedAddresses().get(Fixtures.hostId(1)));
    String json = g.toJson();
    assertTrue(json.startsWith("{\"majority_groups\":{\"192.168.111.0/24\":[\"a0000000-0000-0000-0000-000000000001\""), json);
    assertEquals(g, MajorityGroups.parse(json));
    // and the validator uses it: host 4 fails, host 1 passes
    ClusterContext c = Fixtures.cluster(hosts).connectivityMajorityGroups(g).build();
    HostValidator v = new HostValidator(DomainConfig.defaults());
    assertEquals(ValidationStatus.FAILURE, v.validate(hosts.get(3), c, Fixtures.NOW).status(HostValidationId.BELONGS_TO_MAJORITY_GROUP));
    assertEquals(ValidationStatus.SUCCESS, v.validate(hosts.get(0), c, Fixtures.NOW).status(HostValidationId.BELONGS_TO_MAJORITY_GROUP));
  }

  static ValidationsInfo info(ValidationStatus s) {
    return new ValidationsInfo(Map.of("network", List.of(new ValidationResult("has-default-route", s, "m"))));
  }

  @Test
  void flappingValidationEmitsFailedAndFixedOnceEach() {
    HostSnapshot h = Fixtures.host(1, HostStatus.KNOWN).build();
    List<ValidationStatus> sequence = List.of(ValidationStatus.SUCCESS, ValidationStatus.FAILURE, ValidationStatus.FAILURE,
        ValidationStatus.SUCCESS, ValidationStatus.SUCCESS, ValidationStatus.PENDING, ValidationStatus.FAILURE);
    List<String> events = new java.util.ArrayList<>();
    for (int i = 1; i < sequence.size(); i++) {
      ValidationChanges.forHost(h, info(sequence.get(i - 1)), info(sequence.get(i))).forEach(e -> events.add(e.name() + ":" + e.message()));
    }
    assertEquals(List.of(
        "host_validation_failed:Host host-1: validation 'has-default-route' that used to succeed is now failing",
        "host_validation_fixed:Host host-1: validation 'has-default-route' is now fixed",
        "host_validation_failed:Host host-1: validation 'has-default-route' failed"), events);
    assertEquals(List.of(), ValidationChanges.forHost(h, null, info(ValidationStatus.FAILURE)), "first evaluation: no event");
  }
}
