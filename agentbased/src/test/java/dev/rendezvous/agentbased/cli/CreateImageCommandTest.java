package dev.rendezvous.agentbased.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code agent create image} on a bad site: it exits non-zero, names the file and the field, and writes nothing (no
 * ISO, no auth directory). Each case is one edit of a valid compact site.
 */
class CreateImageCommandTest {
  static final String PULL_SECRET = "{\"auths\":{\"quay.io\":{\"auth\":\"dXNlcjpwYXNz\"}}}";
  static final String SSH_KEY =
      "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIAABAgMEBQYHCAkKCwwNDg8QERITFBUWFxgZGhscHR4f admin@example";

  static String install(int masters) {
    return """
        apiVersion: v1
        baseDomain: example.com
        metadata:
          name: site
        networking:
          machineNetwork:
          - cidr: 192.168.111.0/24
        compute:
        - name: worker
          replicas: 0
        controlPlane:
          name: master
          replicas: %d
        platform:
          baremetal:
            apiVIPs: [192.168.111.5]
            ingressVIPs: [192.168.111.4]
        pullSecret: '%s'
        sshKey: '%s'
        """.formatted(masters, PULL_SECRET, SSH_KEY);
  }

  static String host(int i, String mac, String networkConfig) {
    return """
        - hostname: master-%d
          role: master
          interfaces:
          - name: enp1s0
            macAddress: %s
          networkConfig:
        %s""".formatted(i, mac, networkConfig.indent(4));
  }

  static String nmstate(int ip) {
    return """
        interfaces:
        - name: enp1s0
          type: ethernet
          state: up
          ipv4:
            enabled: true
            dhcp: false
            address:
            - ip: 192.168.111.%d
              prefix-length: 24
        """.formatted(ip);
  }

  static String agent(String rendezvous, String hosts) {
    return "apiVersion: v1beta1\nkind: AgentConfig\nmetadata:\n  name: site\n" + rendezvous + "hosts:\n" + hosts;
  }

  static final String THREE_HOSTS = host(0, "52:54:00:00:00:01", nmstate(80)) + host(1, "52:54:00:00:00:02", nmstate(81))
      + host(2, "52:54:00:00:00:03", nmstate(82));

  static Stream<Arguments> badSites() {
    return Stream.of(
        Arguments.of("no rendezvousIP and no static address to take it from", install(3),
            agent("", host(0, "52:54:00:00:00:01", "interfaces:\n- name: enp1s0\n  type: ethernet\n  state: up\n  ipv4:\n    enabled: true\n    dhcp: true\n")
                + host(1, "52:54:00:00:00:02", "interfaces:\n- name: enp1s0\n  type: ethernet\n  state: up\n  ipv4:\n    enabled: true\n    dhcp: true\n")),
            "agent-config.yaml", "rendezvousIP"),
        Arguments.of("a MAC in two hosts", install(3),
            agent("rendezvousIP: 192.168.111.80\n", host(0, "52:54:00:00:00:01", nmstate(80))
                + host(1, "52:54:00:00:00:01", nmstate(81)) + host(2, "52:54:00:00:00:03", nmstate(82))),
            "agent-config.yaml", "hosts[1].interfaces[0].macAddress"),
        Arguments.of("rendezvousIP outside the machine network", install(3),
            agent("rendezvousIP: 10.0.0.80\n", THREE_HOSTS), "agent-config.yaml", "rendezvousIP"),
        Arguments.of("more hosts than replicas", install(1).replace("baremetal:\n    apiVIPs: [192.168.111.5]\n"
            + "    ingressVIPs: [192.168.111.4]", "none: {}"),
            agent("rendezvousIP: 192.168.111.80\n", THREE_HOSTS), "agent-config.yaml", "hosts"),
        Arguments.of("an NMState document that does not parse", install(3),
            // the NMState given as a block of text, as some users paste it: the block's own YAML is broken
            agent("rendezvousIP: 192.168.111.80\n", host(0, "52:54:00:00:00:01", nmstate(80))
                .replace("  networkConfig:\n", "  networkConfig: |\n    interfaces: [ {name: enp1s0\n")
                .replaceAll("(?s)\\n    interfaces:\\n    - name: enp1s0.*", "\n")
                + host(1, "52:54:00:00:00:02", nmstate(81)) + host(2, "52:54:00:00:00:03", nmstate(82))),
            "agent-config.yaml", "hosts[0].networkConfig"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badSites")
  void aBadSiteIsRefusedNamingTheFileAndFieldAndNothingIsWritten(String what, String installConfig, String agentConfig,
      String file, String field, @TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("install-config.yaml"), installConfig);
    Files.writeString(dir.resolve("agent-config.yaml"), agentConfig);
    Path base = Files.writeString(dir.resolve("base.iso"), "not read: the site is refused first");
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status = AgentCli.run(List.of("create", "image", "--dir", dir.toString(), "--base-iso=" + base),
        new PrintStream(new ByteArrayOutputStream(), true), new PrintStream(err, true));
    String message = err.toString(StandardCharsets.UTF_8);
    assertEquals(1, status, what + ": " + message);
    assertTrue(message.contains("error: " + file + ": " + field), what + ": the error names " + file + " and " + field
        + ": " + message);
    assertFalse(Files.exists(dir.resolve("agent.x86_64.iso")), what + ": no ISO written");
    assertFalse(Files.exists(dir.resolve("auth")), what + ": no auth files written");
    try (var left = Files.list(dir)) {
      assertEquals(3, left.count(), what + ": nothing else written");
    }
  }
}
