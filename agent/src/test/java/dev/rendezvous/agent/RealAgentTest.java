package dev.rendezvous.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.rendezvous.agent.netcheck.Ipv4Network;
import dev.rendezvous.agent.step.HostRoot;
import dev.rendezvous.agent.step.ProcessCommandRunner;
import dev.rendezvous.agent.transport.GatewayDouble;
import dev.rendezvous.agent.transport.HostAgent;
import dev.rendezvous.agent.wire.Inventory;
import dev.rendezvous.agent.wire.PostStepAction;
import dev.rendezvous.agent.wire.Step;
import dev.rendezvous.agent.wire.StepModels;
import dev.rendezvous.agent.wire.StepReply;
import dev.rendezvous.agent.wire.Steps;
import dev.rendezvous.agent.wire.WireJson;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The real agent of this machine (identity, executors, commands) over the websocket to the protocol
 * double (docs/agent-protocol.md; the real gateway replaces it in the end-to-end test).
 */
class RealAgentTest {
  static final String IE = "5f1a3c2e-7b9d-4e61-a0c4-2d8e6f1b9a70";

  @Test
  void realStepsOverTheWebsocket() throws Exception {
    ProcessCommandRunner commands = new ProcessCommandRunner();
    assumeTrue(commands.available("lsblk") && commands.available("ip"), "lsblk and ip are installed");
    Optional<String> gatewayIp = defaultGateway();
    Vertx vertx = Vertx.vertx();
    GatewayDouble gateway = new GatewayDouble(vertx, IE, "tok").start();
    AgentRuntime runtime = null;
    try {
      AgentConfig config = AgentConfig.parse(new String[] {"--url", gateway.url(), "--infra-env-id", IE},
          Map.of("RDV_AGENT_TOKEN", "tok"));
      runtime = AgentRuntime.create(vertx, config, 1);
      HostAgent agent = runtime.realAgent(config);
      assertEquals(HostIdentity.resolve(HostRoot.SYSTEM, Optional.empty()).hostId(), agent.hostId());
      agent.start();
      gateway.await("websocket session", 10_000, g -> g.connected(agent.hostId()));

      List<Step> steps = new java.util.ArrayList<>(List.of(
          new Step("inventory", "inventory-r1", List.of(agent.hostId())),
          new Step("domain-resolution", "domain-resolution-r1", List.of("{\"domains\":[{\"domain_name\":\"localhost\"}]}")),
          new Step("ntp-synchronizer", "ntp-synchronizer-r1", List.of("{\"ntp_source\":\"\"}")),
          new Step("container-image-availability", "container-image-availability-r1",
              List.of("{\"images\":[\"quay.io/example/image:1\"],\"timeout\":30}"))));
      if (gatewayIp.isPresent()) {
        Ipv4Network slash29 = Ipv4Network.parse(gatewayIp.get() + "/29");
        steps.add(new Step("free-network-addresses", "free-network-addresses-r1",
            List.of("[\"" + new Ipv4Network(slash29.network(), 29) + "\"]")));
      }
      gateway.queueSteps(agent.hostId(), new Steps(0, PostStepAction.CONTINUE, steps));
      gateway.await("all replies", 60_000, g -> g.replies().size() == steps.size());

      StepReply inv = reply(gateway, "inventory-r1");
      assertEquals(0, inv.exitCode(), inv.error());
      Inventory inventory = WireJson.read(inv.output(), Inventory.class);
      LoggerFactory.getLogger(RealAgentTest.class).info("inventory of this machine: {} bytes, {} disks, {} interfaces",
          inv.output().length(), inventory.disks().size(), inventory.interfaces().size());
      assertFalse(inventory.interfaces().isEmpty());
      assertEquals(0, reply(gateway, "domain-resolution-r1").exitCode());
      StepReply ntp = reply(gateway, "ntp-synchronizer-r1");
      assertTrue(ntp.exitCode() == 0 || ntp.error().contains("not available"), ntp.toString());
      StepReply images = reply(gateway, "container-image-availability-r1");
      if (!commands.available("podman")) {
        assertEquals(2, images.exitCode(), images.toString());
        assertTrue(images.error().contains("no container runtime"), images.error());
      }
      if (gatewayIp.isPresent()) {
        StepReply free = reply(gateway, "free-network-addresses-r1");
        assertEquals(0, free.exitCode(), free.error());
        List<StepModels.FreeNetworkAddresses> nets =
            WireJson.read(free.output(), WireJson.listOf(StepModels.FreeNetworkAddresses.class));
        assertFalse(nets.get(0).freeAddresses().contains(gatewayIp.get()), "the default gateway answers: " + nets);
      }
    } finally {
      if (runtime != null) {
        runtime.close();
      }
      gateway.close();
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  static StepReply reply(GatewayDouble g, String stepId) {
    return g.replies().stream().map(GatewayDouble.Received::reply).filter(r -> r.stepId().equals(stepId))
        .findFirst().orElseThrow();
  }

  /** The IPv4 default gateway of this machine, when it has one and ping/arping can probe it. */
  static Optional<String> defaultGateway() {
    ProcessCommandRunner c = new ProcessCommandRunner();
    if (!c.available("ping") && !c.available("arping")) {
      return Optional.empty();
    }
    return HostRoot.SYSTEM.readRaw("/proc/net/route").flatMap(t -> t.lines().skip(1)
        .map(l -> l.trim().split("\\s+"))
        .filter(f -> f.length > 2 && f[1].equals("00000000") && !f[2].equals("00000000"))
        .map(f -> {
          long v = Long.parseLong(f[2], 16);
          return (v & 255) + "." + ((v >> 8) & 255) + "." + ((v >> 16) & 255) + "." + ((v >> 24) & 255);
        })
        .findFirst());
  }
}
