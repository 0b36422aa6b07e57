package dev.rendezvous.service.domain.planning;

import static dev.rendezvous.service.domain.host.HostStatus.*;
import static dev.rendezvous.service.domain.planning.StepType.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rendezvous.service.domain.DomainConfig;
import dev.rendezvous.service.domain.DomainEvent;
import dev.rendezvous.service.domain.Fixtures;
import dev.rendezvous.service.domain.cluster.ClusterContext;
import dev.rendezvous.service.domain.host.HostRole;
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

class NextStepPlannerTest {
  static final DomainConfig CONFIG = DomainConfig.defaults()
      .withRequiredImages(List.of("quay.io/openshift-release-dev/ocp-release:4.16.0-x86_64"));

  static StepPlan plan(HostStatus status, UnaryOperator<HostSnapshot.Builder> host, UnaryOperator<ClusterContext.Builder> cluster) {
    HostSnapshot h = host.apply(Fixtures.host(1, status)).build();
    List<HostSnapshot> hosts = List.of(h, Fixtures.host(2, KNOWN).build(), Fixtures.host(3, DISCOVERING).build());
    ClusterContext c = cluster.apply(Fixtures.cluster(hosts)).build();
    return new NextStepPlanner(CONFIG, StepIdGenerator.sequential()).plan(h, h.unbound() ? null : c);
  }

  static Stream<Arguments> rows() {
    UnaryOperator<HostSnapshot.Builder> same = b -> b;
    UnaryOperator<ClusterContext.Builder> any = b -> b;
    UnaryOperator<ClusterContext.Builder> dhcp = b -> b.vipDhcpAllocation(true);
    UnaryOperator<HostSnapshot.Builder> unbound = b -> b.clusterId(null);
    return Stream.of(
        Arguments.of(DISCOVERING, same, any, List.of(INVENTORY), 60, "continue"),
        Arguments.of(KNOWN, same, any, List.of(CONNECTIVITY_CHECK, FREE_NETWORK_ADDRESSES, INVENTORY, NTP_SYNCHRONIZER, DOMAIN_RESOLUTION, VERIFY_VIPS), 60, "continue"),
        Arguments.of(KNOWN, same, dhcp, List.of(CONNECTIVITY_CHECK, FREE_NETWORK_ADDRESSES, DHCP_LEASE_ALLOCATE, INVENTORY, NTP_SYNCHRONIZER, DOMAIN_RESOLUTION, VERIFY_VIPS), 60, "continue"),
        Arguments.of(INSUFFICIENT, same, any, List.of(INVENTORY, CONNECTIVITY_CHECK, FREE_NETWORK_ADDRESSES, NTP_SYNCHRONIZER, DOMAIN_RESOLUTION, VERIFY_VIPS), 60, "continue"),
        Arguments.of(PENDING_FOR_INPUT, same, (UnaryOperator<ClusterContext.Builder>) b -> b.baseDnsDomain("").apiVips(List.of()).ingressVips(List.of()), List.of(INVENTORY, CONNECTIVITY_CHECK, FREE_NETWORK_ADDRESSES, NTP_SYNCHRONIZER), 60, "continue"),
        Arguments.of(DISCONNECTED, same, any, List.of(INVENTORY), 120, "continue"),
        Arguments.of(PREPARING_FOR_INSTALLATION, same, any, List.of(INSTALLATION_DISK_SPEED_CHECK, CONTAINER_IMAGE_AVAILABILITY), 60, "continue"),
        Arguments.of(PREPARING_FOR_INSTALLATION, (UnaryOperator<HostSnapshot.Builder>) b -> b.diskSpeeds(Map.of("/dev/sda", new HostSnapshot.DiskSpeed(true, 0, 2)))
            .imagesStatus(List.of(new StepOutputs.ImageAvailability("quay.io/openshift-release-dev/ocp-release:4.16.0-x86_64", "success", 1, 1, 10))), any, List.of(), 60, "continue"),
        Arguments.of(INSTALLING, (UnaryOperator<HostSnapshot.Builder>) b -> b.role(HostRole.MASTER), any, List.of(INSTALL), 60, "continue"),
        Arguments.of(INSTALLING_IN_PROGRESS, same, dhcp, List.of(DHCP_LEASE_ALLOCATE), 60, "continue"),
        Arguments.of(ERROR, same, any, List.of(LOGS_GATHER, STOP_INSTALLATION), 120, "continue"),
        Arguments.of(CANCELLED, (UnaryOperator<HostSnapshot.Builder>) b -> b.logsInfo("completed"), any, List.of(STOP_INSTALLATION), 120, "continue"),
        Arguments.of(RESETTING, same, any, List.of(), 120, "continue"),
        Arguments.of(BINDING, same, any, List.of(), 0, "exit"),
        Arguments.of(INSTALLED, same, any, List.of(), 60, "continue"),
        Arguments.of(KNOWN, (UnaryOperator<HostSnapshot.Builder>) b -> b.day2(true), (UnaryOperator<ClusterContext.Builder>) b -> b.day2(true),
            List.of(INVENTORY, API_VIP_CONNECTIVITY_CHECK, NTP_SYNCHRONIZER, DOMAIN_RESOLUTION), 60, "continue"),
        Arguments.of(KNOWN_UNBOUND, unbound, any, List.of(INVENTORY, NTP_SYNCHRONIZER), 60, "continue"),
        Arguments.of(DISCONNECTED_UNBOUND, unbound, any, List.of(INVENTORY), 120, "continue"),
        Arguments.of(RECLAIMING, (UnaryOperator<HostSnapshot.Builder>) b -> b.clusterId(null)
            .reclaimBootArtifacts(NextStepPlanner.bootArtifactsRequest("k", "r", "i")), any,
            List.of(DOWNLOAD_BOOT_ARTIFACTS), 60, "continue"),
        Arguments.of(RECLAIMING, unbound, any, List.of(), 60, "continue"), // nothing to download: times out to the user
        Arguments.of(RECLAIMING_REBOOTING, unbound, any, List.of(REBOOT_FOR_RECLAIM), 0, "exit"));
  }

  @ParameterizedTest(name = "[{index}] {0} -> {3}")
  @MethodSource("rows")
  void stepsPerStatus(HostStatus status, UnaryOperator<HostSnapshot.Builder> host, UnaryOperator<ClusterContext.Builder> cluster,
      List<StepType> expected, int seconds, String action) {
    Steps s = plan(status, host, cluster).steps();
    assertEquals(expected, s.types());
    assertEquals(seconds, s.nextInstructionSeconds());
    assertEquals(action, s.postStepAction());
    for (int i = 0; i < s.instructions().size(); i++) {
      Step st = s.instructions().get(i);
      assertEquals(st.stepType().wire() + String.format("-%08x", i + 1), st.stepId());
    }
  }

  @Test
  void randomIdsHaveUpstreamShape() {
    String id = StepIdGenerator.random().next(INVENTORY);
    assertTrue(id.matches("inventory-[0-9a-f]{8}"), id);
  }

  @Test
  void connectivityArgsListTheOtherActiveHosts() throws Exception {
    Step s = plan(KNOWN, b -> b, b -> b).steps().instructions().get(0);
    JsonNode args = StepOutputs.JSON.readTree(s.args().get(0));
    assertEquals(1, args.size(), "host 3 is discovering and left out");
    assertEquals(Fixtures.hostId(2).toString(), args.get(0).get("host_id").asText());
    JsonNode nic = args.get(0).get("nics").get(0);
    assertEquals("enp1s0", nic.get("name").asText());
    assertEquals("00:0e:0f:a1:38:02", nic.get("mac").asText());
    assertEquals("192.168.111.22", nic.get("ip_addresses").get(0).asText());
  }

  @Test
  void aPlanWithoutTargetsIsThePlanButForTheConnectivityChecksList() {
    NextStepPlanner planner = new NextStepPlanner(CONFIG, StepIdGenerator.sequential());
    HostSnapshot h = Fixtures.host(1, KNOWN).build();
    for (List<HostSnapshot> others : List.of(List.of(Fixtures.host(2, KNOWN).build()),
        List.of(Fixtures.host(2, DISCOVERING).build()))) {
      List<HostSnapshot> hosts = new java.util.ArrayList<>(others);
      hosts.add(0, h);
      ClusterContext c = Fixtures.cluster(hosts).build();
      Steps full = planner.plan(h, c).steps();
      Steps bare = planner.planWithoutTargets(h, c, new NextStepPlanner.Memo()).steps();
      assertEquals(full.types(), bare.types(), "a connectivity check when, and only when, there is a peer to check");
      for (int i = 0; i < full.instructions().size(); i++) {
        Step f = full.instructions().get(i);
        Step b = bare.instructions().get(i);
        assertEquals(f.stepType() == CONNECTIVITY_CHECK ? List.of() : f.args(), b.args(), f.stepType().wire());
      }
      assertEquals(full.nextInstructionSeconds(), bare.nextInstructionSeconds());
    }
  }

  @Test
  void aMemoKeptAcrossPlansFollowsNewInventoriesAndForgetsReplacedOnes() throws Exception {
    NextStepPlanner planner = new NextStepPlanner(CONFIG, StepIdGenerator.sequential());
    List<HostSnapshot> hosts = List.of(Fixtures.host(1, KNOWN).build(), Fixtures.host(2, KNOWN).build(),
        Fixtures.host(3, KNOWN).build());
    NextStepPlanner.Memo memo = new NextStepPlanner.Memo();
    ClusterContext c = Fixtures.cluster(hosts).build();
    String first = planner.plan(hosts.get(0), c, memo).steps().instructions().get(0).args().get(0);
    assertEquals(first, planner.plan(hosts.get(0), c).steps().instructions().get(0).args().get(0), "as without a memo");
    assertEquals(2, memo.size());
    // host 2 reports another address: the next plan, with the same memo, lists the new one
    HostSnapshot moved = hosts.get(1).toBuilder().inventory(Fixtures.inventoryForHost(9, n -> {})).build();
    ClusterContext after = c.withHost(moved);
    JsonNode args = StepOutputs.JSON.readTree(planner.plan(hosts.get(0), after, memo).steps().instructions().get(0).args().get(0));
    assertEquals("192.168.111.29", args.get(0).get("nics").get(0).get("ip_addresses").get(0).asText());
    assertEquals(Fixtures.hostId(2).toString(), args.get(0).get("host_id").asText());
    for (int i = 0; i < 20; i++) {
      HostSnapshot again = hosts.get(1).toBuilder().inventory(Fixtures.inventoryForHost(2, n -> {})).build();
      planner.plan(hosts.get(0), c.withHost(again), memo);
    }
    assertTrue(memo.wantsPruning(3), "each new inventory object is a new entry");
    memo.prune(after.hosts());
    assertEquals(2, memo.size(), "only the inventories the hosts hold now");
  }

  @Test
  void domainResolutionAndVipArgs() throws Exception {
    Steps s = plan(KNOWN, b -> b, b -> b).steps();
    JsonNode domains = StepOutputs.JSON.readTree(s.instructions().get(4).args().get(0)).get("domains");
    assertEquals("api.ostest.test.metalkube.org", domains.get(0).get("domain_name").asText());
    assertEquals("validateNoWildcardDNS.ostest.test.metalkube.org.", domains.get(4).get("domain_name").asText());
    assertEquals("[{\"vip\":\"192.168.111.5\",\"vip_type\":\"api\"},{\"vip\":\"192.168.111.4\",\"vip_type\":\"ingress\"}]",
        s.instructions().get(5).args().get(0));
    assertEquals("[\"192.168.111.0/24\"]", s.instructions().get(1).args().get(0));
  }

  @Test
  void installCommandRequest() throws Exception {
    StepPlan p = plan(INSTALLING, b -> b.role(HostRole.MASTER).bootstrap(true).staticNetworking(true)
        .inventory(Fixtures.inventoryForHost(1, n -> ((com.fasterxml.jackson.databind.node.ObjectNode) n.get("disks").get(1)).put("bootable", true))),
        b -> b.proxy(new ClusterContext.Proxy("http://proxy:3128", null, "example.com")));
    JsonNode req = StepOutputs.JSON.readTree(p.steps().instructions().get(0).args().get(0));
    assertEquals("bootstrap", req.get("role").asText());
    // upstream's GetHostInstallationPath: the disk id (its by-id link) when the disk has one
    assertEquals("/dev/disk/by-id/wwn-0x05abcd4ae2c1f2b1", req.get("boot_device").asText());
    assertTrue(!req.has("metal_image_url") && !req.has("ignition_url"), "no image or URL configured: none sent");
    assertEquals(Fixtures.CLUSTER.toString(), req.get("cluster_id").asText());
    assertEquals(Fixtures.INFRA_ENV.toString(), req.get("infra_env_id").asText());
    assertEquals(Fixtures.hostId(1).toString(), req.get("host_id").asText());
    assertEquals("quay.io/edge-infrastructure/assisted-installer:latest", req.get("installer_image").asText());
    assertEquals("quay.io/edge-infrastructure/assisted-installer-controller:latest", req.get("controller_image").asText());
    assertEquals(3, req.get("control_plane_count").asInt());
    assertEquals("4.16", req.get("openshift_version").asText());
    assertEquals("[\"--copy-network\"]", req.get("installer_args").toString());
    assertEquals("[\"/dev/disk/by-id/wwn-0x05abcd1b9c7f3e11\"]", req.get("disks_to_format").toString());
    assertEquals("example.com,127.0.0.1,localhost,.svc,.cluster.local,api-int.ostest.test.metalkube.org", req.get("proxy").get("no_proxy").asText());
    assertTrue(!req.has("coreos_image"), "null fields are omitted");
    assertEquals(List.of("quick_disk_format_performed"), p.events().stream().map(DomainEvent::name).toList());
    assertEquals("host-1: Performing quick format of disk sdb(/dev/disk/by-id/wwn-0x05abcd1b9c7f3e11)", p.events().get(0).message());
  }

  @Test
  void imageAvailabilityAsksForTheClustersReleaseImageAndTheConfiguredOnesUntilPulled() throws Exception {
    String release = "quay.io/openshift-release-dev/ocp-release:4.22.9-x86_64";
    Step s = plan(PREPARING_FOR_INSTALLATION, b -> b, b -> b.releaseImage(release)).steps().instructions().get(1);
    assertEquals(CONTAINER_IMAGE_AVAILABILITY, s.stepType());
    JsonNode images = StepOutputs.JSON.readTree(s.args().get(0)).get("images");
    assertEquals(List.of(release, "quay.io/openshift-release-dev/ocp-release:4.16.0-x86_64"),
        List.of(images.get(0).asText(), images.get(1).asText()));
    Steps pulled = plan(PREPARING_FOR_INSTALLATION, b -> b.imagesStatus(List.of(
        new StepOutputs.ImageAvailability(release, "success", 1L, 1.0, 1.0),
        new StepOutputs.ImageAvailability("quay.io/openshift-release-dev/ocp-release:4.16.0-x86_64", "success", 1L, 1.0, 1.0))),
        b -> b.releaseImage(release)).steps();
    assertTrue(pulled.instructions().stream().noneMatch(i -> i.stepType() == CONTAINER_IMAGE_AVAILABILITY),
        "nothing left to check once every image was pulled");
  }

  @Test
  void diskSpeedArgsCarryPathAndTimeout() {
    Step s = plan(PREPARING_FOR_INSTALLATION, b -> b, b -> b).steps().instructions().get(0);
    assertEquals(List.of("{\"path\":\"/dev/sda\"}", "180.00"), s.args());
  }

  /** upstream's agent upgrade: one upgrade-agent step instead of the others, while nothing is being installed. */
  @Test
  void anAgentOfAnotherVersionIsOnlyToldToUpgradeBeforeAnInstallAndUntilAnUpgradeFailed() {
    NextStepPlanner planner = new NextStepPlanner(CONFIG.withAgentUpgrade("0.2.0"), StepIdGenerator.sequential());
    java.util.function.BiFunction<HostStatus, UnaryOperator<HostSnapshot.Builder>, List<StepType>> types = (st, b) -> {
      HostSnapshot h = b.apply(Fixtures.host(1, st)).build();
      ClusterContext c = Fixtures.cluster(List.of(h, Fixtures.host(2, KNOWN).build())).build();
      return planner.plan(h, h.unbound() ? null : c).steps().instructions().stream().map(Step::stepType).toList();
    };
    for (HostStatus st : List.of(DISCOVERING, KNOWN, INSUFFICIENT, PENDING_FOR_INPUT)) {
      assertEquals(List.of(UPGRADE_AGENT), types.apply(st, b -> b.discoveryAgentVersion("0.1.0")), st.wire());
    }
    assertEquals(List.of(UPGRADE_AGENT), types.apply(KNOWN_UNBOUND, b -> b.clusterId(null).discoveryAgentVersion("0.1.0")));
    StepPlan p = planner.plan(Fixtures.host(1, KNOWN).discoveryAgentVersion("0.1.0").build(),
        Fixtures.cluster(List.of(Fixtures.host(2, KNOWN).build())).build());
    assertEquals(List.of("{\"agent_image\":\"0.2.0\"}"), p.steps().instructions().get(0).args());
    assertEquals(60, p.steps().nextInstructionSeconds());
    assertEquals("continue", p.steps().postStepAction());
    // the service's own version, an install under way, upstream's agent (a container image), an upgrade that failed
    assertTrue(!types.apply(KNOWN, b -> b.discoveryAgentVersion("0.2.0")).contains(UPGRADE_AGENT));
    assertEquals(List.of(INSTALL), types.apply(INSTALLING, b -> b.discoveryAgentVersion("0.1.0")));
    assertTrue(!types.apply(KNOWN, b -> b.discoveryAgentVersion(
        "quay.io/edge-infrastructure/assisted-installer-agent:latest")).contains(UPGRADE_AGENT));
    assertTrue(!types.apply(KNOWN, b -> b.discoveryAgentVersion("0.1.0").agentUpgradeFailed("0.2.0"))
        .contains(UPGRADE_AGENT));
    // upgrades off (upstream's default): nobody is asked
    NextStepPlanner off = new NextStepPlanner(CONFIG, StepIdGenerator.sequential());
    HostSnapshot h = Fixtures.host(1, KNOWN).discoveryAgentVersion("0.1.0").build();
    assertTrue(off.plan(h, Fixtures.cluster(List.of(h)).build()).steps().instructions().stream()
        .noneMatch(s -> s.stepType() == UPGRADE_AGENT));
  }
}
