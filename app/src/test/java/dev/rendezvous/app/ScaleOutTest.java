package dev.rendezvous.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.agent.fleet.FleetSwarm;
import dev.rendezvous.bus.EmbeddedKafka;
import dev.rendezvous.service.db.EmbeddedPostgresServer;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Row;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 13's scale-out on this machine: two instances of the program against one PostgreSQL and one Kafka (real
 * servers started beside them, as external ones would be). One instance runs in this JVM, the other in its own
 * process so it can be killed like a lost machine. They share the clusters (each brain owns some partitions), any
 * gateway delivers plans made by either brain, and after `kill -9` of one the other takes every cluster over:
 * what the dead one acknowledged is processed, nothing twice, and new clusters install to the end through the
 * survivor alone.
 */
class ScaleOutTest {
  @TempDir Path dir;

  @Test
  void twoInstancesShareTheWorkAndTheSurvivorTakesOverAfterAKill() throws Exception {
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dir.resolve("pg"));
        EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"))) {
      Map<String, String> shared = Map.of("database-url", pg.connectionUri(), "kafka-bootstrap", kafka.bootstrapServers(),
          "agent-token-secret", "scale-out-test-agent-token-secret", "kafka-partitions", "4");
      try (Rendezvous a = TestSystem.start(dir.resolve("a"), shared)) {
        int bPort = TestSystem.freePort();
        Process b = startSecondInstance(dir.resolve("b"), bPort, shared);
        try {
          String token = Files.readString(a.adminTokenFile()).strip();
          Api viaA = new Api(a.config().apiPort(), token);
          Api viaB = new Api(bPort, token);
          Await.until("instance B ready", Duration.ofSeconds(90), () -> {
            try {
              return viaB.get("/ready").status() == 200;
            } catch (IllegalStateException notYet) {
              return false;
            }
          });

          // B answers /ready before its brain consumer joined the group: wait until both brains hold partitions,
          // or a fast swarm is handled by A alone
          Await.until("both brains assigned partitions", Duration.ofSeconds(60), () -> brainsWithPartitions(kafka) == 2);

          // clusters made on each instance, agents on each gateway, both at once; 10 clusters, so that the chance of
          // none of them hashing to B's partitions (which would leave B idle) is 1 in 1,024

          CompletableFuture<FleetSwarm.Report> onA = CompletableFuture.supplyAsync(
              () -> swarm(a.config().apiPort(), token, "so-a", 5, 3, false));
          CompletableFuture<FleetSwarm.Report> onB = CompletableFuture.supplyAsync(
              () -> swarm(bPort, token, "so-b", 5, 3, false));
          FleetSwarm.Report ra = onA.get(180, TimeUnit.SECONDS);
          FleetSwarm.Report rb = onB.get(180, TimeUnit.SECONDS);
          assertEquals(5, ra.clustersByStatus().getOrDefault("ready", 0), "A's clusters: " + ra.clustersByStatus());
          assertEquals(5, rb.clustersByStatus().getOrDefault("ready", 0), "B's clusters: " + rb.clustersByStatus());
          // the work was shared: each brain handled events of its own partitions
          double handledA = SwarmTest.value(viaA.get("/metrics").body(), "rdv_bus_events_handled_total{group=\"rdv-service-brain\"}");
          double handledB = SwarmTest.value(viaB.get("/metrics").body(), "rdv_bus_events_handled_total{group=\"rdv-service-brain\"}");
          assertTrue(handledA > 0 && handledB > 0, "both brains worked: A " + handledA + ", B " + handledB);

          // registrations B acknowledges, then B dies at once
          List<String[]> acknowledged = new ArrayList<>();
          for (String cluster : rb.clusterIds()) {
            String infraEnv = viaA.get("/infra-envs?cluster_id=" + cluster).array().getJsonObject(0).getString("id");
            String host = UUID.randomUUID().toString();
            Api.Reply r = Api.agent(bPort, a.agentToken(infraEnv, cluster)).post("/infra-envs/" + infraEnv + "/hosts",
                new JsonObject().put("host_id", host).put("discovery_agent_version", "scale-out"));
            assertEquals(201, r.status(), r.toString());
            acknowledged.add(new String[] {infraEnv, host});
          }
          b.destroyForcibly();
          Files.copy(dir.resolve("b").resolve("b.log"), Path.of("target", "scale-out-b.log"),
              java.nio.file.StandardCopyOption.REPLACE_EXISTING);
          assertTrue(b.waitFor(30, TimeUnit.SECONDS), "B is gone");

          // A takes B's partitions over: what B acknowledged shows up, through A
          for (String[] ack : acknowledged) {
            Await.until("host " + ack[1] + " acknowledged by the dead instance", Duration.ofSeconds(90),
                () -> viaA.get("/infra-envs/" + ack[0] + "/hosts/" + ack[1]).status() == 200);
          }
          // and new clusters, on every partition, install to the end through A alone
          FleetSwarm.Report after = swarm(a.config().apiPort(), token, "so-after", 4, 1, true);
          assertTrue(after.allInstalled(), "after the kill: " + after.clustersByStatus());

          // no transition lost or applied twice
          assertStatusChainsUnbroken(a.pool(), 30);
        } finally {
          b.destroyForcibly();
        }
      }
    }
  }

  private static FleetSwarm.Report swarm(int port, String token, String prefix, int clusters, int hosts, boolean install) {
    try {
      return Swarms.run(port, token, prefix, clusters, hosts, install);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** The program's own launcher class in a second JVM, on this test's classpath. */
  private static Process startSecondInstance(Path dataDir, int apiPort, Map<String, String> shared) throws Exception {
    List<String> cmd = ChildJvm.command("512m", "-cp", System.getProperty("java.class.path"),
        "dev.rendezvous.app.RendezvousMain", "run", "--data-dir=" + dataDir, "--api-port=" + apiPort,
        "--image-port=" + TestSystem.freePort(), "--brain-monitor-interval-ms=200", "--hw-min-cpu-cores=4",
        "--agent-jar=" + Path.of("..", "agent", "target", "rendezvous-agent.jar").toAbsolutePath().normalize());
    shared.forEach((k, v) -> cmd.add("--" + k + "=" + v));
    Files.createDirectories(dataDir);
    return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dataDir.resolve("b.log").toFile()).start();
  }

  /**
   * No host status change lost or applied twice: each host's status events form one chain (every change starts where
   * the previous one ended); more than {@code atLeast} changes checked.
   */
  static void assertStatusChainsUnbroken(io.vertx.sqlclient.Pool pool, int atLeast) throws Exception {
    Map<String, String> lastStatus = new HashMap<>();
    int changes = 0;
    for (Row r : pool.query("SELECT host_id, props->>'src_status' AS src, props->>'new_status' AS dst"
        + " FROM events WHERE name = 'host_status_updated' ORDER BY seq").execute().await(30, TimeUnit.SECONDS)) {
      String host = String.valueOf(r.getUUID("host_id"));
      String previous = lastStatus.put(host, r.getString("dst"));
      if (previous != null) {
        assertEquals(previous, r.getString("src"), "host " + host + ": a status change that does not start"
            + " where the previous one ended (lost or repeated)");
      }
      changes++;
    }
    assertTrue(changes > atLeast, changes + " status changes checked");
  }

  /** How many members of the brain's consumer group have partitions assigned. */
  static int brainsWithPartitions(EmbeddedKafka kafka) {
    try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(
        Map.of(org.apache.kafka.clients.admin.AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()))) {
      var group = admin.describeConsumerGroups(List.of("rdv-service-brain")).all().get(10, TimeUnit.SECONDS)
          .get("rdv-service-brain");
      return (int) group.members().stream().filter(m -> !m.assignment().topicPartitions().isEmpty()).count();
    } catch (Exception e) {
      return 0;
    }
  }
}
