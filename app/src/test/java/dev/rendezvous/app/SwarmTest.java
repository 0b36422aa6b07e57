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
    return run(prefix, clusters, hosts, install, Duration.ZERO, out);
  }

  private FleetSwarm.Report run(String prefix, int clusters, int hosts, boolean install, Duration hold,
      ByteArrayOutputStream out) throws Exception {
    return run(prefix, clusters, hosts, install, hold, 0, out);
  }

  /** {@code processes}: 0 for as many as the open-file limit needs (here one), else the agents in that many. */
  private FleetSwarm.Report run(String prefix, int clusters, int hosts, boolean install, Duration hold, int processes,
      ByteArrayOutputStream out) throws Exception {
    String token = java.nio.file.Files.readString(system.adminTokenFile()).strip();
    FleetSwarm.Config config = new FleetSwarm.Config("http://127.0.0.1:" + system.config().apiPort(), token, clusters,
        hosts, install, prefix, null, Duration.ofSeconds(install ? 240 : 90), Duration.ofSeconds(1), hold);
    Vertx vertx = Vertx.vertx();
    try {
      return new FleetSwarm(config, new PrintStream(out, true, StandardCharsets.UTF_8)).processes(processes).run(vertx);
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
    // held connected a few seconds once ready (--hold-seconds): an idle fleet stays as it was
    FleetSwarm.Report ha = run("swarm-ha", 2, 5, false, Duration.ofSeconds(3), out);
    assertEquals(2, ha.clustersByStatus().getOrDefault("ready", 0), out.toString(StandardCharsets.UTF_8));
    assertTrue(ha.allReadySeconds() > 0);
    assertEquals(java.util.Map.of("ready", 2), ha.clustersAfterHold(), out.toString(StandardCharsets.UTF_8));
    assertTrue(out.toString(StandardCharsets.UTF_8).contains("held: clusters {ready=2}"), out.toString(StandardCharsets.UTF_8));
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
    // the two fleets side by side, as a hub's sites install (and the test takes one installation's time, not two)
    ByteArrayOutputStream haOut = new ByteArrayOutputStream();
    java.util.concurrent.CompletableFuture<FleetSwarm.Report> haRun = java.util.concurrent.CompletableFuture.supplyAsync(
        () -> {
          try {
            return run("swarm-install-ha", 1, 5, true, haOut);
          } catch (Exception e) {
            throw new java.util.concurrent.CompletionException(e);
          }
        });
    // the single-node sites' agents in two worker processes, as a fleet too big for one process's files runs them
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    FleetSwarm.Report sno = run("swarm-install-sno", 2, 1, true, Duration.ZERO, 2, out);
    FleetSwarm.Report ha = haRun.get(5, TimeUnit.MINUTES);
    String log = haOut.toString(StandardCharsets.UTF_8) + out.toString(StandardCharsets.UTF_8);
    assertTrue(ha.allInstalled(), log);
    assertTrue(log.contains("fleet: the agents run in 2 processes (--processes)"), log);
    // the progress lines carry the service's own host counts, not only the cluster list's, and how old they are
    assertTrue(log.lines().anyMatch(l -> l.matches(".*  service hosts \\(counted \\d+ s ago\\) \\{.+\\}.*")), log);
    // the install metrics counted both (other tests of this JVM may have added more)
    String m = Await.until("install metrics", Duration.ofSeconds(20), () -> {
      String text = TestSystem.admin().get("/metrics").body();
      return value(text, "rdv_installations_finished_total{hosts=\"2-5\",result=\"installed\",topology=\"highly-available\"}") >= 1
          && value(text, "rdv_installations_finished_total{hosts=\"1\",result=\"installed\",topology=\"single-node\"}") >= 1
          && value(text, "rdv_installations_started_total") >= 2 ? text : null;
    });
    // durations: the whole install, each host stage by role, registration to known
    double installSeconds = value(m, "rdv_installation_duration_seconds_sum{result=\"installed\",topology=\"single-node\"}");
    assertTrue(installSeconds > 1 && installSeconds < 600, "single-node install took " + installSeconds + " s by the metric");
    assertTrue(value(m, "rdv_host_install_stage_duration_seconds_count{role=\"master\",stage=\"Writing image to disk\"}") >= 2, m);
    assertTrue(value(m, "rdv_host_install_stage_duration_seconds_count{role=\"bootstrap\",stage=\"Waiting for control plane\"}") >= 1, m);
    assertTrue(value(m, "rdv_host_time_to_known_seconds_count") >= 6, m);
    // the fleet gauges (refreshed every 15 s) and the bus counters
    String fleet = Await.until("fleet gauges", Duration.ofSeconds(40), () -> {
      String text = TestSystem.admin().get("/metrics").body();
      return value(text, "rdv_clusters{status=\"installed\"}") >= 2 && value(text, "rdv_hosts{status=\"installed\"}") >= 6
          ? text : null;
    });
    assertTrue(value(fleet, "rdv_bus_events_handled_total{group=\"rdv-service-brain\"}") > 0, fleet);
    // and how old those counts are (they were read, so at most a refresh period ago, with room for a loaded machine)
    assertTrue(fleet.contains("\nrdv_fleet_counts_age_seconds "), fleet);
    double age = value(fleet, "rdv_fleet_counts_age_seconds");
    assertTrue(age >= 0 && age < 60, "fleet counts " + age + " s old");
    // installed clusters leave the brain's memory (parked until their rows change; the monitor passes them by)
    Await.until("both installed clusters parked", Duration.ofSeconds(30), () ->
        value(TestSystem.admin().get("/metrics").body(), "rdv_brain_parked_clusters") >= 2 ? true : null);
    assertTrue(fleet.contains("rdv_bus_consumer_lag_records{group=\"rdv-service-brain\"}"), fleet);
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
