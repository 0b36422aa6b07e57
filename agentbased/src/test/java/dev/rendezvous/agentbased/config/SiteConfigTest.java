package dev.rendezvous.agentbased.config;

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
import dev.rendezvous.agentbased.config.AgentConfig.Host;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SiteConfigTest {
  @TempDir Path dir;

  @Test
  void aCompactSiteWithStaticNetworkingIsRead() throws Exception {
    SiteConfig site = read(dir, compactInstall(), compactAgent());

    InstallConfig ic = site.install();
    assertEquals("compact", ic.clusterName());
    assertEquals("example.com", ic.baseDomain());
    assertEquals(3, ic.controlPlaneReplicas());
    assertEquals(0, ic.workerReplicas());
    assertEquals(3, site.expectedHosts());
    assertEquals("x86_64", ic.cpuArchitecture());
    assertEquals("baremetal", ic.platform().type());
    assertEquals(List.of("192.168.111.5"), ic.platform().apiVips());
    assertEquals(List.of("192.168.111.0/24"), ic.networking().machineNetwork());
    assertEquals(List.of("publish", "capabilities"), ic.ignoredFields());

    AgentConfig ac = site.agent();
    assertEquals("192.168.111.80", site.rendezvousIp());
    assertEquals(List.of("0.rhel.pool.ntp.org", "192.168.111.1"), ac.additionalNTPSources());
    assertEquals(3, ac.hosts().size());
    Host h = ac.hosts().get(1);
    assertEquals("master-1", h.hostname());
    assertEquals("master", h.role());
    assertEquals(List.of("52:54:00:00:00:01"), h.macAddresses());
    assertEquals("/dev/sda", h.rootDeviceHints().deviceName());
    assertEquals(List.of("192.168.111.81"), h.staticAddresses());
    // the NMState document is handed on as YAML text with the same content
    JsonNode nm = YamlDoc.YAML.readTree(h.networkConfig());
    assertEquals("52:54:00:00:00:01", nm.path("interfaces").path(0).path("mac-address").asText());
    assertEquals(24, nm.path("interfaces").path(0).path("ipv4").path("address").path(0).path("prefix-length").asInt());
    assertEquals("192.168.111.1", nm.path("routes").path("config").path(0).path("next-hop-address").asText());
    assertEquals(List.of(), site.warnings());
    assertEquals(List.of("install-config.yaml: publish", "install-config.yaml: capabilities"), site.ignoredFields());
  }

  @Test
  void aSingleNodeSiteOnPlatformNoneIsRead() throws Exception {
    SiteConfig site = read(dir, snoInstall(), snoAgent());

    InstallConfig ic = site.install();
    assertTrue(ic.singleNode());
    assertEquals("none", ic.platform().type());
    assertEquals("aarch64", ic.cpuArchitecture());
    assertEquals("OVNKubernetes", ic.networking().networkType());
    // openshift-install's defaults for what the file leaves out
    assertEquals("10.128.0.0/14", ic.networking().clusterNetwork().get(0).cidr());
    assertEquals(23, ic.networking().clusterNetwork().get(0).hostPrefix());
    assertEquals(List.of("172.30.0.0/16"), ic.networking().serviceNetwork());
    assertTrue(ic.fips());
    assertEquals("quay.io/openshift-release-dev/ocp-release", ic.imageDigestSources().get(0).source());
    assertEquals("http://proxy.example.org:3128", ic.proxy().httpsProxy());

    Host h = site.agent().hosts().get(0);
    assertNull(h.role());
    assertNull(h.networkConfig());
    assertEquals(List.of("aa:bb:cc:dd:ee:01"), h.macAddresses());
    assertEquals(100L, h.rootDeviceHints().minSizeGigabytes());
    assertEquals(Boolean.FALSE, h.rootDeviceHints().rotational());
    assertEquals("10.0.0.10", site.rendezvousIp());
    assertEquals(List.of("agent-config.yaml: bootArtifactsBaseURL"), site.ignoredFields());
  }

  @Test
  void computeAbsentMeansThreeWorkersAsOpenshiftInstall() throws Exception {
    String install = compactInstall().replace("compute:\n- name: worker\n  replicas: 0\n", "");
    SiteConfig site = read(dir, install, compactAgent());
    assertEquals(3, site.install().workerReplicas());
    assertEquals(6, site.expectedHosts());
    assertTrue(site.warnings().get(0).startsWith("agent-config.yaml: hosts: 3 listed of the 6 expected"));
  }

  @Test
  void theOlderSingularVipsAreFoldedIn() throws Exception {
    String install = compactInstall().replace("""
            apiVIPs:
            - 192.168.111.5
            ingressVIPs:
            - 192.168.111.4
        """, """
            apiVIP: 192.168.111.5
            ingressVIP: 192.168.111.4
            provisioningNetwork: Disabled
        """);
    SiteConfig site = read(dir, install, compactAgent());
    assertEquals(List.of("192.168.111.5"), site.install().platform().apiVips());
    assertEquals(List.of("192.168.111.4"), site.install().platform().ingressVips());
    assertTrue(site.install().ignoredFields().contains("platform.baremetal.provisioningNetwork"));
  }

  @Test
  void withoutRendezvousIpTheFirstMastersStaticAddressIsTaken() throws Exception {
    SiteConfig site = read(dir, compactInstall(), compactAgent().replace("rendezvousIP: 192.168.111.80\n", ""));
    assertNull(site.agent().rendezvousIP());
    assertEquals("192.168.111.80", site.rendezvousIp());
    assertEquals(List.of("agent-config.yaml: rendezvousIP: not set; using 192.168.111.80, the first static address of"
        + " hosts[0]"), site.warnings());
  }

  @Test
  void aVlanOnABondIsTakenAndItsAddressIsTheRendezvousIp() throws Exception {
    String agent = snoAgent().replace("rendezvousIP: 10.0.0.10\n", "").replace("""
          - name: eno1
            macAddress: AA:BB:CC:DD:EE:01
        """, """
          - name: eno1
            macAddress: AA:BB:CC:DD:EE:01
          - name: eno2
            macAddress: AA:BB:CC:DD:EE:02
          networkConfig:
            interfaces:
            - name: bond0
              type: bond
              state: up
              link-aggregation: {mode: 802.3ad, port: [eno1, eno2], options: {lacp_rate: fast}}
            - name: bond0.10
              type: vlan
              state: up
              vlan: {base-iface: bond0, id: 10}
              ipv4: {enabled: true, address: [{ip: 10.0.0.10, prefix-length: 24}]}
        """);
    SiteConfig site = read(dir, snoInstall(), agent);
    assertEquals("10.0.0.10", site.rendezvousIp());
    com.fasterxml.jackson.databind.JsonNode snc = SitePlan.of(site, "4.22").infraEnvParams(null)
        .path("static_network_config").path(0);
    assertTrue(snc.path("network_yaml").asText().contains("base-iface: \"bond0\""), snc.toString());
    assertEquals(2, snc.path("mac_interface_map").size(), snc.toString());
  }

  @Test
  void aRendezvousIpOnADhcpHostIsAllowedWhenNotEveryHostIsStatic() throws Exception {
    String install = compactInstall().replace("  replicas: 0", "  replicas: 1");
    SiteConfig site = read(dir, install,
        compactAgent().replace("rendezvousIP: 192.168.111.80", "rendezvousIP: 192.168.111.90"));
    assertEquals("192.168.111.90", site.rendezvousIp());
    assertFalse(site.warnings().isEmpty());
  }

  @Test
  void aNetworkConfigGivenAsABlockStringIsAccepted() throws Exception {
    String agent = snoAgent().replace("""
          rootDeviceHints:
        """, """
          networkConfig: |
            interfaces:
            - name: eno1
              type: ethernet
              state: up
              ipv4:
                enabled: true
                dhcp: true
          rootDeviceHints:
        """);
    SiteConfig site = read(dir, snoInstall(), agent);
    assertEquals("eno1", YamlDoc.YAML.readTree(site.agent().hosts().get(0).networkConfig()).path("interfaces").path(0)
        .path("name").asText());
  }
}
