package dev.rendezvous.app;

import dev.rendezvous.agent.AgentConfig;
import dev.rendezvous.agent.AgentSwarm;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * A node script of {@code src/test/uilib} (upstream's UI library, or the served UI in Chromium) run against the
 * program, speaking JSON lines on its stdout: {@code {"agents": {infraEnv, cluster, hosts, cidr?}}} boots that many
 * dry-run agents into the infra-env (with its agent token, as the discovery image carries it), {@code {"summary"}}
 * and {@code {"fatal"}} end it; every line goes to {@code stdout} and to {@code onMessage}. Stderr goes to
 * {@code node-stderr.log} beside it. The agents are stopped when the script ends.
 */
final class NodeFlow {
  static final Path UILIB = Path.of("src", "test", "uilib").toAbsolutePath();

  /** How it ended: its summary or why not ({@code fatal}), its exit value, or that it ran out of time. */
  record Result(JsonObject summary, String fatal, int exit, boolean timedOut) {}

  private NodeFlow() {}

  static Result run(Rendezvous system, String script, List<String> args, Path stdout, Duration timeout,
      Consumer<JsonObject> onMessage) throws Exception {
    int port = system.config().apiPort();
    List<String> command = new ArrayList<>(List.of("node", UILIB.resolve(script).toString()));
    command.addAll(args);
    Process node = new ProcessBuilder(command)
        .redirectError(stdout.resolveSibling("node-stderr.log").toFile()).start();
    AtomicReference<JsonObject> summary = new AtomicReference<>();
    AtomicReference<String> fatal = new AtomicReference<>();
    List<AgentSwarm> swarms = new CopyOnWriteArrayList<>(); // added by the reader thread
    Vertx vertx = Vertx.vertx();
    try (BufferedReader lines = new BufferedReader(new InputStreamReader(node.getInputStream(), StandardCharsets.UTF_8));
        var log = Files.newBufferedWriter(stdout)) {
      Thread reader = new Thread(() -> {
        try {
          for (String line; (line = lines.readLine()) != null; ) {
            log.write(line + "\n");
            log.flush();
            JsonObject m = line.startsWith("{") ? new JsonObject(line) : new JsonObject();
            if (m.containsKey("agents")) {
              JsonObject a = m.getJsonObject("agents");
              List<String> flags = new ArrayList<>(List.of("--url", "http://127.0.0.1:" + port,
                  "--infra-env-id", a.getString("infraEnv"), "--dry-run", "--swarm", a.getInteger("hosts").toString()));
              if (a.getString("cidr") != null) {
                flags.addAll(List.of("--dry-run-cidr", a.getString("cidr")));
              }
              AgentConfig agents = AgentConfig.parse(flags.toArray(String[]::new),
                  Map.of("RDV_AGENT_TOKEN", system.agentToken(a.getString("infraEnv"), a.getString("cluster"))));
              swarms.add(AgentSwarm.start(vertx, agents, a.getInteger("hosts")));
            } else if (m.containsKey("summary")) {
              summary.set(m.getJsonObject("summary"));
            } else if (m.containsKey("fatal")) {
              fatal.set(m.getString("fatal"));
            }
            onMessage.accept(m);
          }
        } catch (Exception e) {
          fatal.compareAndSet(null, "reading the script's output: " + e);
        }
      }, "node-flow-reader");
      reader.start();
      if (!node.waitFor(timeout.toSeconds(), TimeUnit.SECONDS)) {
        return new Result(null, null, -1, true);
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
    return new Result(summary.get(), fatal.get(), node.exitValue(), false);
  }

  static boolean onPath(String command) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      if (Files.isExecutable(Path.of(dir, command))) {
        return true;
      }
    }
    return false;
  }
}
