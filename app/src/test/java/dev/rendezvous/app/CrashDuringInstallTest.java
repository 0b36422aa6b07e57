package dev.rendezvous.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.agent.AgentConfig;
import dev.rendezvous.agent.AgentSwarm;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * kill -9 of the whole program (a child JVM), twice, in the middle of an HA installation (three masters, two
 * workers) driven by dry-run agents, installers and the bootstrap's controller running in this JVM; after each, the
 * same command on the same data directory and API port. Nobody helps: the agents, installers and controller ride
 * over the outages with their own retries, and the installation ends {@code installed}. Every progress report the
 * system answered 2xx, before a kill or after it (recorded by a proxy between the agents and the system), is in the
 * host's events, in the order it was acknowledged; no stage event appears twice; no host goes back a stage; no
 * installer report is refused; no cluster event appears twice.
 */
class CrashDuringInstallTest {
  private static final int HOSTS = 5;
  /** Every HA role's stages in one order (bootstrap, master and worker lists of the service are sub-sequences). */
  private static final List<String> STAGE_ORDER = List.of("Starting installation", "Installing",
      "Writing image to disk", "Copying registry data to disk", "Waiting for control plane", "Waiting for bootkube",
      "Waiting for controller", "Rebooting", "Waiting for ignition", "Configuring", "Joined", "Done");
  private static final java.util.Set<String> CONTROLLER_STAGES = java.util.Set.of("Configuring", "Joined", "Done");
  private static final String PROGRESS_EVENT = "host_install_progress_updated";

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {41}) // one installation killed twice (was two seeds, one kill each: a minute more of CI)
  void anInstallationKilledMidwayEndsInstalledWithEveryAcknowledgedStageOnce(long seed) throws Exception {
    Random random = new Random(seed);
    Path dataDir = Files.createTempDirectory("rdv-crash-install-");
    int apiPort = TestSystem.freePort();
    Vertx vertx = Vertx.vertx();
    CrashTest.Child child = CrashTest.Child.start(dataDir, apiPort);
    AgentSwarm swarm = null;
    try (RecordingProxy proxy = RecordingProxy.start(vertx, 0, apiPort)) {
      Api api = new Api(apiPort, Files.readString(dataDir.resolve("admin-token")).strip());
      String clusterId = api.post("/clusters", Api.cluster("crash-install")
          .put("api_vips", new JsonArray().add(new JsonObject().put("ip", "10.200.255.1")))
          .put("ingress_vips", new JsonArray().add(new JsonObject().put("ip", "10.200.255.2")))).json().getString("id");
      JsonObject ie = api.post("/infra-envs", Api.infraEnv("crash-install-ie", clusterId)).json();
      // the agents' back-off is capped at 5 s (default 60 s) only so the test does not wait on a long jittered delay
      AgentConfig agents = AgentConfig.parse(new String[] {"--url", "http://127.0.0.1:" + proxy.port(),
          "--infra-env-id", ie.getString("id"), "--dry-run", "--swarm", Integer.toString(HOSTS),
          "--backoff-cap-ms", "5000"}, Map.of("RDV_AGENT_TOKEN", agentToken(api, ie.getString("id"))));
      swarm = AgentSwarm.start(vertx, agents, HOSTS);
      Await.until("the cluster ready", Duration.ofSeconds(120),
          () -> "ready".equals(api.get("/clusters/" + clusterId).json().getString("status")));
      assertEquals(202, api.post("/clusters/" + clusterId + "/actions/install", null).status());

      // two kills in one installation, each after a seeded number of acknowledged stages (the whole install has about
      // 55: the installers' up to Rebooting, then the controller's Configuring, Joined and Done), then a seeded delay:
      // one while the disks are written, one around the controller's stages (seed 41: after 15, then 39 or so)
      int firstKill = 4 + random.nextInt(18);
      int secondKill = Math.max(firstKill + 8, 37 + random.nextInt(6));
      for (int killAfter : new int[] {firstKill, secondKill}) {
        Await.until(killAfter + " acknowledged progress reports", Duration.ofSeconds(120),
            () -> proxy.ackCount() >= killAfter);
        Thread.sleep(random.nextInt(400)); // lands between two reports, or in the middle of one
        child.kill();
        List<RecordingProxy.Ack> beforeKill = proxy.acks();
        System.out.printf("seed %d: killed after %d acknowledged progress reports, the last %s%n", seed,
            beforeKill.size(), beforeKill.get(beforeKill.size() - 1));
        assertTrue(beforeKill.stream().filter(a -> a.stage().equals("Done")).count() < HOSTS,
            "the kill came during the installation: " + beforeKill);
        child = CrashTest.Child.start(dataDir, apiPort);
      }

      Api after = new Api(apiPort, api.token);
      String status = Await.until("the installation to end by itself", Duration.ofSeconds(150), () -> {
        String s = after.get("/clusters/" + clusterId).json().getString("status");
        return s.equals("installed") || s.equals("error") || s.equals("cancelled") ? s : null;
      });
      JsonObject cluster = after.get("/clusters/" + clusterId).json();
      assertEquals("installed", status, cluster.encodePrettily());
      assertEquals(HOSTS, cluster.getJsonArray("hosts").size());
      for (Object o : cluster.getJsonArray("hosts")) {
        JsonObject h = (JsonObject) o;
        assertEquals("installed", h.getString("status"), h.encode());
        assertEquals("Done", h.getJsonObject("progress").getString("current_stage"), h.encode());
      }

      JsonArray events = Await.until("the cluster's events", Duration.ofSeconds(10), () -> {
        Api.Reply r = after.get("/events?cluster_id=" + clusterId + "&limit=-1");
        return r.status() == 200 ? r.array() : null;
      });
      Map<String, List<String>> stagesByHost = new LinkedHashMap<>();
      List<String> clusterEvents = new ArrayList<>(); // "name: message", in order
      for (Object o : events) {
        JsonObject ev = (JsonObject) o;
        if (PROGRESS_EVENT.equals(ev.getString("name"))) {
          stagesByHost.computeIfAbsent(ev.getString("host_id"), k -> new ArrayList<>()).add(reached(ev));
        } else if (ev.getString("host_id") == null) {
          clusterEvents.add(ev.getString("name") + ": " + ev.getString("message"));
        }
      }
      assertEquals(HOSTS, stagesByHost.size(), "stage events of every host: " + stagesByHost.keySet());
      for (Map.Entry<String, List<String>> e : stagesByHost.entrySet()) {
        assertStagesOnceAndForward(e.getKey(), e.getValue(), proxy.acks());
      }
      assertClusterEventsOnce(clusterEvents);
      // The installers report each stage once, in order: none may be refused. The controller reports Configuring,
      // Joined and Done from what it last read, which may be a stage the service has since passed: refused (409) as
      // upstream does, harmless, but only if the host had been acknowledged at that stage or a later one.
      List<RecordingProxy.Ack> acks = proxy.acks();
      for (RecordingProxy.Refusal r : proxy.refusals()) {
        assertTrue(r.status() == 409 && CONTROLLER_STAGES.contains(r.stage()), "a progress report refused: " + r);
        assertTrue(acks.stream().anyMatch(a -> a.hostId().equals(r.hostId())
            && STAGE_ORDER.indexOf(a.stage()) >= STAGE_ORDER.indexOf(r.stage())), "refused before it was reached: " + r);
      }
    } finally {
      if (swarm != null) {
        swarm.stop().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
      }
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      child.close();
      CrashTest.deleteTree(dataDir);
    }
  }

  /**
   * A host's stage events: each (stage, info) once, stages never backwards, and every acknowledged report among them
   * in the order it was acknowledged.
   */
  private static void assertStagesOnceAndForward(String host, List<String> reached, List<RecordingProxy.Ack> acks) {
    assertEquals(reached.size(), new java.util.HashSet<>(reached).size(), host + " has a stage event twice: " + reached);
    int last = -1;
    for (String r : reached) {
      int rank = STAGE_ORDER.indexOf(stageOf(r));
      assertTrue(rank >= 0, host + ": unknown stage in " + r);
      assertTrue(rank >= last, host + " went back a stage: " + reached);
      last = rank;
    }
    int at = -1;
    java.util.Set<String> seen = new java.util.HashSet<>();
    for (RecordingProxy.Ack a : acks) {
      String key = a.info().isEmpty() ? a.stage() : a.stage() + ": " + a.info();
      if (!a.hostId().equals(host) || !seen.add(key)) {
        continue; // a report acknowledged again (a repeat the service accepted as a no-op) keeps its first place
      }
      int i = reached.indexOf(key);
      assertTrue(i >= 0, host + ": acknowledged '" + key + "' is not among its events " + reached);
      assertTrue(i > at, host + ": '" + key + "' is out of the acknowledged order in " + reached);
      at = i;
    }
  }

  /**
   * From the install on (where the kill fell) the cluster's path has no loop, so no event may appear twice; before
   * it validations may flap while hosts register, but a change is never recorded twice in a row.
   */
  private static void assertClusterEventsOnce(List<String> events) {
    int install = events.indexOf("cluster_prepare_installation_started: Cluster starting to prepare for installation");
    assertTrue(install >= 0, "the install started: " + events);
    // the controller uploads a snapshot of its logs every 30 s while it runs, each one an event: periodic, not a
    // change of the cluster's path (a run slower than 30 s from the first upload to installed saw two)
    List<String> fromInstall = events.subList(install, events.size()).stream()
        .filter(e -> !e.startsWith("cluster_logs_uploaded:")).toList();
    assertEquals(fromInstall.size(), new java.util.HashSet<>(fromInstall).size(),
        "a cluster event twice since the install: " + String.join("\n", fromInstall));
    Map<String, String> lastOfKind = new HashMap<>(); // validation name or "status" -> last event about it
    for (String e : events) {
      String kind = e.startsWith("cluster_status_updated") ? "status"
          : e.startsWith("cluster_validation_") ? e.split("'")[1] : null;
      if (kind != null) {
        assertNotEquals(e, lastOfKind.put(kind, e), "the same change recorded twice in a row in\n"
            + String.join("\n", events));
      }
    }
  }

  /** "Host: x, reached installation stage Writing image to disk: 33%" gives "Writing image to disk: 33%". */
  private static String reached(JsonObject event) {
    String m = event.getString("message");
    String marker = "reached installation stage ";
    int i = m.indexOf(marker);
    assertTrue(i >= 0, "a stage event without its stage: " + m);
    return m.substring(i + marker.length());
  }

  private static String stageOf(String reached) {
    int colon = reached.indexOf(": ");
    return colon < 0 ? reached : reached.substring(0, colon);
  }

  /** The agent token the infra-env's discovery image carries: agent.env in its discovery Ignition, as a host finds it. */
  static String agentToken(Api api, String infraEnvId) {
    JsonObject ign = new JsonObject(api.get("/infra-envs/" + infraEnvId + "/downloads/files?file_name=discovery.ign").body());
    for (Object o : ign.getJsonObject("storage").getJsonArray("files")) {
      JsonObject f = (JsonObject) o;
      if ("/etc/rendezvous/agent.env".equals(f.getString("path"))) {
        String source = f.getJsonObject("contents").getString("source");
        String env = new String(java.util.Base64.getDecoder().decode(source.substring(source.indexOf(',') + 1)),
            StandardCharsets.UTF_8);
        for (String line : env.split("\n")) {
          if (line.startsWith("RDV_AGENT_TOKEN=")) {
            return line.substring("RDV_AGENT_TOKEN=".length()).strip();
          }
        }
      }
    }
    throw new AssertionError("no RDV_AGENT_TOKEN in the discovery Ignition of " + infraEnvId);
  }
}
