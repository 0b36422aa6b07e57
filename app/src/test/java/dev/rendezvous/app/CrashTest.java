package dev.rendezvous.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.bus.auth.AgentTokens;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * kill -9 of the whole program (a child JVM, with its embedded PostgreSQL and Kafka) at a random point while users
 * create clusters and agents register and report; then the same command on the same data directory. Everything
 * that was answered 2xx before the kill is there after the restart, exactly once: clusters, hosts, each host's
 * last acknowledged inventory (or the one after it, whose answer the kill may have eaten), and one registration
 * event per host.
 */
class CrashTest {
  private static final String SECRET = "crash-test-agent-token-secret";

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {11, 29})
  void whatWasAcknowledgedSurvivesAKill(long seed) throws Exception {
    Random random = new Random(seed);
    Path dataDir = Files.createTempDirectory("rdv-crash-");
    Map<String, Integer> ackedRound = new ConcurrentHashMap<>(); // host id -> last inventory round answered 204
    List<String> ackedClusters = java.util.Collections.synchronizedList(new ArrayList<>());
    String infraEnvId;
    String clusterId;
    String token;
    try (Child first = Child.start(dataDir)) {
      token = Files.readString(dataDir.resolve("admin-token")).strip();
      Api api = new Api(first.port, token);
      clusterId = api.post("/clusters", Api.cluster("crash")).json().getString("id");
      infraEnvId = api.post("/infra-envs", Api.infraEnv("crash-ie", clusterId)).json().getString("id");
      Api agent = Api.agent(first.port, AgentTokens.issue(SECRET, infraEnvId, clusterId));
      AtomicBoolean stop = new AtomicBoolean();
      ExecutorService load = Executors.newFixedThreadPool(5);
      for (int w = 0; w < 4; w++) {
        int worker = w;
        load.submit(() -> agentLoad(agent, infraEnvId, worker, stop, ackedRound));
      }
      load.submit(() -> {
        for (int i = 0; !stop.get(); i++) {
          try {
            Api.Reply r = api.post("/clusters", Api.cluster("crash-" + i));
            if (r.status() == 201) {
              ackedClusters.add(r.json().getString("id"));
            }
          } catch (RuntimeException killed) {
            return;
          }
        }
      });
      Thread.sleep(1000 + random.nextInt(3000)); // the load runs a random while, then the kill
      first.kill();
      stop.set(true);
      load.shutdown();
      assertTrue(load.awaitTermination(60, TimeUnit.SECONDS));
    }
    assertTrue(ackedRound.size() >= 4, "the load did something before the kill: " + ackedRound);

    try (Child second = Child.start(dataDir)) {
      Api api = new Api(second.port, token);
      assertEquals("crash", api.get("/clusters/" + clusterId).json().getString("name"));
      for (String id : ackedClusters) {
        assertEquals(200, api.get("/clusters/" + id).status(), "acknowledged cluster " + id);
      }
      for (Map.Entry<String, Integer> e : ackedRound.entrySet()) {
        String host = e.getKey();
        int acked = e.getValue();
        // the restarted brain first works through what the bus kept: on a loaded 2-core machine that can take a while
        JsonObject h;
        try {
          h = Await.until("host " + host + " with its inventory", Duration.ofSeconds(120), () -> {
            Api.Reply r = api.get("/infra-envs/" + infraEnvId + "/hosts/" + host);
            if (r.status() != 200 || (acked >= 0 && r.json().getString("inventory", "").isEmpty())) {
              return null;
            }
            JsonObject json = r.json();
            return acked < 0 || round(json) >= acked ? json : null;
          });
        } catch (AssertionError timedOut) {
          // what the restarted system says about it: the host as stored, and the brain's bus figures
          Api.Reply r = api.get("/infra-envs/" + infraEnvId + "/hosts/" + host);
          String stored = r.status() != 200 ? r.status() + " " + r.body() : "status " + r.json().getString("status")
              + ", inventory round " + (r.json().getString("inventory", "").isEmpty() ? "none" : round(r.json()));
          String bus = new Api(second.port, null).get("/metrics").body().lines()
              .filter(l -> l.startsWith("rdv_bus_") || l.startsWith("rdv_brain")).collect(java.util.stream.Collectors.joining("\n"));
          throw new AssertionError(timedOut.getMessage() + "; acknowledged round " + acked + "; stored: " + stored
              + "\n" + bus, timedOut);
        }
        if (acked >= 0) {
          int stored = round(h);
          assertTrue(stored == acked || stored == acked + 1, host + ": acknowledged round " + acked + ", stored " + stored);
        }
      }
      JsonArray events = api.get("/events?cluster_id=" + clusterId + "&limit=-1").array();
      Map<String, Integer> registrations = new java.util.HashMap<>();
      for (Object o : events) {
        JsonObject ev = (JsonObject) o;
        if ("host_registration_succeeded".equals(ev.getString("name"))) {
          registrations.merge(ev.getString("host_id"), 1, Integer::sum);
        }
      }
      for (String host : ackedRound.keySet()) {
        Await.until("the registration event of " + host, Duration.ofSeconds(30), () -> {
          JsonArray all = api.get("/events?cluster_id=" + clusterId + "&host_id=" + host + "&limit=-1").array();
          return all.stream().anyMatch(x -> "host_registration_succeeded".equals(((JsonObject) x).getString("name")));
        });
        assertTrue(registrations.getOrDefault(host, 0) <= 1, host + " registered twice: " + registrations);
      }
      assertEquals(201, api.post("/clusters", Api.cluster("after-crash")).status(), "the restarted system works");
    } finally {
      keepLogs(dataDir, "seed-" + seed);
      deleteTree(dataDir);
    }
  }

  /** The children's logs, kept under target/ so a failure can be read after the data directory is gone. */
  static void keepLogs(Path dataDir, String name) throws IOException {
    Path to = Path.of("target", "crash-logs", name);
    Files.createDirectories(to);
    try (var files = Files.list(dataDir)) {
      for (Path f : files.filter(x -> x.getFileName().toString().endsWith(".log")).toList()) {
        Files.copy(f, to.resolve(f.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      }
    }
  }

  /** One simulated agent after another: register, then inventories whose hostname carries the round. */
  private static void agentLoad(Api agent, String infraEnvId, int worker, AtomicBoolean stop, Map<String, Integer> acked) {
    for (int n = 0; !stop.get(); n++) {
      String host = UUID.randomUUID().toString();
      try {
        Api.Reply reg = agent.post("/infra-envs/" + infraEnvId + "/hosts",
            new JsonObject().put("host_id", host).put("discovery_agent_version", "crash-test"));
        if (reg.status() != 201) {
          continue;
        }
        acked.put(host, -1);
        for (int round = 0; round < 5 && !stop.get(); round++) {
          JsonObject inv = new JsonObject(GatewayDouble.inventory(worker * 100 + n % 100, 4));
          inv.put("hostname", "w" + worker + "-n" + n + "-r" + round);
          Api.Reply r = agent.post("/infra-envs/" + infraEnvId + "/hosts/" + host + "/instructions",
              new JsonObject().put("step_type", "inventory").put("step_id", "inventory-" + round).put("exit_code", 0)
                  .put("output", inv.encode()));
          if (r.status() == 204) {
            acked.put(host, round);
          }
        }
      } catch (RuntimeException killed) {
        return; // connection refused or reset: the program is gone
      }
    }
  }

  private static int round(JsonObject host) {
    String hostname = new JsonObject(host.getString("inventory")).getString("hostname");
    return Integer.parseInt(hostname.substring(hostname.lastIndexOf("-r") + 2));
  }

  /** The program's own main, as `./rendezvous run` starts it, in a JVM of its own (C1 only, {@link ChildJvm}). */
  static final class Child implements AutoCloseable {
    final Process process;
    final int port;

    private Child(Process process, int port) {
      this.process = process;
      this.port = port;
    }

    static Child start(Path dataDir) throws Exception {
      return start(dataDir, TestSystem.freePort());
    }

    /** On a given API port: a restart on the same port lets agents that outlived the kill find the system again. */
    static Child start(Path dataDir, int port) throws Exception {
      Path log = dataDir.resolve("child-" + System.nanoTime() + ".log");
      Process p = new ProcessBuilder(ChildJvm.command("768m", "-cp", System.getProperty("java.class.path"),
          RendezvousMain.class.getName(), "run", "--data-dir=" + dataDir, "--api-port=" + port,
          "--image-port=" + TestSystem.freePort(), "--kafka-partitions=4", "--brain-monitor-interval-ms=200",
          "--agent-token-secret=" + SECRET))
          .redirectErrorStream(true).redirectOutput(log.toFile()).start();
      Child child = new Child(p, port);
      try {
        Await.until("the child system ready (log " + log + ")", Duration.ofSeconds(120), () -> {
          if (!p.isAlive()) {
            // the data dir (and the log in it) goes with the test: the log's end says why
            throw new AssertionError("the child system exited with " + p.exitValue() + "; the end of its log:\n"
                + tail(log, 40));
          }
          try {
            return new Api(port, null).get("/ready").status() == 200;
          } catch (RuntimeException notYet) {
            return false;
          }
        });
      } catch (RuntimeException | Error e) {
        child.kill();
        throw e;
      }
      StartupLine.print("the child", log);
      return child;
    }

    private static String tail(Path log, int lines) {
      try {
        List<String> all = Files.readAllLines(log);
        return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
      } catch (IOException | RuntimeException e) {
        return "(" + log + " unreadable: " + e + ")";
      }
    }

    void kill() throws InterruptedException {
      process.destroyForcibly(); // SIGKILL: no shutdown hook runs
      process.waitFor(30, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws Exception {
      if (process.isAlive()) {
        process.destroy(); // SIGTERM: a clean stop
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
          kill();
        }
      }
    }
  }

  static void deleteTree(Path dir) throws IOException {
    try (var walk = Files.walk(dir)) {
      walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
