package dev.rendezvous.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.rendezvous.agent.AgentConfig;
import dev.rendezvous.agent.AgentSwarm;
import dev.rendezvous.service.auth.TokenStore;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Upstream's UI library (npm {@code @openshift-assisted/ui-lib}) drives a whole user flow against the running
 * program through its own API layer (ClustersAPI, InfraEnvsAPI, HostsAPI, EventsAPI, ... on its axios client with
 * its case converter and base path): the wizard's reference data, a cluster with an OLM operator, UI settings,
 * custom manifests, an infra-env and its ISO URLs, hosts (dry-run agents this test boots into the infra-env the
 * script made), roles and names, install to installed, credentials, kubeconfig, logs, events, operators, day-2.
 * Every response, as the UI sees it after case conversion, is validated against upstream's model for that
 * operation: JSON Schema made from {@code @openshift-assisted/types} (upstream's swagger as the UI team renders
 * it in TypeScript; the swagger itself is in no npm or Maven package). The node side is
 * {@code src/test/uilib/flow.js}; its packages are pinned there and installed by scripts/install-test-tools.
 */
class UiLibClientTest {
  static final Path UILIB = Path.of("src", "test", "uilib").toAbsolutePath();
  static final Path LOGS = Path.of("target", "uilib").toAbsolutePath();
  static final int HOSTS = 3;

  /** What the flow must have called: every API object the ui-lib has, and the flow's milestones. */
  static final Set<String> REQUIRED = Set.of("SupportedOpenshiftVersionsAPI.list(false)", "OperatorsAPI.list",
      "NewFeatureSupportLevelsAPI.featuresSupportLevel", "NewFeatureSupportLevelsAPI.architecturesSupportLevel",
      "ComponentVersionsAPI.list", "ManagedDomainsAPI.list", "BundleAPI.list", "ClustersAPI.getDefaultConfig",
      "ClustersAPI.register", "ClustersAPI.get", "ClustersAPI.update", "ClustersAPI.list", "UISettingsAPI.get",
      "UISettingsAPI.put", "ClustersAPI.getPreflightRequirements", "ClustersAPI.createCustomManifest",
      "ClustersAPI.getManifests", "InfraEnvsAPI.register", "InfraEnvsAPI.get", "InfraEnvsAPI.update",
      "InfraEnvsAPI.getImageUrl", "InfraEnvsAPI.getIpxeImageUrl", "HostsAPI.list", "HostsAPI.get", "HostsAPI.update",
      "ClustersAPI.install", "ClustersAPI.getCredentials", "ClustersAPI.getPresignedForClusterCredentials",
      "ClustersAPI.downloadClusterCredentials", "ClustersAPI.getPresignedForClusterFiles", "ClustersAPI.downloadLogs",
      "EventsAPI.list", "ClustersAPI.allowAddHosts", "ClustersAPI.registerAddHosts", "ClustersAPI.deregister",
      "InfraEnvsAPI.deregister", "client GET /v2/release-sources", "client GET /v2/support-levels/features/detailed",
      "client GET /v2/clusters/{id}/supported-platforms", "client GET /v2/clusters/{id}/monitored-operators");

  @Test
  void upstreamsUiLibraryDrivesAWholeFlowAndEveryAnswerHasUpstreamsShape() throws Exception {
    if (!onPath("node")) {
      fail("node is not installed: run scripts/install-test-tools (Debian packages nodejs npm), which also installs"
          + " the pinned ui-lib packages");
    }
    Rendezvous system = TestSystem.shared();
    int port = system.config().apiPort();
    // a tenant of its own: the UI's cluster list holds only this flow's clusters
    String token = new TokenStore(system.pool()).create("uilib", "ui-lib flow", false).await(10, TimeUnit.SECONDS);
    Files.createDirectories(LOGS);
    Process node = new ProcessBuilder("node", UILIB.resolve("flow.js").toString(), "--url=http://127.0.0.1:" + port,
        "--token=" + token, "--hosts=" + HOSTS, "--work=" + LOGS, "--timeout-seconds=150")
        .redirectError(LOGS.resolve("node-stderr.log").toFile()).start();
    Path out = LOGS.resolve("flow-stdout.jsonl");
    AtomicReference<JsonObject> summary = new AtomicReference<>();
    AtomicReference<String> fatal = new AtomicReference<>();
    List<AgentSwarm> swarms = new CopyOnWriteArrayList<>(); // added by the reader thread
    Vertx vertx = Vertx.vertx();
    try (BufferedReader lines = new BufferedReader(new InputStreamReader(node.getInputStream(), StandardCharsets.UTF_8));
        var log = Files.newBufferedWriter(out)) {
      Thread reader = new Thread(() -> {
        try {
          for (String line; (line = lines.readLine()) != null; ) {
            log.write(line + "\n");
            log.flush();
            JsonObject m = line.startsWith("{") ? new JsonObject(line) : new JsonObject();
            if (m.containsKey("agents")) {
              // the hosts boot the infra-env's discovery image: dry-run agents with its agent token
              JsonObject a = m.getJsonObject("agents");
              String infraEnv = a.getString("infraEnv");
              AgentConfig agents = AgentConfig.parse(new String[] {"--url", "http://127.0.0.1:" + port,
                  "--infra-env-id", infraEnv, "--dry-run", "--swarm", Integer.toString(a.getInteger("hosts"))},
                  Map.of("RDV_AGENT_TOKEN", system.agentToken(infraEnv, a.getString("cluster"))));
              swarms.add(AgentSwarm.start(vertx, agents, a.getInteger("hosts")));
            } else if (m.containsKey("summary")) {
              summary.set(m.getJsonObject("summary"));
            } else if (m.containsKey("fatal")) {
              fatal.set(m.getString("fatal"));
            }
          }
        } catch (Exception e) {
          fatal.compareAndSet(null, "reading the flow's output: " + e);
        }
      }, "uilib-flow-reader");
      reader.start();
      if (!node.waitFor(180, TimeUnit.SECONDS)) {
        fail("the ui-lib flow did not end within 180 s; its calls: " + out);
      }
      reader.join(10_000);
    } finally {
      if (node.isAlive()) {
        node.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
      for (AgentSwarm s : swarms) {
        s.stop().await(20, TimeUnit.SECONDS);
      }
      vertx.close().await(10, TimeUnit.SECONDS);
    }
    String where = " (calls: " + out + ", responses: " + LOGS.resolve("uilib-calls.jsonl") + ", stderr: "
        + LOGS.resolve("node-stderr.log") + ")";
    if (fatal.get() != null) {
      fail("the ui-lib flow could not run: " + fatal.get() + where);
    }
    JsonObject s = summary.get();
    assertTrue(s != null, "the ui-lib flow ended (exit " + node.exitValue() + ") without a summary" + where);
    String report = s.encodePrettily();
    assertEquals(new JsonArray(), s.getJsonArray("violations"), "responses that break upstream's models: " + report + where);
    assertEquals(new JsonArray(), s.getJsonArray("unexpected"), "calls that did not answer as upstream's: " + report + where);
    assertTrue(s.getString("error") == null, "the flow stopped: " + report + where);
    Set<String> missing = new TreeSet<>(REQUIRED);
    s.getJsonArray("operations").forEach(missing::remove);
    assertEquals(Set.of(), missing, "operations the flow did not call" + where);
    assertEquals("installed", s.getString("finalStatus"), "the cluster as the ui-lib saw it last" + where);
    assertEquals(0, node.exitValue(), report + where);
    assertTrue(s.getInteger("calls") > 60, report);
  }

  private static boolean onPath(String command) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
      if (Files.isExecutable(Path.of(dir, command))) {
        return true;
      }
    }
    return false;
  }
}
