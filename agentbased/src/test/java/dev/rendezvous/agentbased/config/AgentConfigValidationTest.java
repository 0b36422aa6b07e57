package dev.rendezvous.agentbased.config;

import static dev.rendezvous.agentbased.config.SiteFixtures.compactAgent;
import static dev.rendezvous.agentbased.config.SiteFixtures.compactInstall;
import static dev.rendezvous.agentbased.config.SiteFixtures.refused;
import static dev.rendezvous.agentbased.config.SiteFixtures.snoAgent;
import static dev.rendezvous.agentbased.config.SiteFixtures.snoInstall;
import static dev.rendezvous.agentbased.config.SiteFixtures.staticHost;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each bad agent-config.yaml (alone or against install-config.yaml) is refused naming the file, field and problem. */
class AgentConfigValidationTest {
  private static final String AC = "agent-config.yaml";

  @TempDir Path dir;

  private void refusedCompact(String from, String to, String field, String words) {
    String agent = compactAgent();
    if (!agent.contains(from)) {
      throw new AssertionError("fixture lacks: " + from);
    }
    refused(dir, compactInstall(), agent.replace(from, to), AC, field, words);
  }

  private SiteConfigException refusedSno(String from, String to, String field, String words) {
    String agent = snoAgent();
    if (!agent.contains(from)) {
      throw new AssertionError("fixture lacks: " + from);
    }
    return refused(dir, snoInstall(), agent.replace(from, to), AC, field, words);
  }

  @Test
  void aMissingFileIsNamed() {
    refused(dir, compactInstall(), null, AC, "", "not found in");
  }

  @Test
  void aYamlSyntaxErrorNamesTheLine() {
    refused(dir, compactInstall(), "apiVersion: v1beta1\nhosts:\n- hostname: a\n  role: [master\n", AC, "",
        "is not valid YAML (line");
  }

  @Test
  void rendezvousIpIsRequiredWhenNoHostHasAStaticAddress() {
    SiteConfigException e = refusedSno("rendezvousIP: 10.0.0.10\n", "", "rendezvousIP", "is required");
    assertEquals("agent-config.yaml: rendezvousIP: is required: the address of the host that runs the installation"
        + " (or give a master host a networkConfig with a static address to take it from)", e.getMessage());
  }

  @Test
  void rendezvousIpMustBeAnAddress() {
    refusedSno("rendezvousIP: 10.0.0.10", "rendezvousIP: node0.example.org", "rendezvousIP",
        "'node0.example.org' is not an IP address");
  }

  @Test
  void rendezvousIpMustBeInAMachineNetwork() {
    refusedSno("rendezvousIP: 10.0.0.10", "rendezvousIP: 10.0.1.10", "rendezvousIP",
        "10.0.1.10 is not in any machine network of install-config.yaml (networking.machineNetwork [10.0.0.0/24])");
  }

  @Test
  void rendezvousIpMustBeAStaticAddressWhenEveryHostIsStatic() {
    refusedCompact("rendezvousIP: 192.168.111.80", "rendezvousIP: 192.168.111.99", "rendezvousIP",
        "192.168.111.99 is not a static address of any host's networkConfig");
  }

  @Test
  void rendezvousIpMustNotBeAWorkersAddress() {
    String install = compactInstall().replace("  replicas: 0", "  replicas: 1");
    String agent = compactAgent() + staticHost(3, "worker", 83).replace("master-3", "worker-0");
    refused(dir, install, agent.replace("rendezvousIP: 192.168.111.80", "rendezvousIP: 192.168.111.83"), AC,
        "hosts[3].role", "the rendezvous host must be a control-plane host");
  }

  @Test
  void aMacAddressMustBeAMac() {
    refusedCompact("macAddress: 52:54:00:00:00:01", "macAddress: 52:54:00:00:01", "hosts[1].interfaces[0].macAddress",
        "'52:54:00:00:01' is not a MAC address");
  }

  @Test
  void aMacAddressInTwoHostsNamesBoth() {
    refusedCompact("macAddress: 52:54:00:00:00:02", "macAddress: 52:54:00:00:00:00",
        "hosts[2].interfaces[0].macAddress",
        "52:54:00:00:00:00 is also hosts[0].interfaces[0].macAddress");
  }

  @Test
  void aMacAddressIsComparedWithoutCase() {
    refusedSno("""
          - name: eno1
            macAddress: AA:BB:CC:DD:EE:01
        """, """
          - name: eno1
            macAddress: AA:BB:CC:DD:EE:01
          - name: eno2
            macAddress: aa:bb:cc:dd:ee:01
        """, "hosts[0].interfaces[1].macAddress", "is also hosts[0].interfaces[0].macAddress");
  }

  @Test
  void aHostNeedsInterfaces() {
    refusedSno("""
          interfaces:
          - name: eno1
            macAddress: AA:BB:CC:DD:EE:01
        """, "", "hosts[0].interfaces", "at least one interface");
  }

  @Test
  void aHostWithNetworkConfigNeedsInterfaces() {
    refusedCompact("""
          interfaces:
          - name: enp1s0
            macAddress: 52:54:00:00:00:01
        """, "", "hosts[1].interfaces", "at least one interface");
  }

  @Test
  void anInterfaceOfAStaticHostNeedsItsName() {
    refusedCompact("  - name: enp1s0\n    macAddress: 52:54:00:00:00:01", "  - macAddress: 52:54:00:00:00:01",
        "hosts[1].interfaces[0].name", "is required when the host has a networkConfig");
  }

  @Test
  void moreHostsThanReplicasAreRefused() {
    refused(dir, compactInstall(), compactAgent() + staticHost(3, "master", 83), AC, "hosts",
        "4 hosts are listed, more than the 3 of install-config.yaml (controlPlane.replicas 3 + compute replicas 0)");
  }

  @Test
  void moreMastersThanControlPlaneReplicasAreRefused() {
    String install = compactInstall().replace("  replicas: 0", "  replicas: 1");
    refused(dir, install, compactAgent() + staticHost(3, "master", 83), AC, "hosts",
        "4 hosts have role master [hosts[0], hosts[1], hosts[2], hosts[3]], more than controlPlane.replicas (3)");
  }

  @Test
  void moreWorkersThanComputeReplicasAreRefused() {
    String install = compactInstall().replace("  replicas: 0", "  replicas: 1");
    String agent = compactAgent().substring(0, compactAgent().indexOf("hosts:\n") + 7) + staticHost(0, "master", 80)
        + staticHost(3, "worker", 83) + staticHost(4, "worker", 84);
    refused(dir, install, agent, AC, "hosts", "2 hosts would be workers (role worker, or no role once the control-plane"
        + " places are taken), more than the compute replicas (1) of install-config.yaml");
  }

  @Test
  void hostsWithoutRoleCountTowardsTheTotal() {
    String install = compactInstall().replace("  replicas: 0", "  replicas: 1");
    String agent = compactAgent() + staticHost(3, "worker", 83).replace("  role: worker\n", "")
        + staticHost(4, "worker", 84).replace("  role: worker\n", "");
    refused(dir, install, agent, AC, "hosts", "5 hosts are listed, more than the 4");
  }

  @Test
  void aNetworkConfigThatIsNotYamlIsRefused() {
    refusedSno("  rootDeviceHints:\n", "  networkConfig: \"interfaces: [eno1\"\n  rootDeviceHints:\n",
        "hosts[0].networkConfig", "is not valid YAML");
  }

  @Test
  void aNetworkConfigTheConverterRefusesIsNamed() {
    refusedCompact("      type: ethernet\n      state: up\n      mac-address: 52:54:00:00:00:01",
        "      type: bond\n      state: up\n      mac-address: 52:54:00:00:00:01", "hosts[1].networkConfig",
        "bond mode is mandatory for new bond interface enp1s0 (link-aggregation.mode)");
  }

  @Test
  void aNetworkConfigThatIsNotAMappingIsRefused() {
    refusedSno("  rootDeviceHints:\n", "  networkConfig: [eno1]\n  rootDeviceHints:\n", "hosts[0].networkConfig",
        "must be an NMState document");
  }

  @Test
  void hostnamesMustBeUnique() {
    refusedCompact("hostname: master-2", "hostname: master-0", "hosts[2].hostname",
        "'master-0' is also the hostname of hosts[0]");
  }

  @Test
  void aRoleMustBeMasterOrWorker() {
    refused(dir, compactInstall(), compactAgent().replaceFirst("role: master", "role: arbiter"), AC, "hosts[0].role",
        "must be master or worker, not 'arbiter'");
  }

  @Test
  void aDeviceNameHintMustBeADevPath() {
    refusedSno("    minSizeGigabytes: 100", "    deviceName: /dev/disk/by-id/wwn-0x5000\n    minSizeGigabytes: 100",
        "hosts[0].rootDeviceHints.deviceName", "must be a path in /dev/ or /dev/disk/by-path/");
  }

  @Test
  void wwnExtensionHintsAreRefusedAsByOpenshiftInstall() {
    refusedSno("    minSizeGigabytes: 100", "    wwnWithExtension: 0x5000c500aabbccdd\n    minSizeGigabytes: 100",
        "hosts[0].rootDeviceHints.wwnWithExtension", "WWN extensions are not supported");
  }

  @Test
  void anNtpSourceMustBeAHostOrAddress() {
    refusedCompact("- 0.rhel.pool.ntp.org", "- ntp_server!", "additionalNTPSources[0]",
        "is not a host name or IP address");
  }

  @Test
  void theApiVersionMustBeV1beta1() {
    refusedCompact("apiVersion: v1beta1", "apiVersion: v1", "apiVersion", "must be v1beta1");
  }
}
