package dev.rendezvous.app;

import dev.rendezvous.bus.BusConsumer;
import dev.rendezvous.bus.BusEvent;
import dev.rendezvous.bus.BusProducer;
import dev.rendezvous.bus.Topics;
import dev.rendezvous.bus.event.AgentPresence;
import dev.rendezvous.bus.event.BusPayload;
import dev.rendezvous.bus.event.HostRegistered;
import dev.rendezvous.bus.event.StepReplyReceived;
import dev.rendezvous.bus.event.StepsToDeliver;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * Stands in for a gateway on the real bus: publishes what agents send (registrations, step replies,
 * check-ins) and collects the steps the brain publishes for a set of hosts. Replies are built from the
 * captured agent inventory under src/test/resources/agent (host i is host-i at 192.168.111.(20+i)/24).
 */
final class GatewayDouble implements AutoCloseable {
  private final BusProducer producer;
  private final BusConsumer steps;
  private final Set<String> hosts;
  final ConcurrentLinkedQueue<BusEvent> delivered = new ConcurrentLinkedQueue<>();

  GatewayDouble(String bootstrap, Set<String> hostIds) throws Exception {
    this.hosts = Set.copyOf(hostIds);
    this.producer = new BusProducer(bootstrap, "test-gateway-" + UUID.randomUUID());
    this.steps = BusConsumer.fanOut(bootstrap, List.of(Topics.STEPS), BusConsumer.StartFrom.LATEST, e -> {
      if (hosts.contains(e.hostId())) {
        delivered.add(e);
      }
      return CompletableFuture.completedFuture(null);
    });
    steps.started().get(20, TimeUnit.SECONDS);
  }

  void publish(String topic, String cluster, String infraEnv, String host, BusPayload payload) {
    try {
      producer.publish(topic, BusEvent.of(cluster, infraEnv, host, payload)).get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  void register(String cluster, String infraEnv, String host) {
    publish(Topics.HOST_REGISTRATIONS, cluster, infraEnv, host,
        new HostRegistered(host, infraEnv, cluster, "rdv-agent/0.1.0", AgentPresence.WEBSOCKET));
  }

  void reply(String cluster, String infraEnv, String host, String type, int exitCode, String output) {
    publish(Topics.STEP_REPLIES, cluster, infraEnv, host,
        new StepReplyReceived(type, type + "-" + UUID.randomUUID().toString().substring(0, 8), exitCode, output, ""));
  }

  void checkIn(String cluster, String infraEnv, String host) {
    publish(Topics.AGENT_PRESENCE, cluster, infraEnv, host,
        new AgentPresence(AgentPresence.CHECKED_IN, AgentPresence.WEBSOCKET, "test-gateway", "rdv-agent/0.1.0"));
  }

  /** Step types of the plans delivered to {@code host}, oldest first. */
  List<List<String>> plansOf(String host) {
    List<List<String>> out = new ArrayList<>();
    for (BusEvent e : delivered) {
      if (host.equals(e.hostId())) {
        out.add(((StepsToDeliver) e.payload()).instructions().stream().map(StepsToDeliver.Step::stepType).toList());
      }
    }
    return out;
  }

  @Override
  public void close() {
    steps.close();
    producer.close();
  }

  // ------------------------------------------------------------------------------------- agent replies

  static String ip(int i) {
    return "192.168.111." + (20 + i);
  }

  static String mac(int i) {
    return String.format("00:0e:0f:a1:%02x:%02x", (i >> 8) & 0xff, i & 0xff);
  }

  static String inventory(int i, int cpus) {
    try (InputStream in = GatewayDouble.class.getResourceAsStream("/agent/inventory-master-0.json")) {
      JsonObject inv = new JsonObject(new String(in.readAllBytes(), StandardCharsets.UTF_8));
      inv.put("hostname", "host-" + i);
      inv.getJsonObject("cpu").put("count", cpus);
      JsonArray nics = inv.getJsonArray("interfaces");
      nics.getJsonObject(0).put("ipv4_addresses", new JsonArray().add(ip(i) + "/24"))
          .put("ipv6_addresses", new JsonArray()).put("mac_address", mac(i));
      nics.remove(1);
      return inv.encode();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Every peer (host id → host number) answers on L2 and L3. */
  static String connectivity(Map<String, Integer> peers) {
    JsonArray remotes = new JsonArray();
    peers.forEach((id, j) -> remotes.add(new JsonObject().put("host_id", id)
        .put("l2_connectivity", new JsonArray().add(new JsonObject().put("outgoing_nic", "enp1s0")
            .put("remote_ip_address", ip(j)).put("remote_mac", mac(j)).put("successful", true)))
        .put("l3_connectivity", new JsonArray().add(new JsonObject().put("outgoing_nic", "enp1s0")
            .put("remote_ip_address", ip(j)).put("successful", true).put("average_rtt_ms", 0.4)
            .put("packet_loss_percentage", 0.0)))));
    return new JsonObject().put("remote_hosts", remotes).encode();
  }

  /** The cluster's names resolve, the wildcard probe does not. */
  static String domainResolution(String cluster, String baseDomain) {
    String suffix = cluster + "." + baseDomain;
    return new JsonObject().put("resolutions", new JsonArray()
        .add(new JsonObject().put("domain_name", "api." + suffix).put("ipv4_addresses", new JsonArray().add("192.168.111.5")))
        .add(new JsonObject().put("domain_name", "api-int." + suffix).put("ipv4_addresses", new JsonArray().add("192.168.111.5")))
        .add(new JsonObject().put("domain_name", "validateNoWildcardDNS." + suffix).put("ipv4_addresses", new JsonArray())))
        .encode();
  }

  static String ntp() {
    return "{\"ntp_sources\":[{\"source_name\":\"clock.example.com\",\"source_state\":\"synced\"}]}";
  }

  static String diskSpeed(String path, long ms) {
    return new JsonObject().put("io_sync_duration", ms).put("path", path).encode();
  }
}
