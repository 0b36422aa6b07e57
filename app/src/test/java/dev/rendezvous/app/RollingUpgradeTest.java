package dev.rendezvous.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.agent.fleet.FleetSwarm;
import dev.rendezvous.bus.EmbeddedKafka;
import dev.rendezvous.service.db.EmbeddedPostgresServer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A rolling upgrade (docs/scale-out.md): an instance of the previous release (built from its git tag by
 * scripts/build-release; the releases are listed in
 * scripts/releases.txt) and one of this build share one PostgreSQL and one Kafka while a fleet installs through
 * both; mid-install the old instance is stopped and an instance of this build takes its port. Every cluster reaches
 * {@code installed}, what the old instance acknowledged just before it stopped is there, and no host status change is
 * lost or applied twice.
 */
class RollingUpgradeTest {
  @TempDir Path dir;

  @Test
  void aFleetMidInstallGoesOnWhileTheOldReleaseIsReplacedByThisBuild() throws Exception {
    // the newest release of scripts/releases.txt that is not this commit, as ./rendezvous test prebuilds it
    Path build = buildOf("--previous");
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dir.resolve("pg"));
        EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"))) {
      Map<String, String> shared = Map.of("database-url", pg.connectionUri(), "kafka-bootstrap", kafka.bootstrapServers(),
          "agent-token-secret", "rolling-upgrade-test-agent-token-secret", "kafka-partitions", "4");
      int oldPort = TestSystem.freePort();
      // the old release first: the schema is its own, then this build's migrations expand it
      Process old = instance(List.of("-cp", classpath(build)), dir.resolve("old"), oldPort, shared);
      Process replacement = null;
      try {
        awaitReady(oldPort, dir.resolve("old"));
        try (Rendezvous current = TestSystem.start(dir.resolve("current"), shared)) {
          String token = Files.readString(current.adminTokenFile()).strip();
          Api viaCurrent = new Api(current.config().apiPort(), token);
          Await.until("both brains assigned partitions", Duration.ofSeconds(60),
              () -> ScaleOutTest.brainsWithPartitions(kafka) == 2);
          long t0 = System.nanoTime();

          // a fleet through both instances: its agents, installers and controllers talk to the instance they were
          // given, as a site's do
          CompletableFuture<FleetSwarm.Report> throughOld = CompletableFuture.supplyAsync(
              () -> swarm(oldPort, token, "ru-old", 4, 3));
          CompletableFuture<FleetSwarm.Report> throughCurrent = CompletableFuture.supplyAsync(
              () -> swarm(current.config().apiPort(), token, "ru-cur", 4, 1));

          // mid-install: the clusters begun through the old release are installing (their installers and controllers
          // talking to it)
          Await.until("clusters installing through the old release", Duration.ofSeconds(120),
              () -> statuses(viaCurrent, "ru-old").stream().anyMatch(s -> s.equals("installing")));
          // registrations the old instance acknowledges just before it goes (to an infra-env of their own: a host
          // that never reports would hold an installing fleet's cluster back)
          JsonObject spare = viaCurrent.post("/infra-envs", new JsonObject().put("name", "ru-acknowledged")
              .put("pull_secret", "{\"auths\":{\"x.io\":{\"auth\":\"eDp5\"}}}").put("openshift_version", "4.18")
              .put("cpu_architecture", "x86_64")).json();
          List<String> acknowledged = new ArrayList<>();
          for (int i = 0; i < 8; i++) {
            String host = UUID.randomUUID().toString();
            Api.Reply r = Api.agent(oldPort, current.agentToken(spare.getString("id"), null))
                .post("/infra-envs/" + spare.getString("id") + "/hosts",
                    new JsonObject().put("host_id", host).put("discovery_agent_version", "rolling-upgrade"));
            assertEquals(201, r.status(), r.toString());
            acknowledged.add(host);
          }
          // the upgrade of that instance: stopped (as a supervisor stops it), this build started in its place
          System.out.printf("rolling upgrade: installing at %.1f s, old release stopping%n", (System.nanoTime() - t0) / 1e9);
          old.destroy();
          assertTrue(old.waitFor(60, TimeUnit.SECONDS), "the old instance stops");
          replacement = instance(List.of("-cp", System.getProperty("java.class.path")), dir.resolve("replacement"),
              oldPort, shared);
          awaitReady(oldPort, dir.resolve("replacement"));
          System.out.printf("rolling upgrade: replacement ready at %.1f s%n", (System.nanoTime() - t0) / 1e9);

          FleetSwarm.Report a = throughOld.get(300, TimeUnit.SECONDS);
          FleetSwarm.Report b = throughCurrent.get(300, TimeUnit.SECONDS);
          System.out.printf("rolling upgrade: all installed at %.1f s (install per cluster through the old port %s, "
              + "through this build %s)%n", (System.nanoTime() - t0) / 1e9, a.installSeconds(), b.installSeconds());
          assertTrue(a.allInstalled(), "clusters begun on the old release: " + a.clustersByStatus());
          assertTrue(b.allInstalled(), "clusters on this build: " + b.clustersByStatus());
          for (String host : acknowledged) {
            Await.until("host " + host + " acknowledged by the old release", Duration.ofSeconds(60),
                () -> viaCurrent.get("/infra-envs/" + spare.getString("id") + "/hosts/" + host).status() == 200);
          }
          // no transition lost or applied twice
          ScaleOutTest.assertStatusChainsUnbroken(current.pool(), 40);
          // the old release wrote nothing this build would not read
          assertEquals(0.0, SwarmTest.value(viaCurrent.get("/metrics").body(),
              "rdv_bus_records_refused_total{group=\"rdv-service-brain\"}"));
        }
      } finally {
        old.destroyForcibly();
        if (replacement != null) {
          replacement.destroyForcibly();
          replacement.waitFor(30, TimeUnit.SECONDS);
        }
        for (String log : List.of("old", "replacement")) {
          Path p = dir.resolve(log).resolve("instance.log");
          if (Files.exists(p)) {
            Files.copy(p, Path.of("target", "rolling-upgrade-" + log + ".log"),
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
          }
        }
      }
      // neither side logged an ERROR through the upgrade (JSON lines: their output is no terminal)
      for (String log : List.of("old", "replacement")) {
        List<String> errors = Files.readAllLines(dir.resolve(log).resolve("instance.log")).stream()
            .filter(l -> l.contains("\"level\":\"ERROR\"")).toList();
        assertEquals(List.of(), errors, log + " instance's log");
      }
    }
  }

  private static Path buildOf(String release) throws IOException, InterruptedException {
    Path root = Path.of("..").toAbsolutePath().normalize();
    Process p = new ProcessBuilder(root.resolve("scripts/build-release").toString(), release).directory(root.toFile())
        .redirectError(ProcessBuilder.Redirect.INHERIT).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    assertTrue(p.waitFor(15, TimeUnit.MINUTES) && p.exitValue() == 0, "scripts/build-release " + release + " failed");
    return Path.of(out.substring(out.lastIndexOf('\n') + 1));
  }

  private static String classpath(Path build) throws IOException {
    return build.resolve("app/target/rendezvous-app.jar") + ":"
        + Files.readString(build.resolve("app/target/classpath.txt")).strip();
  }

  private static Process instance(List<String> classpath, Path dataDir, int apiPort, Map<String, String> shared)
      throws IOException {
    List<String> cmd = ChildJvm.command("512m");
    cmd.addAll(classpath);
    cmd.addAll(List.of("dev.rendezvous.app.RendezvousMain", "run", "--data-dir=" + dataDir, "--api-port=" + apiPort,
        "--image-port=" + TestSystem.freePort(), "--brain-monitor-interval-ms=200", "--hw-min-cpu-cores=4",
        "--agent-jar=" + Path.of("..", "agent", "target", "rendezvous-agent.jar").toAbsolutePath().normalize()));
    shared.forEach((k, v) -> cmd.add("--" + k + "=" + v));
    Files.createDirectories(dataDir);
    return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dataDir.resolve("instance.log").toFile())
        .start();
  }

  private static void awaitReady(int port, Path dataDir) {
    Api api = new Api(port, null);
    Await.until("instance on port " + port + " ready (log: " + dataDir.resolve("instance.log") + ")",
        Duration.ofSeconds(120), () -> {
          try {
            return api.get("/ready").status() == 200;
          } catch (IllegalStateException notYet) {
            return false;
          }
        });
    StartupLine.print("the instance of " + dataDir.getFileName(), dataDir.resolve("instance.log"));
  }

  private static List<String> statuses(Api api, String prefix) {
    List<String> out = new ArrayList<>();
    JsonArray clusters = api.get("/clusters").array();
    for (Object o : clusters) {
      if (((JsonObject) o).getString("name").startsWith(prefix)) {
        out.add(((JsonObject) o).getString("status"));
      }
    }
    return out;
  }

  private static FleetSwarm.Report swarm(int port, String token, String prefix, int clusters, int hosts) {
    try {
      return Swarms.run(port, token, prefix, clusters, hosts, true);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
