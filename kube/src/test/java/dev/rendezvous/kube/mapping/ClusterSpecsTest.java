package dev.rendezvous.kube.mapping;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import org.junit.jupiter.api.Test;

class ClusterSpecsTest {
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  static JsonNode yaml(String s) throws Exception {
    return YAML.readTree(s);
  }

  static final String CD = """
      metadata: {name: sno1, namespace: site}
      spec:
        baseDomain: edge.example.com
        clusterName: sno1
        pullSecretRef: {name: pull-secret}
      """;

  @Test
  void aClusterDeploymentAndAgentClusterInstallBecomeUpstreamsCreateParams() throws Exception {
    JsonNode aci = yaml("""
        metadata: {name: ha1, namespace: site}
        spec:
          clusterDeploymentRef: {name: ha1}
          imageSetRef: {name: img}
          networking:
            clusterNetwork: [{cidr: 10.128.0.0/14, hostPrefix: 23}]
            serviceNetwork: [172.30.0.0/16]
            machineNetwork: [{cidr: 192.168.10.0/24}]
            networkType: OVNKubernetes
          provisionRequirements: {controlPlaneAgents: 3, workerAgents: 2}
          apiVIP: 192.168.10.5
          ingressVIPs: [192.168.10.6]
          platformType: BareMetal
          sshPublicKey: ssh-ed25519 AAAA x@y
          proxy: {httpProxy: 'http://proxy:3128', noProxy: .local}
          ntpSources: [ntp1, ntp2]
        """);
    ObjectNode p = ClusterSpecs.createParams(yaml(CD), aci, "{\"auths\":{}}",
        "quay.io/openshift-release-dev/ocp-release:4.18.3-x86_64");
    assertEquals("sno1", p.path("name").asText());
    assertEquals("edge.example.com", p.path("base_dns_domain").asText());
    assertEquals("4.18", p.path("openshift_version").asText());
    assertEquals("x86_64", p.path("cpu_architecture").asText());
    assertEquals(3, p.path("control_plane_count").asInt());
    assertEquals("Full", p.path("high_availability_mode").asText());
    assertEquals(23, p.path("cluster_networks").get(0).path("host_prefix").asInt());
    assertEquals("172.30.0.0/16", p.path("service_networks").get(0).path("cidr").asText());
    assertEquals("192.168.10.0/24", p.path("machine_networks").get(0).path("cidr").asText());
    assertEquals("192.168.10.5", p.path("api_vips").get(0).path("ip").asText(), "the singular apiVIP too");
    assertEquals("192.168.10.6", p.path("ingress_vips").get(0).path("ip").asText());
    assertEquals("baremetal", p.path("platform").path("type").asText());
    assertEquals("http://proxy:3128", p.path("http_proxy").asText());
    assertEquals("ntp1,ntp2", p.path("additional_ntp_source").asText());
    assertEquals(new ClusterSpecs.Requirements(3, 2, 0), ClusterSpecs.requirements(aci));
  }

  @Test
  void singleNodeAndMissingFieldsNameTheCrField() throws Exception {
    JsonNode aci = yaml("""
        spec:
          provisionRequirements: {controlPlaneAgents: 1}
        """);
    assertEquals("None", ClusterSpecs.createParams(yaml(CD), aci, "{}", "r/x:4.20.0-x86_64")
        .path("high_availability_mode").asText());
    SpecError e = assertThrows(SpecError.class, () -> ClusterSpecs.createParams(yaml(CD), yaml("spec: {}"), "{}",
        "r/x:4.20.0-x86_64"));
    assertEquals("AgentClusterInstall.spec.provisionRequirements.controlPlaneAgents", e.field());
    e = assertThrows(SpecError.class, () -> ClusterSpecs.createParams(yaml("spec: {clusterName: a}"), aci, "{}",
        "r/x:4.20.0"));
    assertEquals("ClusterDeployment.spec.baseDomain", e.field());
    e = assertThrows(SpecError.class, () -> ClusterSpecs.versionOfReleaseImage("quay.io/x/release@sha256:abc"));
    assertEquals("ClusterImageSet.spec.releaseImage", e.field());
    assertEquals("aarch64", ClusterSpecs.architectureOfReleaseImage("r/x:4.18.3-aarch64"));
    assertEquals("multi", ClusterSpecs.architectureOfReleaseImage("r/x:4.18.3-multi"));
  }

  @Test
  void aRestFieldTheServiceRefusedMapsBackToTheCrField() {
    assertEquals("AgentClusterInstall.spec.networking.clusterNetwork", ClusterSpecs.crField("cluster_networks[0].cidr"));
    assertEquals("ClusterDeployment.spec.baseDomain", ClusterSpecs.crField("base_dns_domain"));
    assertTrue(ClusterSpecs.crField("something_new").contains("something_new"));
    assertEquals("InfraEnv.spec.sshAuthorizedKey", InfraEnvSpecs.crField("ssh_authorized_key"));
  }

  @Test
  void nmStateConfigsBecomeStaticNetworkConfigInAStableOrder() throws Exception {
    JsonNode a = yaml("""
        metadata: {name: b-node, namespace: s}
        spec:
          interfaces: [{name: eth0, macAddress: '52:54:00:00:00:02'}]
          config: {interfaces: [{name: eth0, type: ethernet, state: up}]}
        """);
    JsonNode b = yaml("""
        metadata: {name: a-node, namespace: s}
        spec:
          interfaces: [{name: eth0, macAddress: '52:54:00:00:00:01'}]
          config: {interfaces: [{name: eth0, type: ethernet, state: up}]}
        """);
    var out = InfraEnvSpecs.staticNetworkConfig(java.util.List.of(a, b));
    assertEquals("52:54:00:00:00:01", out.get(0).path("mac_interface_map").get(0).path("mac_address").asText());
    assertTrue(out.get(0).path("network_yaml").asText().contains("type: \"ethernet\"")
        || out.get(0).path("network_yaml").asText().contains("type: ethernet"), out.toString());
    assertEquals(out, InfraEnvSpecs.staticNetworkConfig(java.util.List.of(b, a)), "order does not make a new image");
    SpecError e = assertThrows(SpecError.class, () -> InfraEnvSpecs.staticNetworkConfig(java.util.List.of(
        yaml("metadata: {name: x}\nspec: {interfaces: [{name: eth0}], config: {interfaces: []}}"))));
    assertTrue(e.field().contains("interfaces[0]"), e.field());
    assertFalse(InfraEnvSpecs.createParams(yaml("metadata: {name: ie}\nspec: {}"), "{}", null, java.util.List.of())
        .has("cluster_id"), "late binding: no cluster");
  }
}
