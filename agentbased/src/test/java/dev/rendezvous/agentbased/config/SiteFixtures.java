package dev.rendezvous.agentbased.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Sites as openshift-install users write them, and helpers to write them to a directory and read them back. */
final class SiteFixtures {
  static final String PULL_SECRET = "{\"auths\":{\"quay.io\":{\"auth\":\"dXNlcjpwYXNz\"}}}";
  /** A well-formed ed25519 public key (the blob names its type). */
  static final String SSH_KEY =
      "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAABAgMEBQYHCAkKCwwNDg8QERITFBUWFxgZGhscHR4f admin@example";

  private SiteFixtures() {}

  /** A compact cluster: three control-plane nodes, no workers, platform baremetal with its VIPs. */
  static String compactInstall() {
    return """
        apiVersion: v1
        baseDomain: example.com
        metadata:
          name: compact
        networking:
          networkType: OVNKubernetes
          machineNetwork:
          - cidr: 192.168.111.0/24
          clusterNetwork:
          - cidr: 10.128.0.0/14
            hostPrefix: 23
          serviceNetwork:
          - 172.30.0.0/16
        compute:
        - name: worker
          replicas: 0
        controlPlane:
          name: master
          replicas: 3
          architecture: amd64
          hyperthreading: Enabled
        platform:
          baremetal:
            apiVIPs:
            - 192.168.111.5
            ingressVIPs:
            - 192.168.111.4
        pullSecret: '%s'
        sshKey: '%s'
        publish: External
        capabilities:
          baselineCapabilitySet: vCurrent
        """.formatted(PULL_SECRET, SSH_KEY);
  }

  /** The compact cluster's three hosts, each with a static address (.80, .81, .82) in NMState. */
  static String compactAgent() {
    return """
        apiVersion: v1beta1
        kind: AgentConfig
        metadata:
          name: compact
        rendezvousIP: 192.168.111.80
        additionalNTPSources:
        - 0.rhel.pool.ntp.org
        - 192.168.111.1
        hosts:
        """ + staticHost(0, "master", 80) + staticHost(1, "master", 81) + staticHost(2, "master", 82);
  }

  /** One host entry, MAC 52:54:00:00:00:0<i>, NIC enp1s0 with 192.168.111.<ip>/24, DNS and a default route. */
  static String staticHost(int i, String role, int ip) {
    return """
        - hostname: master-%d
          role: %s
          rootDeviceHints:
            deviceName: /dev/sda
          interfaces:
          - name: enp1s0
            macAddress: 52:54:00:00:00:0%d
          networkConfig:
            interfaces:
            - name: enp1s0
              type: ethernet
              state: up
              mac-address: 52:54:00:00:00:0%d
              ipv4:
                enabled: true
                dhcp: false
                address:
                - ip: 192.168.111.%d
                  prefix-length: 24
            dns-resolver:
              config:
                server:
                - 192.168.111.1
            routes:
              config:
              - destination: 0.0.0.0/0
                next-hop-address: 192.168.111.1
                next-hop-interface: enp1s0
        """.formatted(i, role, i, i, ip);
  }

  /** A single-node cluster on platform none; its host takes its address by DHCP. */
  static String snoInstall() {
    return """
        apiVersion: v1
        baseDomain: example.org
        metadata:
          name: sno
        networking:
          machineNetwork:
          - cidr: 10.0.0.0/24
        compute:
        - name: worker
          replicas: 0
        controlPlane:
          name: master
          replicas: 1
          architecture: arm64
        platform:
          none: {}
        pullSecret: '%s'
        fips: true
        additionalTrustBundle: |
          -----BEGIN CERTIFICATE-----
          MIIBfake
          -----END CERTIFICATE-----
        imageContentSources:
        - source: quay.io/openshift-release-dev/ocp-release
          mirrors:
          - mirror.example.org:5000/ocp/release
        proxy:
          httpProxy: http://proxy.example.org:3128
          httpsProxy: http://proxy.example.org:3128
          noProxy: .example.org,10.0.0.0/24
        """.formatted(PULL_SECRET);
  }

  static String snoAgent() {
    return """
        apiVersion: v1beta1
        kind: AgentConfig
        metadata:
          name: sno
        rendezvousIP: 10.0.0.10
        bootArtifactsBaseURL: http://pxe.example.org/
        hosts:
        - hostname: sno-0
          interfaces:
          - name: eno1
            macAddress: AA:BB:CC:DD:EE:01
          rootDeviceHints:
            minSizeGigabytes: 100
            rotational: false
        """;
  }

  static Path write(Path dir, String install, String agent) {
    try {
      if (install != null) {
        Files.writeString(dir.resolve("install-config.yaml"), install);
      }
      if (agent != null) {
        Files.writeString(dir.resolve("agent-config.yaml"), agent);
      }
      return dir;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Reads the site and expects it refused for {@code field} of {@code file}, the problem containing {@code words}. */
  static SiteConfigException refused(Path dir, String install, String agent, String file, String field, String words) {
    write(dir, install, agent);
    SiteConfigException e = assertThrows(SiteConfigException.class, () -> SiteConfig.read(dir));
    assertEquals(file, e.file(), e.getMessage());
    assertEquals(field, e.field(), e.getMessage());
    assertTrue(e.problem().contains(words), () -> "'" + e.problem() + "' lacks '" + words + "'");
    String expected = field.isEmpty() ? file + ": " + e.problem() : file + ": " + field + ": " + e.problem();
    assertEquals(expected, e.getMessage());
    return e;
  }

  static SiteConfig read(Path dir, String install, String agent) throws SiteConfigException {
    return SiteConfig.read(write(dir, install, agent));
  }
}
