package dev.rendezvous.agentbased.config;

import static dev.rendezvous.agentbased.config.SiteFixtures.PULL_SECRET;
import static dev.rendezvous.agentbased.config.SiteFixtures.SSH_KEY;
import static dev.rendezvous.agentbased.config.SiteFixtures.compactAgent;
import static dev.rendezvous.agentbased.config.SiteFixtures.compactInstall;
import static dev.rendezvous.agentbased.config.SiteFixtures.read;
import static dev.rendezvous.agentbased.config.SiteFixtures.snoAgent;
import static dev.rendezvous.agentbased.config.SiteFixtures.snoInstall;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rendezvous.agentbased.config.SitePlan.HostPlan;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SitePlanTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  private SitePlan compact() throws Exception {
    return SitePlan.of(read(dir, compactInstall(), compactAgent()), "4.22");
  }

  private SitePlan sno() throws Exception {
    return SitePlan.of(read(dir, snoInstall(), snoAgent()), "4.22");
  }

  @Test
  void theCompactClusterBody() throws Exception {
    ObjectNode expected = (ObjectNode) JSON.readTree("""
        {"name": "compact", "openshift_version": "4.22", "base_dns_domain": "example.com",
         "pull_secret": %s, "ssh_public_key": %s, "cpu_architecture": "x86_64",
         "control_plane_count": 3, "high_availability_mode": "Full",
         "platform": {"type": "baremetal"}, "user_managed_networking": false,
         "api_vips": [{"ip": "192.168.111.5"}], "ingress_vips": [{"ip": "192.168.111.4"}],
         "network_type": "OVNKubernetes",
         "cluster_networks": [{"cidr": "10.128.0.0/14", "host_prefix": 23}],
         "service_networks": [{"cidr": "172.30.0.0/16"}],
         "machine_networks": [{"cidr": "192.168.111.0/24"}],
         "hyperthreading": "all", "schedulable_masters": true,
         "additional_ntp_source": "0.rhel.pool.ntp.org,192.168.111.1"}
        """.formatted(JSON.writeValueAsString(PULL_SECRET), JSON.writeValueAsString(SSH_KEY)));
    assertEquals(expected, compact().clusterParams());
  }

  @Test
  void theSingleNodeClusterBody() throws Exception {
    ObjectNode p = sno().clusterParams();
    assertEquals(1, p.path("control_plane_count").asInt());
    assertEquals("None", p.path("high_availability_mode").asText());
    assertEquals("none", p.path("platform").path("type").asText());
    assertTrue(p.path("user_managed_networking").asBoolean());
    assertFalse(p.has("api_vips"));
    assertFalse(p.has("ssh_public_key"));
    assertFalse(p.has("additional_ntp_source"));
    assertEquals("aarch64", p.path("cpu_architecture").asText());
    assertEquals("http://proxy.example.org:3128", p.path("http_proxy").asText());
    assertEquals("http://proxy.example.org:3128", p.path("https_proxy").asText());
    assertEquals(".example.org,10.0.0.0/24", p.path("no_proxy").asText());
    assertEquals("[{\"cidr\":\"10.0.0.0/24\"}]", p.path("machine_networks").toString());
  }

  @Test
  void workersMakeMastersUnschedulableByDefaultAndDisabledHyperthreadingIsKept() throws Exception {
    String install = compactInstall().replace("  replicas: 0", "  replicas: 2\n  hyperthreading: Disabled");
    ObjectNode p = SitePlan.of(read(dir, install, compactAgent()), "4.22").clusterParams();
    assertFalse(p.has("schedulable_masters"));
    assertEquals("masters", p.path("hyperthreading").asText());
  }

  @Test
  void theInfraEnvBodyCarriesEachStaticHost() throws Exception {
    SitePlan plan = compact();
    ObjectNode p = plan.infraEnvParams("6f1d5d1c-0000-4000-8000-000000000001");
    assertEquals("compact-infra-env", p.path("name").asText());
    assertEquals("6f1d5d1c-0000-4000-8000-000000000001", p.path("cluster_id").asText());
    assertEquals(PULL_SECRET, p.path("pull_secret").asText());
    assertEquals(SSH_KEY, p.path("ssh_authorized_key").asText());
    assertEquals("4.22", p.path("openshift_version").asText());
    assertEquals("x86_64", p.path("cpu_architecture").asText());
    assertEquals("full-iso", p.path("image_type").asText());
    assertEquals("0.rhel.pool.ntp.org,192.168.111.1", p.path("additional_ntp_sources").asText());
    assertEquals("192.168.111.80", p.path("rendezvous_ip").asText());
    assertFalse(p.has("proxy"));
    JsonNode snc = p.path("static_network_config");
    assertEquals(3, snc.size());
    assertEquals("[{\"mac_address\":\"52:54:00:00:00:02\",\"logical_nic_name\":\"enp1s0\"}]",
        snc.path(2).path("mac_interface_map").toString());
    JsonNode yaml = YamlDoc.YAML.readTree(snc.path(2).path("network_yaml").asText());
    assertEquals("192.168.111.82",
        yaml.path("interfaces").path(0).path("ipv4").path("address").path(0).path("ip").asText());
    // without a cluster the infra-env is unbound
    assertFalse(plan.infraEnvParams(null).has("cluster_id"));
  }

  @Test
  void theSingleNodeInfraEnvBody() throws Exception {
    ObjectNode p = sno().infraEnvParams("c1");
    assertEquals("{\"http_proxy\":\"http://proxy.example.org:3128\",\"https_proxy\":\"http://proxy.example.org:3128\","
        + "\"no_proxy\":\".example.org,10.0.0.0/24\"}", p.path("proxy").toString());
    assertTrue(p.path("additional_trust_bundle").asText().startsWith("-----BEGIN CERTIFICATE-----"));
    assertEquals("aarch64", p.path("cpu_architecture").asText());
    assertFalse(p.has("static_network_config"));
    assertFalse(p.has("ssh_authorized_key"));
  }

  @Test
  void installConfigOverridesCarryWhatTheClusterBodyCannot() throws Exception {
    SitePlan plan = sno();
    JsonNode o = JSON.readTree(plan.installConfigOverrides());
    assertTrue(o.path("fips").asBoolean());
    assertEquals("[{\"source\":\"quay.io/openshift-release-dev/ocp-release\",\"mirrors\":"
        + "[\"mirror.example.org:5000/ocp/release\"]}]", o.path("imageDigestSources").toString());
    assertTrue(o.path("additionalTrustBundle").asText().contains("MIIBfake"));
    assertEquals(List.of(new SitePlan.Mirror("quay.io/openshift-release-dev/ocp-release",
        List.of("mirror.example.org:5000/ocp/release"))), plan.mirrors());
    assertNull(compact().installConfigOverrides());
  }

  @Test
  void hostsAreFoundByAnyOfTheirMacsInAnyCase() throws Exception {
    SitePlan plan = compact();
    assertEquals(3, plan.hosts().size());
    HostPlan h = plan.hostFor(List.of("00:11:22:33:44:55", "52:54:00:00:00:01")).orElseThrow();
    assertEquals(1, h.index());
    assertEquals("master-1", h.hostname());
    assertEquals("master", h.role());
    assertEquals("/dev/sda", h.hints().deviceName());
    assertTrue(plan.hostFor(List.of("00:11:22:33:44:55")).isEmpty());

    HostPlan single = sno().hostFor(List.of("aa:bb:cc:dd:ee:01")).orElseThrow();
    assertEquals(List.of("aa:bb:cc:dd:ee:01"), single.macAddresses());
    assertNull(single.role());
  }

  @Test
  void theSummaries() throws Exception {
    SitePlan plan = compact();
    assertEquals(3, plan.expectedHosts());
    assertEquals("compact", plan.clusterName());
    assertEquals("example.com", plan.baseDomain());
    assertEquals("192.168.111.80", plan.rendezvousIp());
    assertEquals(List.of("install-config.yaml: publish", "install-config.yaml: capabilities"), plan.ignoredFields());
  }
}
