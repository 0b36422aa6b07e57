package dev.rendezvous.service.brain;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rendezvous.service.domain.planning.StepOutputs;
import dev.rendezvous.service.repo.ClusterRepository;
import dev.rendezvous.service.repo.ClusterRepository.ClusterRow;
import dev.rendezvous.service.repo.InfraEnvRepository;
import dev.rendezvous.service.repo.InfraEnvRepository.InfraEnvRow;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.SqlClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Agent replies as a real agent sends them, built from the captured inventory under
 * src/test/resources/domain: host {@code i} is host-i at 192.168.111.(20+i)/24. Also a cluster row whose
 * settings make a 3-host cluster ready once its hosts are known.
 */
public final class BrainFixtures {
  private BrainFixtures() {}

  public static final String CLUSTER_NAME = "ostest";
  public static final String BASE_DOMAIN = "test.metalkube.org";

  static String resource(String name) {
    try (InputStream in = BrainFixtures.class.getResourceAsStream("/domain/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static String ip(int i) {
    return "192.168.111." + (20 + i);
  }

  /** The captured inventory as host {@code i} with {@code cpus} cores, one NIC on the machine network. */
  public static String inventory(int i, int cpus) {
    try {
      ObjectNode n = (ObjectNode) StepOutputs.JSON.readTree(resource("inventory-master-0.json"));
      n.put("hostname", "host-" + i);
      ((ObjectNode) n.get("cpu")).put("count", cpus);
      ArrayNode ifaces = (ArrayNode) n.get("interfaces");
      ObjectNode first = (ObjectNode) ifaces.get(0);
      first.putArray("ipv4_addresses").add(ip(i) + "/24");
      first.putArray("ipv6_addresses");
      first.put("mac_address", String.format("00:0e:0f:a1:%02x:%02x", (i >> 8) & 0xff, i & 0xff));
      ifaces.remove(1);
      return StepOutputs.JSON.writeValueAsString(n);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A connectivity report where every peer (host id → host number) answers on L2 and L3. */
  public static String connectivity(Map<UUID, Integer> peers) {
    ObjectNode root = StepOutputs.JSON.createObjectNode();
    ArrayNode remotes = root.putArray("remote_hosts");
    peers.forEach((id, j) -> {
      ObjectNode r = remotes.addObject().put("host_id", id.toString());
      r.putArray("l2_connectivity").addObject().put("outgoing_nic", "enp1s0").put("remote_ip_address", ip(j))
          .put("remote_mac", String.format("00:0e:0f:a1:%02x:%02x", (j >> 8) & 0xff, j & 0xff)).put("successful", true);
      r.putArray("l3_connectivity").addObject().put("outgoing_nic", "enp1s0").put("remote_ip_address", ip(j))
          .put("successful", true).put("average_rtt_ms", 0.4).put("packet_loss_percentage", 0.0);
    });
    return root.toString();
  }

  /** Every cluster name resolves except the wildcard probe (no wildcard DNS record). */
  public static String domainResolution() {
    String suffix = CLUSTER_NAME + "." + BASE_DOMAIN;
    ObjectNode root = StepOutputs.JSON.createObjectNode();
    ArrayNode res = root.putArray("resolutions");
    res.addObject().put("domain_name", "api." + suffix).putArray("ipv4_addresses").add("192.168.111.5");
    res.addObject().put("domain_name", "api-int." + suffix).putArray("ipv4_addresses").add("192.168.111.5");
    res.addObject().put("domain_name", "console-openshift-console.apps." + suffix).putArray("ipv4_addresses").add("192.168.111.4");
    res.addObject().put("domain_name", "validateNoWildcardDNS." + suffix).putArray("ipv4_addresses");
    return root.toString();
  }

  /** verify-vips' answer for the cluster's VIPs: nothing answers at them. */
  public static String vipsFree() {
    return "[{\"vip\":\"192.168.111.5\",\"vip_type\":\"api\",\"verification\":\"succeeded\"},"
        + "{\"vip\":\"192.168.111.4\",\"vip_type\":\"ingress\",\"verification\":\"succeeded\"}]";
  }

  public static String ntp() {
    return "{\"ntp_sources\":[{\"source_name\":\"clock.example.com\",\"source_state\":\"synced\"}]}";
  }

  public static String diskSpeed(String path, long ms) {
    return "{\"io_sync_duration\":" + ms + ",\"path\":\"" + path + "\"}";
  }

  /** A cluster of tenant "t" named {@code name}, ready to install (its settings above), and an infra-env bound to it, as rows. */
  public static Future<Void> insertClusterWithInfraEnv(SqlClient db, UUID cluster, String name, UUID infraEnv) {
    OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
    return ClusterRepository.insert(db, new ClusterRow(cluster, "t", name, "4.18", "insufficient", "", now,
            new JsonObject(readyClusterSpec()), null, null, null, null, 1, now, now, new JsonObject()), "{}")
        .compose(v -> InfraEnvRepository.insert(db,
            new InfraEnvRow(infraEnv, "t", cluster, "ie", new JsonObject(), 1, now, now), "{}"));
  }

  /** The REST API's stored spec of a cluster that is ready once it has three known hosts. */
  public static String readyClusterSpec() {
    return "{\"base_dns_domain\":\"" + BASE_DOMAIN + "\",\"cluster_network_cidr\":\"10.128.0.0/14\","
        + "\"cluster_network_host_prefix\":23,\"service_network_cidr\":\"172.30.0.0/16\","
        + "\"cluster_networks\":[{\"cidr\":\"10.128.0.0/14\",\"host_prefix\":23}],"
        + "\"service_networks\":[{\"cidr\":\"172.30.0.0/16\"}],\"machine_networks\":[{\"cidr\":\"192.168.111.0/24\"}],"
        + "\"api_vips\":[{\"ip\":\"192.168.111.5\"}],\"ingress_vips\":[{\"ip\":\"192.168.111.4\"}],"
        + "\"control_plane_count\":3,\"cpu_architecture\":\"x86_64\",\"network_type\":\"OVNKubernetes\","
        + "\"platform\":{\"type\":\"baremetal\"},\"user_managed_networking\":false,\"vip_dhcp_allocation\":false}";
  }

  static StoredCluster cluster(UUID id, Instant at) {
    OffsetDateTime t = at.atOffset(ZoneOffset.UTC);
    return new StoredCluster(id, "tenant-a", CLUSTER_NAME, "4.18", "insufficient", "Cluster is not ready for install", t,
        readyClusterSpec(), null, null, null, null, "{}", 1);
  }

  static Loaded loaded(UUID clusterId, Instant at) {
    ClusterRecord c = SnapshotMapper.cluster(cluster(clusterId, at));
    return new Loaded(WorkKey.cluster(clusterId), "tenant-a", c, Map.of(), Map.of());
  }

  static List<UUID> ids(int n) {
    return java.util.stream.IntStream.rangeClosed(1, n)
        .mapToObj(i -> UUID.fromString(String.format("a0000000-0000-0000-0000-%012d", i))).toList();
  }
}
