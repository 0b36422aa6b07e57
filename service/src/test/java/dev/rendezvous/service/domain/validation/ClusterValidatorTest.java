package dev.rendezvous.service.domain.validation;

import static dev.rendezvous.service.domain.validation.ValidationStatus.FAILURE;
import static dev.rendezvous.service.domain.validation.ValidationStatus.PENDING;
import static dev.rendezvous.service.domain.validation.ValidationStatus.SUCCESS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.service.domain.DomainConfig;
import dev.rendezvous.service.domain.Fixtures;
import dev.rendezvous.service.domain.cluster.ClusterContext;
import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.host.HostStatus;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ClusterValidatorTest {
  private static final ClusterValidator VALIDATOR = new ClusterValidator(DomainConfig.defaults());

  static List<HostSnapshot> known(int n) {
    return java.util.stream.IntStream.rangeClosed(1, n).mapToObj(i -> Fixtures.host(i, HostStatus.KNOWN).build()).toList();
  }

  static Stream<Arguments> rows() {
    return Stream.of(
        Arguments.of("machine cidr defined", (UnaryOperator<ClusterContext.Builder>) b -> b, "machine-cidr-defined", SUCCESS, "The Machine Network CIDR is defined."),
        Arguments.of("machine cidr missing", (UnaryOperator<ClusterContext.Builder>) b -> b.machineNetworks(List.of()), "machine-cidr-defined", FAILURE, "can be defined by setting either the API or Ingress virtual IPs."),
        Arguments.of("machine cidr pending without hosts", (UnaryOperator<ClusterContext.Builder>) b -> b.machineNetworks(List.of()).hosts(List.of()), "machine-cidr-defined", PENDING, "Hosts have not been discovered yet"),
        Arguments.of("cluster cidr", (UnaryOperator<ClusterContext.Builder>) b -> b.clusterNetworks(List.of()), "cluster-cidr-defined", FAILURE, "The Cluster Network CIDR is undefined."),
        Arguments.of("service cidr", (UnaryOperator<ClusterContext.Builder>) b -> b.serviceNetworks(List.of()), "service-cidr-defined", FAILURE, "The Service Network CIDR is undefined."),
        Arguments.of("overlap", (UnaryOperator<ClusterContext.Builder>) b -> b.serviceNetworks(List.of("192.168.111.0/25")), "no-cidrs-overlapping", FAILURE, "CIDRS Overlapping"),
        Arguments.of("no overlap", (UnaryOperator<ClusterContext.Builder>) b -> b, "no-cidrs-overlapping", SUCCESS, "No CIDRS are overlapping."),
        Arguments.of("families differ", (UnaryOperator<ClusterContext.Builder>) b -> b.serviceNetworks(List.of("fd02::/112")), "networks-same-address-families", FAILURE, "not the same"),
        Arguments.of("prefix valid", (UnaryOperator<ClusterContext.Builder>) b -> b, "network-prefix-valid", SUCCESS, "The Cluster Network prefix is valid."),
        Arguments.of("prefix too small", (UnaryOperator<ClusterContext.Builder>) b -> b.clusterNetworks(List.of(new ClusterContext.ClusterNetwork("10.128.0.0/14", 12))), "network-prefix-valid", FAILURE, "Invalid Cluster Network prefix"),
        Arguments.of("calculated cidr", (UnaryOperator<ClusterContext.Builder>) b -> b, "machine-cidr-equals-to-calculated-cidr", SUCCESS, "equivalent to the calculated CIDR"),
        Arguments.of("api vip defined", (UnaryOperator<ClusterContext.Builder>) b -> b, "api-vips-defined", SUCCESS, "The API virtual IP is defined."),
        Arguments.of("api vip missing", (UnaryOperator<ClusterContext.Builder>) b -> b.apiVips(List.of()), "api-vips-defined", FAILURE, "The API virtual IP is undefined and must be provided."),
        Arguments.of("SNO needs no vip", (UnaryOperator<ClusterContext.Builder>) b -> b.controlPlaneCount(1).apiVips(List.of()).hosts(known(1)), "api-vips-defined", SUCCESS, "not required"),
        Arguments.of("api vip valid", (UnaryOperator<ClusterContext.Builder>) b -> b, "api-vips-valid", SUCCESS, "api vips 192.168.111.5 belongs to the Machine CIDR and is not in use."),
        Arguments.of("api vip is a host's address", (UnaryOperator<ClusterContext.Builder>) b -> b.apiVips(List.of("192.168.111.21")), "api-vips-valid", FAILURE, "api vips <192.168.111.21> is already in use in cidr 192.168.111.0/24"),
        Arguments.of("ingress vip outside", (UnaryOperator<ClusterContext.Builder>) b -> b.ingressVips(List.of("10.9.9.9")), "ingress-vips-valid", FAILURE, "ingress vips <10.9.9.9> does not belong to machine-network-cidr <192.168.111.0/24>"),
        // what the hosts found at the VIP: verify-vips' verdicts, else the free-address sweeps, else nothing yet
        Arguments.of("api vip answered by another machine", (UnaryOperator<ClusterContext.Builder>) b -> b.hosts(vips(Map.of("192.168.111.5", "failed"), Map.of())), "api-vips-valid", FAILURE, "api vips <192.168.111.5> is already in use in cidr 192.168.111.0/24"),
        Arguments.of("api vip not verified yet", (UnaryOperator<ClusterContext.Builder>) b -> b.hosts(vips(Map.of(), Map.of())), "api-vips-valid", FAILURE, "api vips <192.168.111.5> are not verified yet."),
        // a verdict kept: verified before (these very VIPs), no answer since is no news; another answer is
        Arguments.of("api vip verified before, no answer since", (UnaryOperator<ClusterContext.Builder>) b -> b.hosts(vips(Map.of(), Map.of())).validationsInfo(before("api-vips-valid", SUCCESS, "api vips 192.168.111.5 belongs to the Machine CIDR and is not in use.")), "api-vips-valid", SUCCESS, "api vips 192.168.111.5 belongs to the Machine CIDR and is not in use."),
        Arguments.of("another api vip verified before", (UnaryOperator<ClusterContext.Builder>) b -> b.hosts(vips(Map.of(), Map.of())).validationsInfo(before("api-vips-valid", SUCCESS, "api vips 192.168.111.6 belongs to the Machine CIDR and is not in use.")), "api-vips-valid", FAILURE, "api vips <192.168.111.5> are not verified yet."),
        Arguments.of("api vip verified before, answered since", (UnaryOperator<ClusterContext.Builder>) b -> b.hosts(vips(Map.of("192.168.111.5", "failed"), Map.of())).validationsInfo(before("api-vips-valid", SUCCESS, "api vips 192.168.111.5 belongs to the Machine CIDR and is not in use.")), "api-vips-valid", FAILURE, "api vips <192.168.111.5> is already in use in cidr 192.168.111.0/24"),
        Arguments.of("api vip failed before, no answer since", (UnaryOperator<ClusterContext.Builder>) b -> b.hosts(vips(Map.of(), Map.of())).validationsInfo(before("api-vips-valid", FAILURE, "api vips <192.168.111.5> is already in use in cidr 192.168.111.0/24")), "api-vips-valid", FAILURE, "api vips <192.168.111.5> are not verified yet."),
        Arguments.of("api vip free in the sweeps", (UnaryOperator<ClusterContext.Builder>) b -> b.hosts(vips(Map.of(), Map.of("192.168.111.5", true))), "api-vips-valid", SUCCESS, "belongs to the Machine CIDR and is not in use."),
        Arguments.of("api vip missing from a sweep's free list", (UnaryOperator<ClusterContext.Builder>) b -> b.hosts(vips(Map.of(), Map.of("192.168.111.5", false))), "api-vips-valid", FAILURE, "api vips <192.168.111.5> is already in use in cidr 192.168.111.0/24"),
        Arguments.of("no network type (an imported cluster)", (UnaryOperator<ClusterContext.Builder>) b -> b.networkType(null), "custom-manifests-requirements-satisfied", SUCCESS, "No custom manifests are required"),
        Arguments.of("OVN needs no manifests", (UnaryOperator<ClusterContext.Builder>) b -> b.networkType("OVNKubernetes"), "custom-manifests-requirements-satisfied", SUCCESS, "No custom manifests are required"),
        Arguments.of("Cilium without manifests", (UnaryOperator<ClusterContext.Builder>) b -> b.networkType("Cilium"), "custom-manifests-requirements-satisfied", FAILURE, "Custom manifests are required for: Cilium network type. Please upload manifests via the custom manifests API."),
        Arguments.of("no CNI with manifests", (UnaryOperator<ClusterContext.Builder>) b -> b.networkType("None").customManifests(true), "custom-manifests-requirements-satisfied", SUCCESS, "Custom manifests are uploaded"),
        Arguments.of("baremetal platform", (UnaryOperator<ClusterContext.Builder>) b -> b, "platform-requirements-satisfied", SUCCESS, "Platform requirements satisfied"),
        Arguments.of("oci without its manifest", (UnaryOperator<ClusterContext.Builder>) b -> b.platformType("external").externalPlatformName("oci"), "platform-requirements-satisfied", FAILURE, "The custom manifest required for Oracle Cloud Infrastructure platform integration has not been added. Add a custom manifest to continue."),
        Arguments.of("oci with a manifest", (UnaryOperator<ClusterContext.Builder>) b -> b.platformType("external").externalPlatformName("oci").customManifests(true), "platform-requirements-satisfied", SUCCESS, "Platform requirements satisfied"),
        Arguments.of("all hosts ready", (UnaryOperator<ClusterContext.Builder>) b -> b, "all-hosts-are-ready-to-install", SUCCESS, "All hosts in the cluster are ready to install."),
        Arguments.of("a host insufficient", (UnaryOperator<ClusterContext.Builder>) b -> b.hosts(List.of(Fixtures.host(1, HostStatus.INSUFFICIENT).build())), "all-hosts-are-ready-to-install", FAILURE, "The cluster has hosts that are not ready to install."),
        Arguments.of("three master candidates", (UnaryOperator<ClusterContext.Builder>) b -> b, "sufficient-masters-count", SUCCESS, "The cluster has a sufficient number of master candidates."),
        Arguments.of("two hosts", (UnaryOperator<ClusterContext.Builder>) b -> b.hosts(known(2)), "sufficient-masters-count", FAILURE, "Clusters must have exactly 3 dedicated masters."),
        Arguments.of("four hosts: one worker is illegal", (UnaryOperator<ClusterContext.Builder>) b -> b.hosts(known(4)), "sufficient-masters-count", FAILURE, "exactly 3"),
        Arguments.of("five hosts: 3+2", (UnaryOperator<ClusterContext.Builder>) b -> b.hosts(known(5)), "sufficient-masters-count", SUCCESS, "sufficient"),
        Arguments.of("SNO with two hosts", (UnaryOperator<ClusterContext.Builder>) b -> b.controlPlaneCount(1).hosts(known(2)), "sufficient-masters-count", FAILURE, "Single-node clusters must have a single master node and no workers."),
        Arguments.of("weak hosts are no masters", (UnaryOperator<ClusterContext.Builder>) b -> b.hosts(List.of(1, 2, 3).stream().map(i -> Fixtures.host(i, HostStatus.KNOWN).inventory(Fixtures.inventoryForHost(i, Fixtures.cpu(2))).build()).toList()), "sufficient-masters-count", FAILURE, "exactly 3"),
        Arguments.of("dns domain", (UnaryOperator<ClusterContext.Builder>) b -> b.baseDnsDomain(""), "dns-domain-defined", FAILURE, "The base domain is undefined and must be provided."),
        Arguments.of("pull secret", (UnaryOperator<ClusterContext.Builder>) b -> b.pullSecretSet(false), "pull-secret-set", FAILURE, "The pull secret is not set."),
        Arguments.of("clocks apart", (UnaryOperator<ClusterContext.Builder>) b -> b.hosts(List.of(Fixtures.host(1, HostStatus.KNOWN).build(), Fixtures.host(2, HostStatus.KNOWN).hostTimestamp(Fixtures.NOW.getEpochSecond() - 300).build())), "ntp-server-configured", FAILURE, "Host clocks are not synchronized"),
        Arguments.of("sdn with ipv6", (UnaryOperator<ClusterContext.Builder>) b -> b.networkType("OpenShiftSDN").serviceNetworks(List.of("fd02::/112")), "network-type-valid", FAILURE, "not supported by OpenShiftSDN"),
        Arguments.of("bad network type", (UnaryOperator<ClusterContext.Builder>) b -> b.networkType("Flannel"), "network-type-valid", FAILURE, "The network type is not valid"));
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @MethodSource("rows")
  void validation(String name, UnaryOperator<ClusterContext.Builder> edit, String id, ValidationStatus status, String fragment) {
    ClusterValidation v = VALIDATOR.validate(edit.apply(Fixtures.cluster(known(3))).build());
    ValidationResult r = v.info().find(id).orElseThrow();
    assertEquals(status, r.status(), r.message());
    assertTrue(r.message().contains(fragment), r.message());
  }

  /** Three known hosts whose verify-vips verdicts and free-address sweeps say {@code verdicts} and {@code free}. */
  static ValidationsInfo before(String id, ValidationStatus status, String message) {
    return new ValidationsInfo(Map.of("network", List.of(new ValidationResult(id, status, message))));
  }

  static List<HostSnapshot> vips(Map<String, String> verdicts, Map<String, Boolean> free) {
    return List.of(1, 2, 3).stream().map(i -> Fixtures.host(i, HostStatus.KNOWN).vipVerifications(i == 1 ? verdicts : Map.of())
        .vipsFree(free).build()).toList();
  }

  @Test
  void groupsAndShape() {
    ClusterValidation ok = VALIDATOR.validate(Fixtures.cluster(known(3)).build());
    assertTrue(ok.pendingInputComplete());
    assertTrue(ok.vipsDefined());
    assertTrue(ok.requiredForInstall(), ok.info().toJson());
    assertEquals(List.of("configuration", "hosts-data", "network", "operators"), List.copyOf(ok.info().categories().keySet()));
    ClusterValidation notReady = VALIDATOR.validate(Fixtures.cluster(known(2)).build());
    assertFalse(notReady.requiredForInstall());
  }

  /**
   * The masters count, kept from the host counts and stopping once the rest can only be workers, agrees with the
   * plain count over every host (the model below: upstream's two passes) on random clusters of 0-12 hosts.
   */
  @Test
  void mastersCountAgreesWithAPassOverEveryHost() {
    HostStatus[] statuses = {HostStatus.KNOWN, HostStatus.DISABLED, HostStatus.INSUFFICIENT, HostStatus.DISCOVERING};
    dev.rendezvous.service.domain.host.HostRole[] roles = dev.rendezvous.service.domain.host.HostRole.values();
    int failures = 0;
    for (long seed = 1; seed <= 400; seed++) {
      java.util.Random rnd = new java.util.Random(seed);
      List<HostSnapshot> hosts = new java.util.ArrayList<>();
      for (int i = 1, n = rnd.nextInt(13); i <= n; i++) {
        HostSnapshot.Builder b = Fixtures.host(i, statuses[rnd.nextInt(statuses.length)])
            .role(rnd.nextInt(3) == 0 ? roles[rnd.nextInt(roles.length)] : dev.rendezvous.service.domain.host.HostRole.AUTO_ASSIGN);
        int kind = rnd.nextInt(4);
        if (kind == 0) {
          b.inventory(null);
        } else if (kind == 1) {
          b.inventory(Fixtures.inventoryForHost(i, Fixtures.cpu(2))); // too small to be a master
        }
        hosts.add(b.build());
      }
      ClusterContext c = Fixtures.cluster(hosts).controlPlaneCount(1 + rnd.nextInt(5)).build();
      ValidationResult r = VALIDATOR.validate(c).info().find("sufficient-masters-count").orElseThrow();
      boolean expected = mastersCountModel(c);
      assertEquals(expected, r.status() == SUCCESS, "seed " + seed + ": " + r.message());
      failures += expected ? 0 : 1;
    }
    assertTrue(failures > 50 && failures < 350, "both outcomes drawn: " + failures + " failures of 400");
  }

  private static boolean mastersCountModel(ClusterContext c) {
    int expected = c.controlPlaneCount();
    int masters = 0;
    int arbiters = 0;
    int workers = 0;
    List<HostSnapshot> active = c.hosts().stream().filter(h -> h.status() != HostStatus.DISABLED).toList();
    for (HostSnapshot h : active) {
      switch (h.role()) {
        case MASTER -> masters++;
        case ARBITER -> arbiters++;
        case WORKER -> workers++;
        default -> { }
      }
    }
    for (HostSnapshot h : active) {
      switch (h.role()) {
        case MASTER, ARBITER, WORKER -> { }
        default -> {
          if (masters < expected && VALIDATOR.validMasterCandidate(h, c)) {
            masters++;
          } else if (expected == 2 && arbiters == 0 && h.inventory() != null) {
            arbiters++;
          } else {
            workers++;
          }
        }
      }
    }
    boolean ok = masters == expected;
    return c.singleNode() ? ok && workers == 0 && arbiters == 0 : ok && workers != 1 && (expected != 2 || arbiters >= 1);
  }
}
