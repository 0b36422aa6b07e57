package dev.rendezvous.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.rendezvous.service.auth.TokenStore;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
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
    if (!NodeFlow.onPath("node")) {
      fail("node is not installed: run scripts/install-test-tools (Debian packages nodejs npm), which also installs"
          + " the pinned ui-lib packages");
    }
    Rendezvous system = TestSystem.shared();
    int port = system.config().apiPort();
    // a tenant of its own: the UI's cluster list holds only this flow's clusters
    String token = new TokenStore(system.pool()).create("uilib", "ui-lib flow", false).await(10, TimeUnit.SECONDS);
    Files.createDirectories(LOGS);
    Path out = LOGS.resolve("flow-stdout.jsonl");
    NodeFlow.Result run = NodeFlow.run(system, "flow.js", List.of("--url=http://127.0.0.1:" + port,
        "--token=" + token, "--hosts=" + HOSTS, "--work=" + LOGS, "--timeout-seconds=150"), out,
        Duration.ofSeconds(180), m -> { });
    if (run.timedOut()) {
      fail("the ui-lib flow did not end within 180 s; its calls: " + out);
    }
    String where = " (calls: " + out + ", responses: " + LOGS.resolve("uilib-calls.jsonl") + ", stderr: "
        + LOGS.resolve("node-stderr.log") + ")";
    if (run.fatal() != null) {
      fail("the ui-lib flow could not run: " + run.fatal() + where);
    }
    JsonObject s = run.summary();
    assertTrue(s != null, "the ui-lib flow ended (exit " + run.exit() + ") without a summary" + where);
    String report = s.encodePrettily();
    assertEquals(new JsonArray(), s.getJsonArray("violations"), "responses that break upstream's models: " + report + where);
    assertEquals(new JsonArray(), s.getJsonArray("unexpected"), "calls that did not answer as upstream's: " + report + where);
    assertTrue(s.getString("error") == null, "the flow stopped: " + report + where);
    Set<String> missing = new TreeSet<>(REQUIRED);
    s.getJsonArray("operations").forEach(missing::remove);
    assertEquals(Set.of(), missing, "operations the flow did not call" + where);
    assertEquals("installed", s.getString("finalStatus"), "the cluster as the ui-lib saw it last" + where);
    assertEquals(0, run.exit(), report + where);
    assertTrue(s.getInteger("calls") > 60, report);
  }
}
