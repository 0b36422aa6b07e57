package dev.rendezvous.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Timeouts set by the user (RDV_TIMEOUTS) and driven end to end: a cluster installs through the real API, bus and
 * database; its hosts' installers (played here through upstream's progress API with the agent token) report their
 * first stages and then nothing more, as installers that hung would. With the stage timeouts shortened to seconds,
 * the monitor moves each host to error with upstream's status info, the cluster follows, and the events say so.
 */
class StageTimeoutTest {
  @TempDir Path dir;

  @Test
  void hostsStuckInAStageGoToErrorWithUpstreamsReasonAndTheClusterFollows() throws Exception {
    try (Rendezvous system = TestSystem.start(dir, Map.of("brain-monitor-interval-ms", "500",
        "timeouts", "host-stage-writing-image-to-disk=6s,host-stage-installing=5s"))) {
      Api api = new Api(system.config().apiPort(), Files.readString(system.adminTokenFile()).strip());
      // one cluster whose installers hang while installing, one whose installers hang while writing the image
      stuck(system, api, "stuck-installing", List.of("Starting installation", "Installing"),
          "Host failed to install because its installation stage Installing took longer than expected 5s");
      stuck(system, api, "stuck-writing", List.of("Starting installation", "Installing", "Writing image to disk"),
          "Host failed to install because its installation stage Writing image to disk did not sufficiently progress"
              + " in the last 6s.");
    }
  }

  /**
   * preparing-failed and unbinding-pending-user-action through the API: late-bound hosts of a cluster whose install
   * checks never answer fail their preparation once host-preparation (shortened) passes; installing again, one is
   * unbound while preparing, which, its disk possibly written, waits for the user to reboot it, as upstream's.
   */
  @Test
  void aPreparationThatNeverAnswersFailsAndAHostUnboundThenWaitsForTheUser() throws Exception {
    try (Rendezvous system = TestSystem.start(dir, Map.of("brain-monitor-interval-ms", "500",
        "timeouts", "host-preparation=4s"))) {
      Api api = new Api(system.config().apiPort(), Files.readString(system.adminTokenFile()).strip());
      List<String> hosts = BrainFlowTest.newHosts(3);
      String cluster = BrainFlowTest.createCluster(api, "prep-fails");
      String pool = api.post("/infra-envs", Api.infraEnv("prep-pool", null)).json().getString("id");
      try (GatewayDouble gw = new GatewayDouble(system.kafkaBootstrap(), Set.copyOf(hosts))) {
        hosts.forEach(h -> gw.register(null, pool, h));
        BrainFlowTest.awaitHosts(api, pool, hosts, "discovering-unbound");
        for (int i = 0; i < hosts.size(); i++) {
          gw.reply(null, pool, hosts.get(i), "inventory", 0, GatewayDouble.inventory(i + 1, 8));
        }
        BrainFlowTest.awaitHosts(api, pool, hosts, "known-unbound");
        for (String h : hosts) {
          Api.Reply bound = api.post("/infra-envs/" + pool + "/hosts/" + h + "/actions/bind",
              new JsonObject().put("cluster_id", cluster));
          assertEquals(200, bound.status(), bound.body());
          gw.register(null, pool, h); // the agent registers again, now under the cluster
        }
        BrainFlowTest.awaitHosts(api, pool, hosts, "discovering");
        BrainFlowTest.answerChecks(gw, "prep-fails", new BrainFlowTest.Ready(cluster, pool, hosts), hosts);
        BrainFlowTest.awaitCluster(api, cluster, "ready");
        assertEquals(202, api.post("/clusters/" + cluster + "/actions/install", null).status());
        BrainFlowTest.awaitHosts(api, pool, hosts, "preparing-for-installation");
        // no disk-speed answer ever comes: after 4 s the hosts' preparation has failed. As upstream's, that state is
        // brief: the cluster's preparation fails with it (back to ready), and the hosts go back to known; the events
        // keep it
        String failedEvent = Await.until("a host's preparation failed", Duration.ofSeconds(40), () -> {
          String events = api.get("/events?cluster_id=" + cluster).body();
          return events.contains("to preparing-failed (The host has encountered a preparation timeout, the following"
              + " conditions failed: the installation disk speed check did not complete within the timeout.)")
              ? events : null;
        });
        assertTrue(failedEvent.contains("preparing-failed"), failedEvent);
        BrainFlowTest.awaitCluster(api, cluster, "ready");
        BrainFlowTest.awaitHosts(api, pool, hosts, "known");

        // installing again, a host unbound while preparing (its disk may already be written): the user must reboot it
        assertEquals(202, api.post("/clusters/" + cluster + "/actions/install", null).status());
        BrainFlowTest.awaitHosts(api, pool, List.of(hosts.get(0)), "preparing-for-installation");
        Api.Reply unbound = api.post("/infra-envs/" + pool + "/hosts/" + hosts.get(0) + "/actions/unbind", null);
        assertEquals(200, unbound.status(), unbound.body());
        assertEquals("unbinding-pending-user-action", unbound.json().getString("status"), unbound.body());
        assertEquals("unbinding-pending-user-action", BrainFlowTest.host(api, pool, hosts.get(0)).getString("status"));
      }
    }
  }

  private void stuck(Rendezvous system, Api api, String name, List<String> stages, String reason) throws Exception {
    List<String> hosts = BrainFlowTest.newHosts(3);
    try (GatewayDouble gw = new GatewayDouble(system.kafkaBootstrap(), Set.copyOf(hosts))) {
      BrainFlowTest.Ready r = BrainFlowTest.install(api, gw, BrainFlowTest.readyCluster(api, gw, name, hosts), hosts);
      Api agent = Api.agent(api.port, system.agentToken(r.infraEnv(), r.cluster()));
      for (String h : hosts) {
        for (String stage : stages) {
          Api.Reply p = agent.put("/infra-envs/" + r.infraEnv() + "/hosts/" + h + "/progress", new JsonObject()
              .put("current_stage", stage).put("progress_info", stage.equals("Writing image to disk") ? "33%" : ""));
          assertEquals(200, p.status(), stage + ": " + p.body());
        }
      }
      // the masters' stage times out; once one is in error the cluster cannot finish, and the others follow it
      BrainFlowTest.awaitCluster(api, r.cluster(), "error");
      List<String> infos = Await.until("every host in error", Duration.ofSeconds(60), () -> {
        List<JsonObject> all = hosts.stream().map(h -> BrainFlowTest.host(api, r.infraEnv(), h)).toList();
        return all.stream().allMatch(h -> "error".equals(h.getString("status")))
            ? all.stream().map(h -> h.getString("status_info")).toList() : null;
      });
      assertTrue(infos.contains(reason), name + ": " + infos);
      assertTrue(infos.stream().allMatch(i -> i.equals(reason) || i.equals("Host is part of a cluster that failed to install")),
          name + ": " + infos);
      String events = api.get("/events?cluster_id=" + r.cluster()).body();
      assertTrue(events.contains(reason.replaceAll("\\.$", "")), name + ": the events say why: " + events);
    }
  }

  @Test
  void anUnknownTimeoutNameOrABadDurationIsRefusedAtStart() {
    IllegalArgumentException unknown = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> new dev.rendezvous.service.ServiceConfig.BrainSettings(Duration.ofSeconds(5), null, null, null,
            Duration.ofMinutes(3), Set.of(), List.of(), 0, Duration.ofMillis(100),
            AppConfig.timeouts("host-stage-dancing=5m"), null));
    assertTrue(unknown.getMessage().contains("'host-stage-dancing' is not a timeout")
        && unknown.getMessage().contains("host-stage-writing-image-to-disk"), unknown.getMessage());
    IllegalArgumentException bad = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> AppConfig.timeouts("host-preparation=soon"));
    assertTrue(bad.getMessage().contains("host-preparation") && bad.getMessage().contains("not a duration"),
        bad.getMessage());
    assertEquals(Map.of("cluster-installation", Duration.ofMinutes(90), "host-preparation", Duration.ofSeconds(45)),
        AppConfig.timeouts("cluster-installation=1h30m, host-preparation=45"));
  }
}
