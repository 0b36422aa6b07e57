package dev.rendezvous.service.install;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.util.List;
import org.junit.jupiter.api.Test;

class InstallConfigRendererTest {
  static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  static final String PULL_SECRET = "{\"auths\":{\"quay.io\":{\"auth\":\"dXNlcjpwYXNz\"}}}";

  static InstallConfigInput ha(String overrides) {
    return new InstallConfigInput("edge1", "example.com", "x86_64", 3, 2, "OVNKubernetes",
        List.of(new InstallConfigInput.ClusterNetwork("10.128.0.0/14", 23)), List.of("172.30.0.0/16"),
        List.of("192.168.111.0/24"), List.of("192.168.111.5"), List.of("192.168.111.4"), "baremetal", "all",
        PULL_SECRET, "ssh-ed25519 AAAAC3 me@example", null, null, null, null, null, overrides, null);
  }

  static InstallConfigInput sno() {
    return new InstallConfigInput("sno1", "example.com", "x86_64", 1, 0, "OVNKubernetes",
        List.of(new InstallConfigInput.ClusterNetwork("10.128.0.0/14", 23)), List.of("172.30.0.0/16"),
        List.of("10.0.0.0/24"), List.of(), List.of(), "none", "all", PULL_SECRET, null,
        "http://proxy:3128", null, "example.net", null, "/dev/disk/by-id/wwn-0x1", null, null);
  }

  @Test
  void aDisconnectedSitesMirrorsAndTheirCaGoIntoTheInstallConfig() throws Exception {
    var mirrors = new dev.rendezvous.service.ignition.DiscoveryIgnitionInput.RegistryMirrors(List.of(
        new dev.rendezvous.service.ignition.DiscoveryIgnitionInput.Mirror("quay.io/openshift-release-dev/ocp-release",
            List.of("mirror.edge.example:5000/ocp/release"), true)), "-----BEGIN CERTIFICATE-----\nMIRROR\n-----END CERTIFICATE-----");
    JsonNode c = YAML.readTree(InstallConfigRenderer.render(ha(null).withMirrors(mirrors)));
    assertEquals("quay.io/openshift-release-dev/ocp-release", c.path("imageDigestSources").get(0).path("source").asText());
    assertEquals("mirror.edge.example:5000/ocp/release", c.path("imageDigestSources").get(0).path("mirrors").get(0).asText());
    assertTrue(c.path("additionalTrustBundle").asText().contains("MIRROR"), c.toString());
    JsonNode plain = YAML.readTree(InstallConfigRenderer.render(ha(null)));
    assertTrue(plain.path("imageDigestSources").isMissingNode() && plain.path("additionalTrustBundle").isMissingNode());
  }

  @Test
  void anHaClusterRendersUpstreamsShape() throws Exception {
    JsonNode c = YAML.readTree(InstallConfigRenderer.render(ha(null)));
    assertEquals("v1", c.path("apiVersion").asText());
    assertEquals("example.com", c.path("baseDomain").asText());
    assertEquals("edge1", c.path("metadata").path("name").asText());
    assertEquals(3, c.path("controlPlane").path("replicas").asInt());
    assertEquals("amd64", c.path("controlPlane").path("architecture").asText());
    assertEquals(2, c.path("compute").get(0).path("replicas").asInt());
    assertEquals("10.128.0.0/14", c.path("networking").path("clusterNetwork").get(0).path("cidr").asText());
    assertEquals(23, c.path("networking").path("clusterNetwork").get(0).path("hostPrefix").asInt());
    assertEquals("192.168.111.0/24", c.path("networking").path("machineNetwork").get(0).path("cidr").asText());
    assertEquals("172.30.0.0/16", c.path("networking").path("serviceNetwork").get(0).asText());
    assertEquals("192.168.111.5", c.path("platform").path("baremetal").path("apiVIPs").get(0).asText());
    assertEquals("192.168.111.4", c.path("platform").path("baremetal").path("ingressVIPs").get(0).asText());
    assertEquals(PULL_SECRET, c.path("pullSecret").asText(), "the pull secret survives YAML quoting");
    assertEquals("ssh-ed25519 AAAAC3 me@example", c.path("sshKey").asText());
    assertFalse(c.has("bootstrapInPlace"));
    assertFalse(c.has("proxy"));
  }

  @Test
  void aSingleNodeInstallsInPlaceOnItsDisk() throws Exception {
    JsonNode c = YAML.readTree(InstallConfigRenderer.render(sno()));
    assertEquals("/dev/disk/by-id/wwn-0x1", c.path("bootstrapInPlace").path("installationDisk").asText());
    assertTrue(c.path("platform").has("none"));
    assertEquals(0, c.path("compute").get(0).path("replicas").asInt());
    assertEquals("http://proxy:3128", c.path("proxy").path("httpProxy").asText());
    assertEquals("example.net", c.path("proxy").path("noProxy").asText());
  }

  @Test
  void overridesMergeOverTheRenderedConfig() throws Exception {
    JsonNode c = YAML.readTree(InstallConfigRenderer.render(ha(
        "{\"networking\":{\"networkType\":\"OpenShiftSDN\"},\"fips\":true,\"sshKey\":null}")));
    assertEquals("OpenShiftSDN", c.path("networking").path("networkType").asText());
    assertEquals("10.128.0.0/14", c.path("networking").path("clusterNetwork").get(0).path("cidr").asText(),
        "fields beside an override stay");
    assertTrue(c.path("fips").asBoolean());
    assertFalse(c.has("sshKey"), "null removes");
    assertThrows(IllegalArgumentException.class, () -> InstallConfigRenderer.parseOverrides("[1,2]"));
    assertThrows(IllegalArgumentException.class, () -> InstallConfigRenderer.parseOverrides("{nope"));
  }
}
