package dev.rendezvous.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.agent.fleet.FleetSwarm;
import io.vertx.core.Vertx;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Dry-run agents alone drive clusters through the real program, as {@code ./rendezvous swarm} does: clusters and
 * infra-envs made through the user API, agents registering with the infra-env's token from its download URL,
 * validations passing, every cluster ready.
 */
class SwarmTest {
  private final Rendezvous system = TestSystem.shared();

  private FleetSwarm.Report run(String prefix, int clusters, int hosts, boolean install, ByteArrayOutputStream out)
      throws Exception {
    String token = java.nio.file.Files.readString(system.adminTokenFile()).strip();
    FleetSwarm.Config config = new FleetSwarm.Config("http://127.0.0.1:" + system.config().apiPort(), token, clusters,
        hosts, install, prefix, null, Duration.ofSeconds(install ? 240 : 90), Duration.ofSeconds(5));
    Vertx vertx = Vertx.vertx();
    try {
      return new FleetSwarm(config, new PrintStream(out, true, StandardCharsets.UTF_8)).run(vertx);
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }

  /** A sample's value in Prometheus text, 0 when absent. */
  static double value(String exposition, String series) {
    for (String line : exposition.split("\n")) {
      if (line.startsWith(series + " ")) {
        return Double.parseDouble(line.substring(series.length() + 1).trim());
      }
    }
    return 0;
  }

  @Test
  void dryRunAgentsBringHighlyAvailableAndSingleNodeClustersToReady() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    FleetSwarm.Report ha = run("swarm-ha", 2, 5, false, out);
    assertEquals(2, ha.clustersByStatus().getOrDefault("ready", 0), out.toString(StandardCharsets.UTF_8));
    assertTrue(ha.allReadySeconds() > 0);
    FleetSwarm.Report sno = run("swarm-sno", 2, 1, false, out);
    assertEquals(2, sno.clustersByStatus().getOrDefault("ready", 0), out.toString(StandardCharsets.UTF_8));
  }

  /**
   * Issues 10 and 11 end to end: dry-run agents alone take an HA cluster (3 masters, 2 workers) and a single-node
   * cluster from registration to installed: the install step, the installers' stages, the bootstrap's controller
   * (simulated nodes and operators) reporting Joined/Done and finalizing, the service completing the installation.
   */
  @Test
  void dryRunAgentsAloneInstallClustersToTheEnd() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    FleetSwarm.Report ha = run("swarm-install-ha", 1, 5, true, out);
    FleetSwarm.Report sno = run("swarm-install-sno", 1, 1, true, out);
    String log = out.toString(StandardCharsets.UTF_8);
    assertTrue(ha.allInstalled(), log);
    // the install metrics counted both (other tests of this JVM may have added more)
    Await.until("install metrics", Duration.ofSeconds(20), () -> {
      String m = TestSystem.admin().get("/metrics").body();
      return value(m, "rdv_installations_finished_total{result=\"installed\"}") >= 2
          && value(m, "rdv_installations_started_total") >= 2 ? m : null;
    });
    assertTrue(sno.allInstalled(), log);
    Api api = TestSystem.admin();
    for (String cluster : List.of(ha.clusterIds().get(0), sno.clusterIds().get(0))) {
      io.vertx.core.json.JsonObject c = api.get("/clusters/" + cluster).json();
      assertEquals("installed", c.getString("status"));
      assertEquals(100, c.getJsonObject("progress").getInteger("total_percentage"), c.encode());
      for (Object o : c.getJsonArray("hosts")) {
        io.vertx.core.json.JsonObject h = (io.vertx.core.json.JsonObject) o;
        assertEquals("installed", h.getString("status"), h.encode());
        assertEquals("Done", h.getJsonObject("progress").getString("current_stage"), h.encode());
      }
      // as upstream: the console credentials once installed, and the controller's logs uploaded
      assertEquals(200, api.get("/clusters/" + cluster + "/credentials").status());
      Await.until("the controller's logs of " + cluster, Duration.ofSeconds(60),
          () -> api.get("/clusters/" + cluster + "/logs?logs_type=controller").status() == 200);
    }
  }
}
