package dev.rendezvous.agent.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rendezvous.agent.AgentConfig;
import dev.rendezvous.agent.AgentSwarm;
import io.vertx.core.Vertx;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One process of a swarm spread over several ({@link SwarmProcesses}): reads one line per cluster on its standard
 * input, {@code {"args": [agent flags], "token": "...", "count": N, "boot_spread_ms": M}}, and starts that cluster's
 * dry-run agents at once; when its input ends (the swarm is done, or died) it stops them and exits. Prints nothing
 * but what goes wrong.
 */
public final class SwarmWorkerMain {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** How long the agents and their controllers get to stop once the input ends. */
  static final Duration STOP_WAIT = Duration.ofSeconds(60);

  private SwarmWorkerMain() {}

  public static void main(String[] argv) throws Exception {
    FleetSwarmMain.quietAgents();
    Vertx vertx = Vertx.vertx();
    List<AgentSwarm> swarms = new ArrayList<>();
    dev.rendezvous.agent.AgentRuntime shared = null; // one for every site this worker runs
    int exit = 0;
    try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
      String line;
      while ((line = in.readLine()) != null) {
        if (line.isBlank()) {
          continue;
        }
        JsonNode l = JSON.readTree(line);
        List<String> args = new ArrayList<>();
        l.path("args").forEach(a -> args.add(a.asText()));
        AgentConfig agents = AgentConfig.parse(args.toArray(String[]::new),
            Map.of("RDV_AGENT_TOKEN", l.path("token").asText()));
        if (shared == null) { // sized for as many agents as one process can hold (its open-file limit)
          shared = dev.rendezvous.agent.AgentRuntime.create(vertx, agents,
              (int) Math.min(1 << 20, SwarmProcesses.openFilesLimit()));
        }
        swarms.add(AgentSwarm.start(vertx, shared, agents, l.path("count").asInt(),
            Duration.ofMillis(l.path("boot_spread_ms").asLong(0))));
      }
    } catch (Exception e) {
      System.err.println("swarm worker: " + e);
      exit = 1;
    } finally {
      // an installed site's controller uploads its logs after the cluster is installed: let it, as the swarm's own
      // process does (it lives on), before this process ends; but not for ever: when the swarm was stopped (or the
      // service went away first) agents and controllers may keep retrying a service that is gone
      java.util.concurrent.CompletableFuture<?>[] ends = swarms.stream()
          .map(s -> s.stop().toCompletionStage().toCompletableFuture())
          .toArray(java.util.concurrent.CompletableFuture[]::new);
      dev.rendezvous.agent.AgentRuntime runtime = shared;
      java.util.concurrent.CompletableFuture<?> all = java.util.concurrent.CompletableFuture.allOf(ends).thenCompose(v ->
          runtime == null ? java.util.concurrent.CompletableFuture.completedFuture(null)
              : runtime.close().toCompletionStage().toCompletableFuture().thenCompose(w -> runtime.controllersClosed()));
      try {
        all.get(STOP_WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
      } catch (java.util.concurrent.TimeoutException e) {
        System.err.println("swarm worker: the agents did not stop within " + STOP_WAIT.toSeconds() + " s; exiting");
      }
      try {
        vertx.close().toCompletionStage().toCompletableFuture().get(10, java.util.concurrent.TimeUnit.SECONDS);
      } catch (java.util.concurrent.TimeoutException e) {
        System.err.println("swarm worker: Vert.x did not close within 10 s; exiting");
      }
    }
    System.exit(exit);
  }
}
