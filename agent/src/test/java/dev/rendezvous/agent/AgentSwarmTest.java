package dev.rendezvous.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rendezvous.agent.transport.GatewayDouble;
import dev.rendezvous.agent.wire.Inventory;
import dev.rendezvous.agent.wire.PostStepAction;
import dev.rendezvous.agent.wire.Step;
import dev.rendezvous.agent.wire.Steps;
import dev.rendezvous.agent.wire.WireJson;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** N dry-run agents in one JVM against the protocol double (to be replaced by the real gateway in e2e). */
class AgentSwarmTest {
  static final String IE = "5f1a3c2e-7b9d-4e61-a0c4-2d8e6f1b9a70";

  @Test
  void fortyAgentsRegisterConnectAndAnswer() throws Exception {
    Vertx vertx = Vertx.vertx();
    GatewayDouble gateway = new GatewayDouble(vertx, IE, "tok").start();
    try {
      AgentConfig base = AgentConfig.parse(new String[] {"--url", gateway.url(), "--infra-env-id", IE, "--dry-run",
          "--swarm", "40", "--backoff-base-ms", "50", "--backoff-cap-ms", "500"}, Map.of("RDV_AGENT_TOKEN", "tok"));
      AgentSwarm swarm = AgentSwarm.start(vertx, base, 40);
      gateway.await("40 websocket sessions", 15_000, g -> swarm.agents().stream().allMatch(a -> g.connected(a.hostId())));
      for (var a : swarm.agents()) {
        gateway.queueSteps(a.hostId(), new Steps(0, PostStepAction.CONTINUE, List.of(new Step("inventory", "inventory-" + a.hostId().substring(0, 8), List.of(a.hostId())))));
      }
      gateway.await("40 inventories", 15_000, g -> g.replies().size() == 40);
      Set<String> ips = gateway.replies().stream()
          .map(r -> WireJson.read(r.reply().output(), Inventory.class).interfaces().get(0).ipv4Addresses().get(0))
          .collect(Collectors.toSet());
      assertEquals(40, ips.size(), "each simulated host has its own address");
      assertEquals(40, gateway.registrations().stream().map(r -> r.path("host_id").asText()).distinct().count());

      // told to exit (as a host being bound is), each member's agent starts again and registers again, as
      // systemd's Restart=always brings a real host's agent back
      for (var a : swarm.agents()) {
        gateway.queueSteps(a.hostId(), new Steps(0, PostStepAction.EXIT, List.of()));
      }
      gateway.await("every member registered twice", 15_000, g -> g.registrations().size() == 80);
      assertEquals(40, gateway.registrations().stream().map(r -> r.path("host_id").asText()).distinct().count(),
          "the same hosts");
      org.junit.jupiter.api.Assertions.assertFalse(swarm.allEnded().isComplete(), "restarted, not ended");
      swarm.stop().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      swarm.allEnded().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    } finally {
      gateway.close();
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  /**
   * Sites of one swarm process share one runtime: a stopped site's agents end while the other's go on answering on
   * the same runtime, which only its owner closes.
   */
  @Test
  void swarmsOnASharedRuntimeStopAloneAndLeaveItOpen() throws Exception {
    Vertx vertx = Vertx.vertx();
    String ie2 = "6e2b4d3f-8c0e-4f72-b1d5-3e9f7a2c0b81";
    GatewayDouble first = new GatewayDouble(vertx, IE, "tok").start();
    GatewayDouble second = new GatewayDouble(vertx, ie2, "tok2").start();
    AgentConfig one = AgentConfig.parse(new String[] {"--url", first.url(), "--infra-env-id", IE, "--dry-run",
        "--swarm", "2", "--backoff-base-ms", "50", "--backoff-cap-ms", "500"}, Map.of("RDV_AGENT_TOKEN", "tok"));
    AgentConfig two = AgentConfig.parse(new String[] {"--url", second.url(), "--infra-env-id", ie2, "--dry-run",
        "--swarm", "2", "--backoff-base-ms", "50", "--backoff-cap-ms", "500"}, Map.of("RDV_AGENT_TOKEN", "tok2"));
    AgentRuntime shared = AgentRuntime.create(vertx, one, 4);
    try {
      AgentSwarm siteOne = AgentSwarm.start(vertx, shared, one, 2, java.time.Duration.ZERO);
      AgentSwarm siteTwo = AgentSwarm.start(vertx, shared, two, 2, java.time.Duration.ZERO);
      first.await("site one's 2 registrations", 15_000, g -> g.registrations().size() >= 2);
      second.await("site two's 2 registrations", 15_000, g -> g.registrations().size() >= 2);
      siteOne.stop().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      siteOne.allEnded().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      org.junit.jupiter.api.Assertions.assertTrue(siteOne.controllersClosed().isDone(), "the owner closes a shared runtime");
      for (var a : siteTwo.agents()) {
        second.queueSteps(a.hostId(), new Steps(0, PostStepAction.CONTINUE, List.of(new Step("inventory",
            "inventory-" + a.hostId().substring(0, 8), List.of(a.hostId())))));
      }
      second.await("site two's 2 inventories after site one stopped", 15_000, g -> g.replies().size() == 2);
      siteTwo.stop().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    } finally {
      shared.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      first.close();
      second.close();
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void agentsBootOneAfterTheOtherOverTheSpreadAndOnesNotBootedYetNeverStartAfterStop() throws Exception {
    Vertx vertx = Vertx.vertx();
    GatewayDouble gateway = new GatewayDouble(vertx, IE, "tok").start();
    try {
      AgentConfig base = AgentConfig.parse(new String[] {"--url", gateway.url(), "--infra-env-id", IE, "--dry-run",
          "--swarm", "4", "--backoff-base-ms", "50", "--backoff-cap-ms", "500"}, Map.of("RDV_AGENT_TOKEN", "tok"));
      long t0 = System.nanoTime();
      // four agents over 3 s: at 0, 0.75, 1.5 and 2.25 s
      AgentSwarm swarm = AgentSwarm.start(vertx, base, 4, java.time.Duration.ofSeconds(3));
      gateway.await("the first registration", 5_000, g -> g.registrations().size() >= 1);
      assertEquals(1, gateway.registrations().size(), "one booted at once, the others later");
      gateway.await("four registrations", 10_000, g -> g.registrations().size() == 4);
      long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
      org.junit.jupiter.api.Assertions.assertTrue(ms >= 2_250, "the last booted 2.25 s after the first, not at " + ms);
      swarm.stop().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);

      // stopped before the others booted: they never register
      AgentSwarm late = AgentSwarm.start(vertx, AgentConfig.parse(new String[] {"--url", gateway.url(), "--infra-env-id",
          IE, "--dry-run", "--swarm", "2"}, Map.of("RDV_AGENT_TOKEN", "tok")), 2,
          java.time.Duration.ofSeconds(2));
      late.stop().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      Thread.sleep(1_500); // past the second agent's boot
      late.allEnded().toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
      org.junit.jupiter.api.Assertions.assertTrue(gateway.registrations().size() <= 5,
          "at most the first of the stopped swarm registered: " + gateway.registrations().size());
    } finally {
      gateway.close();
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }
}
