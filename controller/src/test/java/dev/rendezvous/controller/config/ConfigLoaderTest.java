package dev.rendezvous.controller.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigLoaderTest {
  static final String ID = "0b9ab6f0-6a7b-4d6d-9c63-2a1f7f6c5f11";

  static Map<String, String> env() {
    Map<String, String> env = new HashMap<>();
    env.put("CLUSTER_ID", ID);
    env.put("INVENTORY_URL", "https://api.example.com:8090");
    env.put("PULL_SECRET_TOKEN", " tok ");
    return env;
  }

  @Test
  void upstreamDefaultsFromTheEnvironment() {
    ControllerConfig c = ConfigLoader.load(env(), new String[0]);
    assertEquals(ID, c.clusterId());
    assertEquals("https://api.example.com:8090", c.inventoryUrl().toString());
    assertEquals("tok", c.token());
    assertEquals("assisted-installer", c.namespace());
    assertEquals(3, c.controlPlaneCount());
    assertFalse(c.skipCertVerification());
    assertFalse(c.checkClusterVersion());
    assertFalse(c.dryRun());
    assertEquals(Duration.ofSeconds(30), c.timings().checkInterval());
    assertEquals(Duration.ofHours(10), c.timings().operatorsTimeout());
    assertEquals(Duration.ofMinutes(70), c.timings().waitTimeout());
    assertEquals(15, c.retry().maxRetries());
    assertEquals(10, c.retry().minRetries());
    assertEquals(Duration.ofSeconds(2), c.retry().baseDelay());
    assertEquals(Duration.ofSeconds(10), c.retry().maxDelay());
    assertFalse(c.toString().contains("tok,"), "token not in toString: " + c);
  }

  @Test
  void flagsOverrideTheEnvironment() {
    Map<String, String> env = env();
    env.put("CONTROL_PLANE_COUNT", "1");
    env.put("SKIP_CERT_VERIFICATION", "True");
    ControllerConfig c = ConfigLoader.load(env, new String[] {"--control-plane-count=3", "--namespace", "other",
        "--check-interval-seconds=0.25", "--dry-run", "--cluster-id=" + ID.toUpperCase()});
    assertEquals(3, c.controlPlaneCount());
    assertEquals("other", c.namespace());
    assertTrue(c.skipCertVerification());
    assertTrue(c.dryRun());
    assertEquals(Duration.ofMillis(250), c.timings().checkInterval());
  }

  @Test
  void dryRunScalesTheIntervalsWithAFloor() {
    Map<String, String> env = env();
    env.put("DRY_ENABLE", "true");
    env.put("DRY_TIME_SCALE", "0.01");
    ControllerConfig c = ConfigLoader.load(env, new String[0]);
    assertEquals(0.01, c.dryRunTimeScale());
    assertEquals(Duration.ofSeconds(1), c.timings().checkInterval(), "30 s x 0.01 floored at 1 s");
    assertEquals(Duration.ofSeconds(360), c.timings().operatorsTimeout(), "10 h x 0.01, no floor");
    assertEquals(Duration.ofMillis(20), c.retry().baseDelay());
    assertEquals(Duration.ofMinutes(5), c.timings().waitTimeout(),
        "70 min x 0.01 is 42 s: the wait for an unreachable service is real time, at least 5 minutes");
    env.put("DRY_TIME_SCALE", "0.5");
    assertEquals(Duration.ofMinutes(35), ConfigLoader.load(env, new String[0]).timings().waitTimeout(), "70 min x 0.5");
  }

  @Test
  void theTokenFileWinsOverTheEnvironment(@TempDir Path dir) throws Exception {
    Path f = dir.resolve("token");
    Files.writeString(f, "from-file\n");
    assertEquals("from-file", ConfigLoader.load(env(), new String[] {"--token-file=" + f}).token());
  }

  @Test
  void missingAndMalformedSettingsAreNamed() {
    Map<String, String> env = env();
    env.remove("CLUSTER_ID");
    assertEquals("CLUSTER_ID (--cluster-id): required",
        assertThrows(ConfigException.class, () -> ConfigLoader.load(env, new String[0])).getMessage());
    assertTrue(assertThrows(ConfigException.class, () -> ConfigLoader.load(env(), new String[] {"--cluster-id=x"}))
        .getMessage().startsWith("CLUSTER_ID (--cluster-id): not a UUID"));
    assertTrue(assertThrows(ConfigException.class,
        () -> ConfigLoader.load(env(), new String[] {"--inventory-url=ftp://x"})).getMessage()
        .startsWith("INVENTORY_URL (--inventory-url): not an http(s) URL"));
    Map<String, String> noToken = env();
    noToken.remove("PULL_SECRET_TOKEN");
    assertTrue(assertThrows(ConfigException.class, () -> ConfigLoader.load(noToken, new String[0])).getMessage()
        .startsWith("PULL_SECRET_TOKEN: required"));
    Map<String, String> badBool = env();
    badBool.put("CHECK_CLUSTER_VERSION", "yes");
    assertEquals("CHECK_CLUSTER_VERSION (--check-cluster-version): not a boolean: 'yes'",
        assertThrows(ConfigException.class, () -> ConfigLoader.load(badBool, new String[0])).getMessage());
    assertTrue(assertThrows(ConfigException.class, () -> ConfigLoader.load(env(), new String[] {"--bogus=1"}))
        .getMessage().startsWith("--bogus: unknown flag"));
    assertTrue(assertThrows(ConfigException.class,
        () -> ConfigLoader.load(env(), new String[] {"--dry-run-time-scale=0"})).getMessage()
        .startsWith("DRY_TIME_SCALE (--dry-run-time-scale): must be a number above 0"));
    assertTrue(assertThrows(ConfigException.class,
        () -> ConfigLoader.load(env(), new String[] {"--kubeconfig=/nope/kubeconfig"})).getMessage()
        .startsWith("--kubeconfig: cannot read"));
  }
}
