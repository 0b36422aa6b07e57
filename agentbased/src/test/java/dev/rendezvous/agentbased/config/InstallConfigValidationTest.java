package dev.rendezvous.agentbased.config;

import static dev.rendezvous.agentbased.config.SiteFixtures.PULL_SECRET;
import static dev.rendezvous.agentbased.config.SiteFixtures.SSH_KEY;
import static dev.rendezvous.agentbased.config.SiteFixtures.compactAgent;
import static dev.rendezvous.agentbased.config.SiteFixtures.compactInstall;
import static dev.rendezvous.agentbased.config.SiteFixtures.refused;
import static dev.rendezvous.agentbased.config.SiteFixtures.snoAgent;
import static dev.rendezvous.agentbased.config.SiteFixtures.snoInstall;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each bad install-config.yaml is refused naming the file, the field and the problem. */
class InstallConfigValidationTest {
  private static final String IC = "install-config.yaml";

  @TempDir Path dir;

  private void refusedCompact(String from, String to, String field, String words) {
    String install = compactInstall();
    if (!install.contains(from)) {
      throw new AssertionError("fixture lacks: " + from);
    }
    refused(dir, install.replace(from, to), compactAgent(), IC, field, words);
  }

  @Test
  void aMissingFileIsNamed() {
    SiteConfigException e = refused(dir, null, compactAgent(), IC, "", "not found in " + dir);
    assertEquals("install-config.yaml: not found in " + dir, e.getMessage());
  }

  @Test
  void aYamlSyntaxErrorNamesTheLine() {
    SiteConfigException e = refused(dir, "apiVersion: v1\nbaseDomain: [example.com\nmetadata: x\n", compactAgent(), IC,
        "", "is not valid YAML (line ");
    assertEquals(true, e.problem().matches("is not valid YAML \\(line [23], column \\d+\\): .+"), e.problem());
  }

  @Test
  void aKeyGivenTwiceIsRefused() {
    refusedCompact("baseDomain: example.com\n", "baseDomain: example.com\nbaseDomain: example.net\n", "",
        "Duplicate field 'baseDomain'");
  }

  @Test
  void theApiVersionMustBeV1() {
    refusedCompact("apiVersion: v1\n", "apiVersion: v2\n", "apiVersion", "must be v1, not 'v2'");
  }

  @Test
  void baseDomainIsRequired() {
    refusedCompact("baseDomain: example.com\n", "", "baseDomain", "is required");
  }

  @Test
  void aBlankClusterNameIsRefused() {
    refusedCompact("  name: compact\n", "  name: '  '\n", "metadata.name", "is required");
  }

  @Test
  void aClusterNameMustBeDnsShaped() {
    refusedCompact("  name: compact\n", "  name: Compact_1\n", "metadata.name", "lower-case letters");
  }

  @Test
  void thePullSecretMustBeJson() {
    refusedCompact("pullSecret: '" + PULL_SECRET + "'", "pullSecret: not-json", "pullSecret", "must be valid JSON");
  }

  @Test
  void thePullSecretMustHaveAuths() {
    refusedCompact("pullSecret: '" + PULL_SECRET + "'", "pullSecret: '{\"registries\":{}}'", "pullSecret",
        "\"auths\"");
  }

  @Test
  void anUnquotedPullSecretIsExplained() {
    refusedCompact("pullSecret: '" + PULL_SECRET + "'", "pullSecret: " + PULL_SECRET, "pullSecret",
        "as a quoted string");
  }

  @Test
  void theSshKeyMustBeAnOpensshPublicKey() {
    refusedCompact("sshKey: '" + SSH_KEY + "'", "sshKey: 'ssh-rsa not-base64!'", "sshKey",
        "is not an OpenSSH public key");
  }

  @Test
  void aMachineNetworkMustBeACidr() {
    refusedCompact("- cidr: 192.168.111.0/24", "- cidr: 192.168.111.0/33", "networking.machineNetwork[0].cidr",
        "'192.168.111.0/33' is not a CIDR");
  }

  @Test
  void aClusterNetworkMustBeACidr() {
    refusedCompact("- cidr: 10.128.0.0/14", "- cidr: 10.128.0/14", "networking.clusterNetwork[0].cidr",
        "is not a CIDR");
  }

  @Test
  void aServiceNetworkMustBeACidr() {
    refusedCompact("- 172.30.0.0/16", "- 172.30.0.0", "networking.serviceNetwork[0]", "is not a CIDR");
  }

  @Test
  void theHostPrefixMustFitTheClusterNetwork() {
    refusedCompact("hostPrefix: 23", "hostPrefix: 12", "networking.clusterNetwork[0].hostPrefix",
        "must be between the network's prefix /14 and 32");
  }

  @Test
  void networksMustNotOverlap() {
    refusedCompact("- 172.30.0.0/16", "- 10.130.0.0/16", "networking.serviceNetwork[0]",
        "overlaps networking.clusterNetwork[0].cidr 10.128.0.0/14");
  }

  @Test
  void aVipOutsideTheMachineNetworkIsRefused() {
    refusedCompact("- 192.168.111.4", "- 192.168.112.4", "platform.baremetal.ingressVIPs[0]",
        "192.168.112.4 is not in any networking.machineNetwork [192.168.111.0/24]");
  }

  @Test
  void aVipMustBeAnAddress() {
    refusedCompact("- 192.168.111.5", "- api.example.com", "platform.baremetal.apiVIPs[0]", "is not an IP address");
  }

  @Test
  void baremetalNeedsVips() {
    refusedCompact("""
            apiVIPs:
            - 192.168.111.5
        """, "", "platform.baremetal.apiVIPs", "is required for platform baremetal");
  }

  @Test
  void apiAndIngressVipsMustDiffer() {
    refusedCompact("- 192.168.111.4", "- 192.168.111.5", "platform.baremetal.ingressVIPs[0]", "is also an apiVIP");
  }

  @Test
  void anUnsupportedPlatformIsRefused() {
    refusedCompact("  baremetal:\n", "  vsphere:\n", "platform", "'vsphere' is not supported here");
  }

  @Test
  void replicasMustBeNumbers() {
    refusedCompact("  replicas: 3", "  replicas: three", "controlPlane.replicas",
        "must be a whole number, not 'three'");
  }

  @Test
  void quotedReplicasAreRefusedAsByOpenshiftInstall() {
    refusedCompact("  replicas: 3", "  replicas: '3'", "controlPlane.replicas",
        "must be a whole number without quotes, not the text '3'");
  }

  @Test
  void computeReplicasMustBeNumbers() {
    refusedCompact("  replicas: 0", "  replicas: 1.5", "compute[0].replicas", "must be a whole number");
  }

  @Test
  void twoControlPlaneReplicasAreRefused() {
    refusedCompact("  replicas: 3", "  replicas: 2", "controlPlane.replicas",
        "must be 1 (single node), 3, 4 or 5, not 2");
  }

  @Test
  void sixControlPlaneReplicasAreRefused() {
    refusedCompact("  replicas: 3", "  replicas: 6", "controlPlane.replicas", "not 6");
  }

  @Test
  void aSingleNodeNeedsPlatformNoneOrExternal() {
    refusedCompact("  replicas: 3", "  replicas: 1", "platform", "needs platform none or external, not baremetal");
  }

  @Test
  void aSingleNodeHasNoWorkers() {
    refused(dir, snoInstall().replace("  replicas: 0", "  replicas: 2"), snoAgent(), IC, "compute[0].replicas",
        "must be 0 for a single-node cluster");
  }

  @Test
  void aSingleNodeNeedsOvnKubernetes() {
    refused(dir, snoInstall().replace("networking:\n", "networking:\n  networkType: OpenShiftSDN\n"), snoAgent(), IC,
        "networking.networkType", "needs OVNKubernetes");
  }

  @Test
  void computePoolsOtherThanWorkerAreRefused() {
    refusedCompact("- name: worker", "- name: infra", "compute[0].name", "must be worker, not 'infra'");
  }

  @Test
  void anUnknownArchitectureIsRefused() {
    refusedCompact("architecture: amd64", "architecture: x86_64", "controlPlane.architecture",
        "'x86_64' is not one of");
  }

  @Test
  void httpsProxiesAreRefusedAsByTheService() {
    refused(dir, snoInstall().replace("httpsProxy: http://", "httpsProxy: https://"), snoAgent(), IC,
        "proxy.httpsProxy", "must be an http:// URL");
  }

  @Test
  void imageDigestSourcesAndImageContentSourcesExcludeEachOther() {
    String install = snoInstall() + "imageDigestSources:\n- source: quay.io/x\n  mirrors:\n  - m.example.org/x\n";
    refused(dir, install, snoAgent(), IC, "imageContentSources", "cannot be used together with imageDigestSources");
  }

  @Test
  void theTrustBundleMustBePem() {
    refused(dir, snoInstall().replace("-----BEGIN CERTIFICATE-----", "BEGIN"), snoAgent(), IC, "additionalTrustBundle",
        "must be PEM-encoded certificates");
  }
}
