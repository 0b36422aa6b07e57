package dev.rendezvous.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AgentConfigTest {
  static final String IE = "5f1a3c2e-7b9d-4e61-a0c4-2d8e6f1b9a70";

  @TempDir
  Path tmp;

  @Test
  void flagsOverEnvironmentOverDefaults() throws Exception {
    Path token = Files.writeString(tmp.resolve("token"), "  file-token\n");
    AgentConfig c = AgentConfig.parse(new String[] {"--url=https://gw.example:8443/prefix", "--token-file", token.toString(),
        "--transport", "http", "--insecure", "--host-id", "AAAAAAAA-BBBB-CCCC-DDDD-EEEEEEEEEEEE"},
        Map.of("RDV_AGENT_INFRA_ENV_ID", IE, "RDV_AGENT_TRANSPORT", "websocket", "RDV_AGENT_TOKEN", "env-token",
            "RDV_AGENT_STEP_THREADS", "2"));
    assertEquals("https://gw.example:8443/prefix", c.url().toString());
    assertTrue(c.tls());
    assertEquals(IE, c.infraEnvId());
    assertEquals("file-token", c.token(), "--token-file beats RDV_AGENT_TOKEN");
    assertEquals(TransportMode.HTTP, c.transport(), "flag beats env");
    assertTrue(c.insecure());
    assertEquals(Optional.of("aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"), c.hostId());
    assertEquals(2, c.stepThreads());
    assertEquals(Duration.ofSeconds(600), c.stepTimeout());
    assertEquals(30, c.longPollWaitSeconds());
    assertEquals(Duration.ofSeconds(1), c.backoffBase());
    assertEquals(Duration.ofSeconds(60), c.backoffCap());
    assertFalse(c.dryRun());
    assertFalse(c.toString().contains("file-token"), "token never printed");
  }

  @Test
  void upstreamTokenVariableIsAccepted() {
    AgentConfig c = AgentConfig.parse(new String[] {"--url", "http://gw:8080", "--infra-env-id", IE},
        Map.of("PULL_SECRET_TOKEN", "upstream-token"));
    assertEquals("upstream-token", c.token());
    assertEquals(TransportMode.AUTO, c.transport());
  }

  @Test
  void badInputNamesTheFlag() {
    Map<String, String> env = Map.of("RDV_AGENT_TOKEN", "t");
    assertEquals("url", assertThrows(ConfigException.class,
        () -> AgentConfig.parse(new String[] {"--infra-env-id", IE}, env)).setting());
    assertEquals("url", assertThrows(ConfigException.class,
        () -> AgentConfig.parse(new String[] {"--url", "ftp://x", "--infra-env-id", IE}, env)).setting());
    assertEquals("infra-env-id", assertThrows(ConfigException.class,
        () -> AgentConfig.parse(new String[] {"--url", "http://x", "--infra-env-id", "not-a-uuid"}, env)).setting());
    assertEquals("token-file", assertThrows(ConfigException.class,
        () -> AgentConfig.parse(new String[] {"--url", "http://x", "--infra-env-id", IE}, Map.of())).setting());
    assertEquals("transport", assertThrows(ConfigException.class,
        () -> AgentConfig.parse(new String[] {"--url", "http://x", "--infra-env-id", IE, "--transport", "carrier-pigeon"}, env)).setting());
    assertEquals("swarm", assertThrows(ConfigException.class,
        () -> AgentConfig.parse(new String[] {"--url", "http://x", "--infra-env-id", IE, "--swarm", "10"}, env)).setting());
    assertEquals("step-threads", assertThrows(ConfigException.class,
        () -> AgentConfig.parse(new String[] {"--url", "http://x", "--infra-env-id", IE, "--step-threads", "many"}, env)).setting());
    assertEquals("bogus", assertThrows(ConfigException.class,
        () -> AgentConfig.parse(new String[] {"--bogus"}, env)).setting());
    assertEquals("cacert", assertThrows(ConfigException.class,
        () -> AgentConfig.parse(new String[] {"--url", "https://x", "--infra-env-id", IE, "--cacert", "/nonexistent.pem"}, env)).setting());
  }

  @Test
  void swarmMembersGetTheirOwnIdentity() {
    AgentConfig base = AgentConfig.parse(new String[] {"--url", "http://x", "--infra-env-id", IE, "--dry-run", "--swarm", "3"},
        Map.of("RDV_AGENT_TOKEN", "t"));
    AgentConfig m = base.forSwarmMember(2, AgentSwarm.memberHostId(IE, 2));
    assertEquals(Optional.of(2), m.dryRunIndex());
    assertEquals(0, m.swarm());
    assertEquals(Optional.of(AgentSwarm.memberHostId(IE, 2)), m.hostId());
    assertFalse(AgentSwarm.memberHostId(IE, 1).equals(AgentSwarm.memberHostId(IE, 2)));
  }
}
