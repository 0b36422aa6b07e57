package dev.rendezvous.service.domain;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rendezvous.service.domain.cluster.ClusterContext;
import dev.rendezvous.service.domain.cluster.ClusterStatus;
import dev.rendezvous.service.domain.cluster.MajorityGroups;
import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.host.HostStatus;
import dev.rendezvous.service.domain.host.Inventory;
import dev.rendezvous.service.domain.planning.StepOutputs;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.function.Consumer;

/** Test data built from the realistic agent inventory under src/test/resources/domain. */
public final class Fixtures {
  private Fixtures() {}

  public static final Instant NOW = Instant.parse("2025-03-01T12:00:00Z");
  public static final UUID CLUSTER = UUID.fromString("c0000000-0000-0000-0000-000000000001");
  public static final UUID INFRA_ENV = UUID.fromString("e0000000-0000-0000-0000-000000000001");

  public static String resource(String name) {
    try (InputStream in = Fixtures.class.getResourceAsStream("/domain/" + name)) {
      if (in == null) {
        throw new IllegalStateException("missing test resource " + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The fixture inventory JSON text, edited through the Jackson tree. */
  public static String inventoryJson(Consumer<ObjectNode> edit) {
    try {
      ObjectNode root = (ObjectNode) StepOutputs.JSON.readTree(resource("inventory-master-0.json"));
      edit.accept(root);
      return StepOutputs.JSON.writeValueAsString(root);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static Inventory inventory(Consumer<ObjectNode> edit) {
    return StepOutputs.inventory(inventoryJson(edit));
  }

  public static Inventory inventory() {
    return inventory(n -> {});
  }

  /** Inventory of host number {@code i}: own hostname, own addresses 192.168.111.(20+i). */
  public static Inventory inventoryForHost(int i, Consumer<ObjectNode> more) {
    return inventory(n -> {
      n.put("hostname", "host-" + i);
      ArrayNode ifaces = (ArrayNode) n.get("interfaces");
      ObjectNode first = (ObjectNode) ifaces.get(0);
      first.putArray("ipv4_addresses").add("192.168.111." + (20 + i) + "/24");
      first.putArray("ipv6_addresses");
      first.put("mac_address", String.format("00:0e:0f:a1:38:%02x", i));
      ifaces.remove(1);
      more.accept(n);
    });
  }

  public static Consumer<ObjectNode> cpu(int cores) {
    return n -> ((ObjectNode) n.get("cpu")).put("count", cores);
  }

  public static Consumer<ObjectNode> ramGib(long gib) {
    return n -> ((ObjectNode) n.get("memory")).put("physical_bytes", gib * 1024L * 1024 * 1024);
  }

  public static UUID hostId(int i) {
    return UUID.fromString(String.format("a0000000-0000-0000-0000-%012d", i));
  }

  /** A connected, bound, discovered host with the fixture inventory (numbered addresses). */
  public static HostSnapshot.Builder host(int i, HostStatus status) {
    return HostSnapshot.builder(hostId(i), INFRA_ENV)
        .clusterId(CLUSTER)
        .status(status)
        .statusUpdatedAt(NOW.minusSeconds(60))
        .registeredAt(NOW.minusSeconds(600))
        .checkedInAt(NOW.minusSeconds(10))
        .hostTimestamp(NOW.getEpochSecond())
        .inventory(inventoryForHost(i, n -> {}))
        .installationDiskId("/dev/disk/by-id/wwn-0x05abcd4ae2c1f2b1")
        .installationDiskPath("/dev/sda")
        .ntpSources(List.of(new StepOutputs.NtpSource("clock.example.com", "synced")))
        // the default cluster's VIPs, found free by the host's verify-vips
        .vipVerifications(java.util.Map.of("192.168.111.5", "succeeded", "192.168.111.4", "succeeded"))
        .domainResolutions(new StepOutputs.DomainResolutionResponse(List.of(new StepOutputs.Resolution(
            "validateNoWildcardDNS.ostest.test.metalkube.org", List.of(), List.of(), List.of()))));
  }

  /** A cluster ready in all its own settings (networks, VIPs, pull secret), with the given hosts. */
  public static ClusterContext.Builder cluster(List<HostSnapshot> hosts) {
    return ClusterContext.builder(CLUSTER)
        .name("ostest")
        .baseDnsDomain("test.metalkube.org")
        .openshiftVersion("4.16")
        .status(ClusterStatus.INSUFFICIENT)
        .statusUpdatedAt(NOW.minusSeconds(120))
        .machineNetworks(List.of("192.168.111.0/24"))
        .apiVips(List.of("192.168.111.5"))
        .ingressVips(List.of("192.168.111.4"))
        .pullSecretSet(true)
        .networkType("OVNKubernetes")
        .connectivityMajorityGroups(new MajorityGroups(java.util.Map.of("192.168.111.0/24",
            List.of(hostId(1), hostId(2), hostId(3), hostId(4), hostId(5))), java.util.Map.of()))
        .hosts(hosts);
  }
}
