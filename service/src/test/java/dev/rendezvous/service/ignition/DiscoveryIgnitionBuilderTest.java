package dev.rendezvous.service.ignition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rendezvous.service.ignition.DiscoveryIgnitionInput.AgentLaunch;
import dev.rendezvous.service.ignition.DiscoveryIgnitionInput.MacInterface;
import dev.rendezvous.service.ignition.DiscoveryIgnitionInput.Mirror;
import dev.rendezvous.service.ignition.DiscoveryIgnitionInput.Proxy;
import dev.rendezvous.service.ignition.DiscoveryIgnitionInput.RegistryMirrors;
import dev.rendezvous.service.ignition.DiscoveryIgnitionInput.StaticNetworkConfig;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Generated configs checked by ignition-validate (Debian package "ignition") and by content. */
class DiscoveryIgnitionBuilderTest {

  static final ObjectMapper JSON = new ObjectMapper();
  static final String ID = "3f4a1c2e-8b9d-4e5f-a6b7-c8d9e0f1a2b3";
  static final String CERT = "-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n";
  static final String YAML = """
      interfaces:
        - name: eth0
          type: ethernet
          state: up
          mtu: 9000
          ipv4:
            enabled: true
            dhcp: false
            address:
              - ip: 192.168.111.30
                prefix-length: 24
          ipv6:
            enabled: true
            autoconf: false
            dhcp: false
            address:
              - ip: "fd00:1::30"
                prefix-length: 64
        - name: eth1
          type: ethernet
          state: up
          ipv4:
            enabled: true
            dhcp: true
      dns-resolver:
        config:
          server:
            - 192.168.111.1
            - "fd00:1::1"
          search:
            - example.com
      routes:
        config:
          - destination: 0.0.0.0/0
            next-hop-address: 192.168.111.1
            next-hop-interface: eth0
            metric: 100
          - destination: 10.20.0.0/16
            next-hop-address: 192.168.111.254
            next-hop-interface: eth0
            table-id: 254
          - destination: ::/0
            next-hop-address: "fd00:1::1"
            next-hop-interface: eth0
      """;

  @TempDir
  Path dir;

  final DiscoveryIgnitionBuilder builder = new DiscoveryIgnitionBuilder();

  static DiscoveryIgnitionInput full(String override) {
    return new DiscoveryIgnitionInput("https://rdv.example:8090/", ID, "tok.en-123",
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFake user@a\n\n  ssh-rsa AAAAB3NzaC1yc2EAAAADAQABfake user@b  \n",
        "{\"auths\":{\"quay.io\":{\"auth\":\"Zm9vOmJhcg==\"}}}",
        new Proxy("http://proxy.example:3128", "http://user:p%40ss@proxy.example:3128", ".example.com, 10.0.0.0/8"),
        CERT,
        new RegistryMirrors(List.of(new Mirror("quay.io/openshift-release-dev/ocp-release",
            List.of("mirror.example:5000/ocp/release"), true)), CERT),
        List.of("ntp1.example.com", "192.168.111.1"),
        List.of(new StaticNetworkConfig(YAML, List.of(new MacInterface("52:54:00:aa:bb:01", "eth0"),
            new MacInterface("52:54:00:aa:bb:02", "eth1"))),
            new StaticNetworkConfig(YAML.replace("192.168.111.30", "192.168.111.31").replace("fd00:1::30", "fd00:1::31"),
                List.of(new MacInterface("52:54:00:aa:cc:01", "eth0"), new MacInterface("52:54:00:aa:cc:02", "eth1")))),
        override,
        new AgentLaunch(null, null, CERT, false, Duration.ofMinutes(5), true));
  }

  static DiscoveryIgnitionInput bare() {
    return new DiscoveryIgnitionInput("http://10.0.0.5:8090", ID, "t", null, null, null, null, null, null, null,
        null, null);
  }

  /** Runs ignition-validate on the config; any output (errors or warnings) fails. */
  static void validate(String config) throws IOException, InterruptedException {
    Process p;
    try {
      p = new ProcessBuilder("ignition-validate", "-").redirectErrorStream(true).start();
    } catch (IOException e) {
      fail("ignition-validate not found: install the Debian package 'ignition' (apt-get install -y ignition)");
      return;
    }
    try (OutputStream o = p.getOutputStream()) {
      o.write(config.getBytes(StandardCharsets.UTF_8));
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    p.getInputStream().transferTo(out);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS));
    String text = out.toString(StandardCharsets.UTF_8);
    assertEquals(0, p.exitValue(), "ignition-validate: " + text);
    assertEquals("", text.strip(), "ignition-validate reported: " + text);
  }

  static JsonNode file(JsonNode config, String path) {
    for (JsonNode f : config.path("storage").path("files")) {
      if (f.path("path").asText().equals(path)) {
        return f;
      }
    }
    return null;
  }

  static String contents(JsonNode config, String path) {
    JsonNode f = file(config, path);
    assertNotNull(f, path);
    String src = f.path("contents").path("source").asText();
    String prefix = "data:text/plain;charset=utf-8;base64,";
    if (src.startsWith(prefix)) {
      return new String(Base64.getDecoder().decode(src.substring(prefix.length())), StandardCharsets.UTF_8);
    }
    assertTrue(src.startsWith("data:,"), src);
    return java.net.URLDecoder.decode(src.substring(6), StandardCharsets.UTF_8);
  }

  static JsonNode unit(JsonNode config, String name) {
    for (JsonNode u : config.path("systemd").path("units")) {
      if (u.path("name").asText().equals(name)) {
        return u;
      }
    }
    return null;
  }

  @Test
  void fullConfigValidatesAndCarriesEverything() throws Exception {
    String text = builder.build(full(null));
    validate(text);
    JsonNode c = JSON.readTree(text);
    assertEquals("3.1.0", c.path("ignition").path("version").asText());
    JsonNode proxy = c.path("ignition").path("proxy");
    assertEquals("http://proxy.example:3128", proxy.path("httpProxy").asText());
    assertEquals(List.of(".example.com", "10.0.0.0/8"),
        JSON.convertValue(proxy.path("noProxy"), List.class));
    JsonNode core = c.path("passwd").path("users").get(0);
    assertEquals("core", core.path("name").asText());
    assertEquals(2, core.path("sshAuthorizedKeys").size());
    assertEquals("ssh-rsa AAAAB3NzaC1yc2EAAAADAQABfake user@b", core.path("sshAuthorizedKeys").get(1).asText());

    JsonNode env = file(c, "/etc/rendezvous/agent.env");
    assertEquals(0600, env.path("mode").asInt());
    assertEquals("PULL_SECRET_TOKEN=tok.en-123\nRDV_AGENT_TOKEN=tok.en-123\n", contents(c, "/etc/rendezvous/agent.env"));
    JsonNode agent = unit(c, "agent.service");
    assertTrue(agent.path("enabled").asBoolean());
    String unit = agent.path("contents").asText();
    assertTrue(unit.contains("\nExecStart=/usr/local/bin/rendezvous-agent --url https://rdv.example:8090 --infra-env-id "
        + ID + " --cacert /etc/assisted-service/service-ca-cert.crt\n"), unit);
    assertTrue(unit.contains("EnvironmentFile=/etc/rendezvous/agent.env\n"), unit);
    assertTrue(unit.contains("Environment=\"RDV_AGENT_JAR_URL=https://rdv.example:8090/api/rendezvous/v1/agent/rendezvous-agent.jar\"\n"), unit);
    assertTrue(unit.contains("Environment=\"https_proxy=http://user:p%%40ss@proxy.example:3128\"\n"), unit);
    assertTrue(unit.contains("Environment=\"NO_PROXY=.example.com,10.0.0.0/8\"\n"), unit);
    assertTrue(unit.contains("TimeoutStartSec=300\n"), unit);
    assertEquals(0755, file(c, "/usr/local/bin/rendezvous-agent").path("mode").asInt());
    assertEquals(CERT, contents(c, "/etc/assisted-service/service-ca-cert.crt"));
    assertEquals("{\"auths\":{\"quay.io\":{\"auth\":\"Zm9vOmJhcg==\"}}}", contents(c, "/root/.docker/config.json"));
    assertEquals(CERT, contents(c, DiscoveryIgnitionBuilder.TRUST_BUNDLE_PATH));
    assertEquals(CERT, contents(c, "/etc/pki/ca-trust/source/anchors/domain.crt"));
    String registries = contents(c, "/etc/containers/registries.conf");
    assertTrue(registries.contains("location = \"quay.io/openshift-release-dev/ocp-release\"\n  mirror-by-digest-only = true\n\n"
        + "  [[registry.mirror]]\n    location = \"mirror.example:5000/ocp/release\"\n"), registries);
    assertEquals("ntp1.example.com\n192.168.111.1\n", contents(c, "/etc/rendezvous/ntp-sources"));
    assertNotNull(unit(c, "add-ntp-sources.service"));
    assertTrue(contents(c, "/etc/profile.d/proxy.sh").contains("export https_proxy=\"http://user:p%40ss@proxy.example:3128\"\n"));
    assertEquals(0644, file(c, "/etc/profile.d/proxy.sh").path("mode").asInt());
    // both hosts' keyfiles (bound by MAC) in upstream's layout, with the MAC maps, the script and its unit
    JsonNode kf = file(c, "/etc/assisted/network/host0/eth0.nmconnection");
    assertEquals(0600, kf.path("mode").asInt());
    assertTrue(contents(c, "/etc/assisted/network/host0/eth0.nmconnection").contains("mac-address=52:54:00:AA:BB:01\n"));
    assertTrue(contents(c, "/etc/assisted/network/host1/eth0.nmconnection")
        .contains("address1=192.168.111.31/24,192.168.111.1\n"));
    assertNotNull(file(c, "/etc/assisted/network/host1/eth1.nmconnection"));
    assertEquals("52:54:00:aa:cc:01=eth0\n52:54:00:aa:cc:02=eth1", contents(c, "/etc/assisted/network/host1/mac_interface.ini"));
    assertEquals(0755, file(c, PreNetworkManagerConfig.SCRIPT_PATH).path("mode").asInt());
    assertTrue(unit(c, PreNetworkManagerConfig.UNIT_NAME).path("enabled").asBoolean());
    assertTrue(unit(c, PreNetworkManagerConfig.UNIT_NAME).path("contents").asText().contains("ExecStart=" + PreNetworkManagerConfig.SCRIPT_PATH));
  }

  @Test
  void scriptsAreValidBash() throws Exception {
    JsonNode c = JSON.readTree(builder.build(full(null)));
    for (String script : List.of("/usr/local/bin/rendezvous-agent", "/usr/local/bin/add-ntp-sources.sh",
        "/etc/profile.d/proxy.sh", PreNetworkManagerConfig.SCRIPT_PATH)) {
      Path p = dir.resolve("s.sh");
      Files.writeString(p, contents(c, script));
      Process proc = new ProcessBuilder("bash", "-n", p.toString()).redirectErrorStream(true).start();
      String out = new String(proc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertTrue(proc.waitFor(30, TimeUnit.SECONDS));
      assertEquals(0, proc.exitValue(), script + ": " + out);
    }
  }

  @Test
  void launcherFetchesTheJarOnceAndRunsIt() throws Exception {
    // run the real launcher with a fake curl and java on PATH: it must fetch from the unit's URL with the token
    JsonNode c = JSON.readTree(builder.build(full(null)));
    Path bin = Files.createDirectories(dir.resolve("bin"));
    Path launcher = dir.resolve("rendezvous-agent");
    Files.writeString(launcher, contents(c, "/usr/local/bin/rendezvous-agent").replace("dir=/var/lib/rendezvous",
        "dir=" + dir.resolve("lib")));
    Files.writeString(bin.resolve("curl"), "#!/bin/bash\necho \"curl $*\" >> " + dir.resolve("log")
        + "\nwhile [ $# -gt 0 ]; do if [ \"$1\" = -o ]; then echo jar > \"$2\"; fi; shift; done\n");
    Files.writeString(bin.resolve("java"), "#!/bin/bash\necho \"java $*\" >> " + dir.resolve("log") + "\n");
    for (Path p : List.of(launcher, bin.resolve("curl"), bin.resolve("java"))) {
      p.toFile().setExecutable(true);
    }
    for (int run = 0; run < 2; run++) {
      ProcessBuilder pb = new ProcessBuilder(launcher.toString(), "--url", "https://rdv.example:8090", "--infra-env-id", ID);
      pb.environment().put("PATH", bin + ":/usr/bin:/bin");
      pb.environment().put("RDV_AGENT_TOKEN", "tok.en-123");
      pb.environment().put("RDV_AGENT_JAR_URL", "https://rdv.example:8090/api/rendezvous/v1/agent/rendezvous-agent.jar");
      pb.environment().put("RDV_AGENT_CACERT", "/etc/assisted-service/service-ca-cert.crt");
      Process p = pb.redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertTrue(p.waitFor(30, TimeUnit.SECONDS));
      assertEquals(0, p.exitValue(), out);
    }
    List<String> log = Files.readAllLines(dir.resolve("log"));
    assertEquals(3, log.size(), log.toString()); // one download, two starts
    assertTrue(log.get(0).contains("--cacert /etc/assisted-service/service-ca-cert.crt -H X-Secret-Key: tok.en-123 -o "), log.get(0));
    assertTrue(log.get(0).endsWith("rendezvous-agent.jar.part https://rdv.example:8090/api/rendezvous/v1/agent/rendezvous-agent.jar"));
    assertEquals("java -jar " + dir.resolve("lib/rendezvous-agent.jar") + " --url https://rdv.example:8090 --infra-env-id " + ID,
        log.get(2));
  }

  @Test
  void bareConfigValidates() throws Exception {
    String text = builder.build(bare());
    validate(text);
    JsonNode c = JSON.readTree(text);
    assertTrue(c.path("ignition").path("proxy").isMissingNode());
    assertEquals(0, c.path("passwd").path("users").get(0).path("sshAuthorizedKeys").size());
    assertNull(file(c, "/root/.docker/config.json"));
    assertNull(unit(c, "add-ntp-sources.service"));
    assertTrue(unit(c, "agent.service").path("contents").asText()
        .contains("ExecStart=/usr/local/bin/rendezvous-agent --url http://10.0.0.5:8090 --infra-env-id " + ID + "\n"));
  }

  @Test
  void overrideIsMergedLast() throws Exception {
    String override = """
        {"ignition": {"version": "3.1.0"},
         "passwd": {"users": [{"name": "core", "sshAuthorizedKeys": ["ssh-ed25519 AAAAextra x@y"]},
                              {"name": "admin", "groups": ["wheel"]}]},
         "storage": {"files": [
            {"path": "/etc/motd", "mode": 420, "overwrite": true, "contents": {"source": "data:,custom%20motd%0A"}},
            {"path": "/etc/extra.conf", "mode": 384, "contents": {"source": "data:,x"}}],
           "links": [{"path": "/etc/NetworkManager/conf.d/01-ipv6.conf", "target": "/dev/null", "overwrite": true}]},
         "systemd": {"units": [
            {"name": "agent.service", "enabled": false},
            {"name": "extra.service", "enabled": true, "contents": "[Service]\\nExecStart=/bin/true\\n[Install]\\nWantedBy=multi-user.target\\n"}]}}
        """;
    String text = builder.build(full(override));
    validate(text);
    JsonNode c = JSON.readTree(text);
    assertEquals("3.1.0", c.path("ignition").path("version").asText());
    JsonNode users = c.path("passwd").path("users");
    assertEquals(2, users.size());
    assertEquals(3, users.get(0).path("sshAuthorizedKeys").size());
    assertEquals("custom motd\n", contents(c, "/etc/motd"));
    assertEquals(1, c.path("storage").path("files").findValues("path").stream()
        .filter(p -> p.asText().equals("/etc/motd")).count());
    assertNotNull(file(c, "/etc/extra.conf"));
    assertNull(file(c, "/etc/NetworkManager/conf.d/01-ipv6.conf"), "the child's link replaces the file");
    JsonNode agent = unit(c, "agent.service");
    assertFalse(agent.path("enabled").asBoolean());
    assertTrue(agent.path("contents").asText().contains("ExecStart="), "contents kept from the generated unit");
    assertNotNull(unit(c, "extra.service"));
  }

  @Test
  void laterSpecOverrideKeepsItsVersion() throws Exception {
    String text = builder.build(full("{\"ignition\":{\"version\":\"3.2.0\"},\"storage\":{\"luks\":[]}}"));
    validate(text);
    assertEquals("3.2.0", JSON.readTree(text).path("ignition").path("version").asText());
  }

  @Test
  void badInputNamesTheField() {
    assertField("ignition_config_override", () -> builder.build(full("{not json")));
    assertField("ignition_config_override", () -> builder.build(full("[]")));
    assertField("ignition_config_override", () -> builder.build(full("{\"ignition\":{\"version\":\"2.2.0\"}}")));
    assertField("ignition_config_override", () -> builder.build(full("{\"ignition\":{\"version\":\"3.1.0\"},\"bogus\":1}")));
    assertField("ignition_config_override", () -> builder.build(full(
        "{\"ignition\":{\"version\":\"3.1.0\"},\"storage\":{\"files\":[{\"path\":\"etc/x\"}]}}")));
    assertField("ignition_config_override", () -> builder.build(full(
        "{\"ignition\":{\"version\":\"3.1.0\"},\"systemd\":{\"units\":[{\"name\":\"agent\"}]}}")));
    DiscoveryIgnitionInput ok = full(null);
    assertField("ssh_authorized_key", () -> builder.build(with(ok, "not a key", ok.proxy(), ok.staticNetworkConfig())));
    assertField("proxy", () -> builder.build(with(ok, null, new Proxy("ftp://x", null, null), List.of())));
    assertField("proxy", () -> builder.build(with(ok, null, new Proxy("http://a b", null, null), List.of())));
    assertField("static_network_config[0].network_yaml", () -> builder.build(with(ok, null, null,
        List.of(new StaticNetworkConfig("interfaces: [", List.of())))));
    assertField("pull_secret", () -> builder.build(new DiscoveryIgnitionInput("http://s", ID, "t", null, "{x", null,
        null, null, null, null, null, null)));
    assertField("additional_ntp_sources", () -> builder.build(new DiscoveryIgnitionInput("http://s", ID, "t", null,
        null, null, null, null, List.of("bad host;rm"), null, null, null)));
    assertField("infra_env_id", () -> builder.build(new DiscoveryIgnitionInput("http://s", "x", "t", null,
        null, null, null, null, null, null, null, null)));
    assertField("additional_trust_bundle", () -> builder.build(new DiscoveryIgnitionInput("http://s", ID, "t", null,
        null, null, "junk", null, null, null, null, null)));
  }

  static DiscoveryIgnitionInput with(DiscoveryIgnitionInput in, String ssh, Proxy proxy, List<StaticNetworkConfig> net) {
    return new DiscoveryIgnitionInput(in.serviceBaseUrl(), in.infraEnvId(), in.agentToken(), ssh, in.pullSecret(),
        proxy, null, null, null, net, null, null);
  }

  static void assertField(String field, Runnable r) {
    InvalidIgnitionInputException e = assertThrows(InvalidIgnitionInputException.class, r::run);
    assertEquals(field, e.field(), e.getMessage());
    assertTrue(e instanceof IllegalArgumentException);
  }

  @Test
  void splitsUpstreamNtpList() {
    assertEquals(List.of("a.example", "10.0.0.1"), DiscoveryIgnitionBuilder.splitNtpSources(" a.example, ,10.0.0.1 "));
  }
}
