package dev.rendezvous.agent.bench;

import dev.rendezvous.agent.AgentConfig;
import dev.rendezvous.agent.AgentSwarm;
import dev.rendezvous.agent.transport.GatewayDouble;
import dev.rendezvous.agent.transport.HostAgent;
import dev.rendezvous.agent.wire.PostStepAction;
import dev.rendezvous.agent.wire.Step;
import dev.rendezvous.agent.wire.Steps;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * How many dry-run agents one JVM carries, and websocket vs HTTP long-poll (the baseline) for step
 * round trips, against the protocol double in the same process (so the figures include the double's
 * cost; the real gateway replaces it later).
 *
 * <pre>
 * mvn -o -q -pl agent -Pbench test-compile exec:java -Dexec.mainClass=dev.rendezvous.agent.bench.SwarmBench \
 *     -Dexec.args="500 5"
 * </pre>
 * args: agents (500), rounds (5). Each round sends every agent one connectivity-check (a fresh request,
 * so de-duplication does not drop replies) and waits for all replies.
 */
public final class SwarmBench {
  static final String IE = "5f1a3c2e-7b9d-4e61-a0c4-2d8e6f1b9a70";

  record Result(String transport, int agents, double connectSeconds, double repliesPerSecond, long heapMb) {}

  public static void main(String[] args) throws Exception {
    int agents = args.length > 0 ? Integer.parseInt(args[0]) : 500;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    Result http = run("http", agents, rounds);
    Result ws = run("websocket", agents, rounds);
    for (Result r : List.of(http, ws)) {
      System.out.printf("%-9s agents=%d connect=%.2fs replies/s=%.0f heap-used=%dMB%n", r.transport, r.agents,
          r.connectSeconds, r.repliesPerSecond, r.heapMb);
    }
    System.out.printf("websocket/http: replies/s ratio %.2f, connect-time ratio %.2f%n",
        ws.repliesPerSecond / http.repliesPerSecond, ws.connectSeconds / http.connectSeconds);
    System.exit(0);
  }

  static Result run(String transport, int agents, int rounds) throws Exception {
    Vertx vertx = Vertx.vertx();
    GatewayDouble gateway = new GatewayDouble(vertx, IE, "tok").start();
    AgentConfig base = AgentConfig.parse(new String[] {"--url", gateway.url(), "--infra-env-id", IE, "--dry-run",
        "--swarm", String.valueOf(agents), "--transport", transport, "--long-poll-wait-seconds", "30",
        "--backoff-base-ms", "100", "--backoff-cap-ms", "2000"}, Map.of("RDV_AGENT_TOKEN", "tok"));
    long t0 = System.nanoTime();
    AgentSwarm swarm = AgentSwarm.start(vertx, base, agents);
    List<HostAgent> all = swarm.agents();
    if (transport.equals("websocket")) {
      gateway.await("all connected", 120_000, g -> all.stream().allMatch(a -> g.connected(a.hostId())));
    } else {
      gateway.await("all polling", 120_000, g -> g.polls() >= agents);
    }
    double connect = (System.nanoTime() - t0) / 1e9;
    long t1 = System.nanoTime();
    for (int r = 0; r < rounds; r++) {
      String request = "[{\"host_id\":\"peer\",\"nics\":[{\"name\":\"ens3\",\"mac\":\"02:d7:ff:ff:ff:ff\","
          + "\"ip_addresses\":[\"10.200.250." + r + "/16\"]}]}]";
      for (HostAgent a : all) {
        gateway.queueSteps(a.hostId(), new Steps(0, PostStepAction.CONTINUE,
            List.of(new Step("connectivity-check", "connectivity-check-" + r + "-" + a.hostId(), List.of(request)))));
      }
      int expected = agents * (r + 1);
      gateway.await("round " + r, 120_000, g -> g.replies().size() >= expected);
    }
    double rps = agents * (double) rounds / ((System.nanoTime() - t1) / 1e9);
    Runtime rt = Runtime.getRuntime();
    long heap = (rt.totalMemory() - rt.freeMemory()) >> 20;
    swarm.stop().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    gateway.close();
    vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    return new Result(transport, agents, connect, rps, heap);
  }
}
