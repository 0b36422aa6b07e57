package dev.rendezvous.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The brain end to end on the real bus and database: a gateway double publishes what agents send, the
 * test reads the results through the REST API and the steps topic.
 */
class BrainFlowTest {
  static final Duration PATIENCE = Duration.ofSeconds(30);
  private final Rendezvous system = TestSystem.shared();
  private final Api api = TestSystem.admin();

  /** A cluster whose settings are complete, an infra-env, and three agents that answered every step. */
  record Ready(String cluster, String infraEnv, List<String> hosts) {}

  static List<String> newHosts(int n) {
    List<String> l = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      l.add(UUID.randomUUID().toString());
    }
    return l;
  }

  static String createCluster(Api api, String name) {
    String cluster = api.post("/clusters", Api.cluster(name)).json().getString("id");
    Api.Reply patched = api.patch("/clusters/" + cluster, new JsonObject()
        .put("machine_networks", new JsonArray().add(new JsonObject().put("cidr", "192.168.111.0/24")))
        .put("api_vips", new JsonArray().add(new JsonObject().put("ip", "192.168.111.5")))
        .put("ingress_vips", new JsonArray().add(new JsonObject().put("ip", "192.168.111.4"))));
    assertEquals(201, patched.status(), patched.body());
    return cluster;
  }

  static JsonObject host(Api api, String infraEnv, String host) {
    Api.Reply r = api.get("/infra-envs/" + infraEnv + "/hosts/" + host);
    return r.status() == 200 ? r.json() : null;
  }

  static String status(Api api, String infraEnv, String host) {
    JsonObject h = host(api, infraEnv, host);
    return h == null ? null : h.getString("status");
  }

  static void awaitHosts(Api api, String infraEnv, List<String> hosts, String wanted) {
    for (String h : hosts) {
      Await.until("host " + h + " " + wanted, PATIENCE, () -> wanted.equals(status(api, infraEnv, h)) ? true : null);
    }
  }

  static void awaitCluster(Api api, String cluster, String wanted) {
    try {
      Await.until("cluster " + wanted, PATIENCE, () -> {
        JsonObject c = api.get("/clusters/" + cluster).json();
        return wanted.equals(c.getString("status")) ? true : null;
      });
    } catch (AssertionError e) {
      JsonObject c = api.get("/clusters/" + cluster).json();
      StringBuilder why = new StringBuilder(e.getMessage()).append("; the cluster is ").append(c.getString("status"))
          .append(" (").append(c.getString("status_info")).append(")");
      for (Object h : c.getJsonArray("hosts", new JsonArray())) {
        JsonObject host = (JsonObject) h;
        why.append("; host ").append(host.getString("requested_hostname", host.getString("id"))).append(' ')
            .append(host.getString("status")).append(": ").append(host.getString("status_info"));
      }
      String failing = c.getString("validations_info", "");
      throw new AssertionError(why + "; cluster validations " + failing, e);
    }
  }

  /** Registers three hosts and answers inventory, connectivity, DNS and NTP for each, as agents would. */
  static Ready readyCluster(Api api, GatewayDouble gw, String name, List<String> hosts) {
    String cluster = createCluster(api, name);
    String infraEnv = api.post("/infra-envs", Api.infraEnv(name + "-ie", cluster)).json().getString("id");
    hosts.forEach(h -> gw.register(cluster, infraEnv, h));
    awaitHosts(api, infraEnv, hosts, "discovering");
    return answerChecks(gw, name, new Ready(cluster, infraEnv, hosts), hosts);
  }

  /** Installs a ready cluster: install accepted, the hosts preparing, their disk-speed checks answered, installing. */
  static Ready install(Api api, GatewayDouble gw, Ready r, List<String> hosts) {
    awaitCluster(api, r.cluster(), "ready");
    assertEquals(202, api.post("/clusters/" + r.cluster() + "/actions/install", null).status());
    awaitHosts(api, r.infraEnv(), hosts, "preparing-for-installation");
    hosts.forEach(h -> gw.reply(r.cluster(), r.infraEnv(), h, "installation-disk-speed-check", 0,
        GatewayDouble.diskSpeed("/dev/sda", 4)));
    awaitCluster(api, r.cluster(), "installing");
    return r;
  }

  /** Answers inventory, connectivity, DNS, NTP and the VIPs' check for each (discovering) host, as agents would. */
  static Ready answerChecks(GatewayDouble gw, String name, Ready r, List<String> hosts) {
    return answerChecks(gw, name, r, hosts, i -> GatewayDouble.inventory(i, 8));
  }

  /** The same with each host's inventory made by {@code inventory} from its number (1, 2, ...). */
  static Ready answerChecks(GatewayDouble gw, String name, Ready r, List<String> hosts,
      java.util.function.IntFunction<String> inventory) {
    String cluster = r.cluster();
    String infraEnv = r.infraEnv();
    for (int i = 0; i < hosts.size(); i++) {
      gw.reply(cluster, infraEnv, hosts.get(i), "inventory", 0, inventory.apply(i + 1));
    }
    for (int i = 0; i < hosts.size(); i++) {
      Map<String, Integer> peers = new LinkedHashMap<>();
      for (int j = 0; j < hosts.size(); j++) {
        if (j != i) {
          peers.put(hosts.get(j), j + 1);
        }
      }
      String h = hosts.get(i);
      gw.reply(cluster, infraEnv, h, "connectivity-check", 0, GatewayDouble.connectivity(peers));
      gw.reply(cluster, infraEnv, h, "domain-resolution", 0, GatewayDouble.domainResolution(name, "example.com"));
      gw.reply(cluster, infraEnv, h, "ntp-synchronizer", 0, GatewayDouble.ntp());
      // the cluster's VIPs (createCluster's), nothing answering at them
      gw.reply(cluster, infraEnv, h, "verify-vips", 0, "[{\"vip\":\"192.168.111.5\",\"vip_type\":\"api\","
          + "\"verification\":\"succeeded\"},{\"vip\":\"192.168.111.4\",\"vip_type\":\"ingress\",\"verification\":\"succeeded\"}]");
      gw.checkIn(cluster, infraEnv, h);
    }
    return new Ready(cluster, infraEnv, hosts);
  }

  @Test
  void threeHostsGoFromDiscoveringToKnownAndTheClusterToReady() throws Exception {
    List<String> hosts = newHosts(3);
    try (GatewayDouble gw = new GatewayDouble(system.kafkaBootstrap(), Set.copyOf(hosts))) {
      Ready r = readyCluster(api, gw, "brain-ready", hosts);
      awaitHosts(api, r.infraEnv(), hosts, "known");
      awaitCluster(api, r.cluster(), "ready");
      JsonObject h = host(api, r.infraEnv(), hosts.get(0));
      assertEquals("Host is ready to be installed", h.getString("status_info"));
      assertEquals("master", h.getString("suggested_role"));
      assertEquals("/dev/sda", h.getString("installation_disk_path"));
      JsonObject validations = new JsonObject(h.getString("validations_info"));
      assertTrue(validations.getJsonArray("network").stream().map(o -> (JsonObject) o)
          .anyMatch(v -> v.getString("id").equals("belongs-to-majority-group") && v.getString("status").equals("success")));
      JsonObject c = api.get("/clusters/" + r.cluster()).json();
      assertEquals(3, c.getInteger("ready_host_count"));
      assertTrue(c.getString("validations_info").contains("sufficient-masters-count"));
      // the cluster carries its hosts' documents; its host list only those asked for, as upstream's
      JsonObject full = c.getJsonArray("hosts").getJsonObject(0);
      assertTrue(new JsonObject(full.getString("inventory")).containsKey("cpu"), full.getString("inventory"));
      assertTrue(new JsonObject(full.getString("connectivity")).containsKey("remote_hosts"));
      String list = "/clusters/" + r.cluster() + "/hosts";
      JsonObject bare = api.get(list).array().getJsonObject(0);
      assertFalse(bare.containsKey("inventory") || bare.containsKey("connectivity"), bare.encode());
      assertTrue(bare.containsKey("validations_info"));
      JsonObject withInventory = api.get(list + "?with-inventory=true").array().getJsonObject(0);
      assertTrue(withInventory.containsKey("inventory") && !withInventory.containsKey("connectivity"));
      JsonObject both = api.get(list + "?with-inventory=true&with-connectivity=true").array().getJsonObject(0);
      assertEquals(new JsonObject(full.getString("connectivity")), new JsonObject(both.getString("connectivity")));
      Api.Reply bad = api.get(list + "?with-connectivity=yes");
      assertEquals(400, bad.status(), bad.body());
      assertEquals("with-connectivity", bad.json().getString("field"));
      // the agents were told: inventory first, then the known host's steps
      Await.until("known plans delivered", PATIENCE, () -> hosts.stream().allMatch(x -> gw.plansOf(x).stream()
          .anyMatch(p -> p.contains("connectivity-check"))) ? true : null);
      for (String x : hosts) {
        assertEquals(List.of("inventory"), gw.plansOf(x).get(0));
      }
      List<String> names = api.get("/events?cluster_id=" + r.cluster()).array().stream()
          .map(o -> ((JsonObject) o).getString("name")).toList();
      assertTrue(names.contains("host_status_updated"), names.toString());
      assertTrue(names.contains("cluster_status_updated"), names.toString());
    }
  }

  @Test
  void aHostWithTwoCpusIsInsufficient() throws Exception {
    List<String> hosts = newHosts(1);
    try (GatewayDouble gw = new GatewayDouble(system.kafkaBootstrap(), Set.copyOf(hosts))) {
      String cluster = createCluster(api, "brain-small");
      String infraEnv = api.post("/infra-envs", Api.infraEnv("brain-small-ie", cluster)).json().getString("id");
      gw.register(cluster, infraEnv, hosts.get(0));
      awaitHosts(api, infraEnv, hosts, "discovering");
      gw.reply(cluster, infraEnv, hosts.get(0), "inventory", 0, GatewayDouble.inventory(1, 2));
      awaitHosts(api, infraEnv, hosts, "insufficient");
      JsonObject h = host(api, infraEnv, hosts.get(0));
      JsonObject cpu = new JsonObject(h.getString("validations_info")).getJsonArray("hardware").stream()
          .map(o -> (JsonObject) o).filter(v -> v.getString("id").equals("has-min-cpu-cores")).findFirst().orElseThrow();
      assertEquals("failure", cpu.getString("status"));
      assertTrue(cpu.getString("message").contains("found only 2"), cpu.encode());
      assertTrue(h.getString("status_info").startsWith("Host does not meet the minimum hardware requirements"),
          h.getString("status_info"));
    }
  }

  @Test
  void installPreparesThenInstallsAndTellsTheBootstrapLast() throws Exception {
    List<String> hosts = newHosts(3);
    try (GatewayDouble gw = new GatewayDouble(system.kafkaBootstrap(), Set.copyOf(hosts))) {
      Ready r = readyCluster(api, gw, "brain-install", hosts);
      awaitCluster(api, r.cluster(), "ready");
      Api.Reply accepted = api.post("/clusters/" + r.cluster() + "/actions/install", null);
      assertEquals(202, accepted.status(), accepted.body());
      awaitCluster(api, r.cluster(), "preparing-for-installation");
      awaitHosts(api, r.infraEnv(), hosts, "preparing-for-installation");
      Await.until("disk speed checks delivered", PATIENCE, () -> hosts.stream().allMatch(x -> gw.plansOf(x).stream()
          .anyMatch(p -> p.contains("installation-disk-speed-check"))) ? true : null);
      hosts.forEach(h -> gw.reply(r.cluster(), r.infraEnv(), h, "installation-disk-speed-check", 0,
          GatewayDouble.diskSpeed("/dev/sda", 4)));
      awaitCluster(api, r.cluster(), "installing");
      awaitHosts(api, r.infraEnv(), hosts, "installing");
      Await.until("install steps delivered", PATIENCE, () -> hosts.stream().allMatch(x -> gw.plansOf(x).stream()
          .anyMatch(p -> p.contains("install"))) ? true : null);
      List<String> order = new ArrayList<>();
      gw.delivered.forEach(e -> {
        var steps = (dev.rendezvous.bus.event.StepsToDeliver) e.payload();
        if (steps.instructions().stream().anyMatch(s -> s.stepType().equals("install")) && !order.contains(e.hostId())) {
          order.add(e.hostId());
        }
      });
      String bootstrap = hosts.stream().filter(h -> host(api, r.infraEnv(), h).getBoolean("bootstrap")).findFirst()
          .orElseThrow();
      assertEquals(bootstrap, order.get(order.size() - 1), "the bootstrap is told to install last");
      assertTrue(api.get("/events?cluster_id=" + r.cluster()).body().contains("host_bootstrap_set"));
      assertEquals(409, api.post("/clusters/" + r.cluster() + "/actions/install", null).status(), "already installing");
    }
  }
}
