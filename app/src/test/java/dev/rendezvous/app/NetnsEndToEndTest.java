package dev.rendezvous.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The proof of the discovery flow: the whole system on its embedded servers, a cluster and an
 * infra-env made through the API, and three real agents in three network namespaces on one bridge.
 * Skips, saying why, where network namespaces are unavailable (not root, no iproute2).
 */
@ExtendWith(NetnsExclusive.class)
class NetnsEndToEndTest {
  @TempDir Path dataDir;
  @TempDir Path logs;

  @Test
  void threeAgentsInNamespacesBecomeKnownAndTheClusterReadyAndADisconnectionIsNoticed() throws Exception {
    String why = NetnsAgents.unavailable();
    Assumptions.assumeTrue(why == null, () -> "skipped: " + why);
    // Thresholds lowered for this small machine (2 cores, a few GiB, a small file-backed disk); a short
    // disconnection timeout and a fast monitor so the kill/restart part runs in seconds.
    try (Rendezvous system = TestSystem.start(dataDir, Map.of(
            "hw-min-cpu-cores", "1", "hw-min-ram-mib", "512", "hw-min-disk-gb", "1",
            "host-disconnection-timeout-seconds", "8", "brain-monitor-interval-ms", "500",
            "gateway-check-in-interval-seconds", "2", "gateway-heartbeat-seconds", "2",
            // no registry is in reach of this sandbox, so the release image can never be pulled (upstream's knob)
            "disabled-host-validations", "container-images-available"));
        NetnsAgents hosts = NetnsAgents.up(3, logs)) {
      Api api = new Api(system.config().apiPort(), Files.readString(system.adminTokenFile()).strip());
      String clusterId = api.post("/clusters", Api.cluster("netns").put("ssh_public_key", Api.SSH_KEY)
          .put("user_managed_networking", true).put("platform", new JsonObject().put("type", "none"))).json().getString("id");
      String infraEnvId = api.post("/infra-envs", Api.infraEnv("netns-ie", clusterId)).json().getString("id");
      String token = system.agentToken(infraEnvId, clusterId);
      hosts.fileBackedDisks(8L << 30);
      // The user's DNS records for a user-managed-network cluster: API and ingress on a load balancer address.
      hosts.dnsRecords("10.250.0.200 api.netns.example.com api-int.netns.example.com\n"
          + "10.250.0.201 console-openshift-console.apps.netns.example.com\n");
      String[] ids = new String[4];

      for (int i = 1; i <= 3; i++) {
        ids[i] = UUID.randomUUID().toString();
        hosts.start(i, Integer.toString(system.config().apiPort()), infraEnvId, ids[i], token);
      }
      String cluster = "/clusters/" + clusterId;
      try {
        Await.until("all three hosts known", Duration.ofSeconds(120), () -> statuses(api, cluster).equals("known,known,known"));
        Await.until("the cluster ready", Duration.ofSeconds(60),
            () -> "ready".equals(api.get(cluster).json().getString("status")));

        JsonArray listed = api.get(cluster + "/hosts?with-inventory=true&with-connectivity=true").array();
        for (int i = 1; i <= 3; i++) {
          JsonObject host = find(listed, ids[i]);
          JsonObject inventory = new JsonObject(host.getString("inventory"));
          assertEquals("host-" + i, inventory.getString("hostname"));
          String address = hosts.address(i);
          assertTrue(inventory.getJsonArray("interfaces").stream()
              .anyMatch(n -> ((JsonObject) n).getJsonArray("ipv4_addresses", new JsonArray()).encode().contains(address + "/")),
              "host " + i + " reports its namespace address " + address);
          // Connectivity was measured for real: pings from this namespace to the two others.
          JsonArray remotes = new JsonObject(host.getString("connectivity")).getJsonArray("remote_hosts");
          assertEquals(2, remotes.size(), host.getString("connectivity"));
          for (Object r : remotes) {
            JsonObject l3 = ((JsonObject) r).getJsonArray("l3_connectivity").getJsonObject(0);
            assertTrue(l3.getBoolean("successful"), l3.encode());
            assertTrue(l3.getDouble("average_rtt_ms") > 0, l3.encode());
          }
        }

        // A host that loses power: disconnected after the (shortened) timeout, and known again once back.
        hosts.kill(2);
        Await.until("host 2 disconnected", Duration.ofSeconds(60),
            () -> "disconnected".equals(find(api.get(cluster + "/hosts").array(), ids[2]).getString("status")));
        assertEquals("insufficient", Await.until("the cluster no longer ready", Duration.ofSeconds(30), () -> {
          String st = api.get(cluster).json().getString("status");
          return "ready".equals(st) ? null : st;
        }));
        hosts.start(2, Integer.toString(system.config().apiPort()), infraEnvId, ids[2], token);
        Await.until("host 2 known again", Duration.ofSeconds(120), () -> statuses(api, cluster).equals("known,known,known"));
        Await.until("the cluster ready again", Duration.ofSeconds(60),
            () -> "ready".equals(api.get(cluster).json().getString("status")));

        // The cluster's own load balancer instead: its VIPs must be free. The API VIP asked for is the bridge's
        // address, which the machine holds; the agents' verify-vips (arping from their namespaces) find it answered.
        Api.Reply patched = api.patch(cluster, new JsonObject().put("user_managed_networking", false)
            .put("platform", new JsonObject().put("type", "baremetal"))
            .put("machine_networks", new JsonArray().add(new JsonObject().put("cidr", "10.250.0.0/24")))
            .put("api_vips", new JsonArray().add(new JsonObject().put("ip", NetnsAgents.BRIDGE_ADDRESS)))
            .put("ingress_vips", new JsonArray().add(new JsonObject().put("ip", "10.250.0.210"))));
        assertEquals(201, patched.status(), patched.body());
        Await.until("the API VIP found in use", Duration.ofSeconds(60), () -> validation(api, cluster, "api-vips-valid")
            .equals("failure: api vips <" + NetnsAgents.BRIDGE_ADDRESS + "> is already in use in cidr 10.250.0.0/24"));
        assertEquals("success: ingress vips 10.250.0.210 belongs to the Machine CIDR and is not in use.",
            Await.until("the ingress VIP verified", Duration.ofSeconds(30), () -> {
              String v = validation(api, cluster, "ingress-vips-valid");
              return v.startsWith("success") ? v : null;
            }));
        assertTrue(!"ready".equals(api.get(cluster).json().getString("status")));
        assertEquals(201, api.patch(cluster, new JsonObject().put("api_vips", new JsonArray()
            .add(new JsonObject().put("ip", "10.250.0.211")))).status());
        Await.until("the new API VIP verified free", Duration.ofSeconds(60), () -> validation(api, cluster, "api-vips-valid")
            .equals("success: api vips 10.250.0.211 belongs to the Machine CIDR and is not in use."));

        // VIPs by DHCP: a real DHCP server on the hosts' network; the agents' dhcp-lease-allocate leases an address
        // for each VIP's MAC from it, and the cluster takes them (upstream's vip_dhcp_allocation).
        Path leases = hosts.dhcpServer("10.250.0.220", "10.250.0.229");
        assertEquals(201, api.patch(cluster, new JsonObject().put("vip_dhcp_allocation", true)
            .put("api_vips", new JsonArray()).put("ingress_vips", new JsonArray())).status());
        // the change pushes the hosts' plans with the lease step at once (Brain.settingsChanged): a minute would mean
        // they waited for their next due plan, as before session 53 (58.7 s of 60 in one CI run)
        JsonObject leased = Await.until("the VIPs leased by DHCP", Duration.ofSeconds(45), () -> {
          JsonObject c = api.get(cluster).json();
          return c.getJsonArray("api_vips", new JsonArray()).isEmpty()
              || c.getJsonArray("ingress_vips", new JsonArray()).isEmpty() ? null : c;
        });
        String apiVip = leased.getJsonArray("api_vips").getJsonObject(0).getString("ip");
        String ingressVip = leased.getJsonArray("ingress_vips").getJsonObject(0).getString("ip");
        assertTrue(apiVip.startsWith("10.250.0.22") && ingressVip.startsWith("10.250.0.22") && !apiVip.equals(ingressVip),
            apiVip + " " + ingressVip);
        // the server's own record: one lease per VIP, each to a MAC of the cluster's (not a host's own MAC); dnsmasq
        // rewrites its lease file in place after it answered, so a read may come before it or find it empty (seen in
        // a CI run): wait for both leases in it
        String[] vips = {apiVip, ingressVip};
        try {
          Await.until("both VIPs' leases in dnsmasq's lease file", Duration.ofSeconds(15), () -> {
            String granted = text(leases);
            return java.util.Arrays.stream(vips).allMatch(vip -> granted.lines()
                .anyMatch(l -> l.contains(" " + vip + " ") && l.contains(" 00:1a:4a:"))) ? granted : null;
          });
        } catch (AssertionError e) {
          throw new AssertionError(e.getMessage() + "; the lease file: " + text(leases), e);
        }
        // the event goes through the bus to the events table: visible a moment after the cluster's new VIPs
        Await.until("the DHCP VIPs' event", Duration.ofSeconds(30), () -> api.get("/events?cluster_id=" + clusterId)
            .array().stream().map(e -> ((JsonObject) e).getString("message"))
            .anyMatch(("Cluster was updated with api-vip " + apiVip + ", ingress-vip " + ingressVip)::equals));
        Await.until("the leased API VIP validated", Duration.ofSeconds(60), () -> validation(api, cluster, "api-vips-valid")
            .equals("success: api vips " + apiVip + " belongs to the Machine CIDR and is not in use."));
        // the agents renew the leases they are handed back: the VIPs stay what the server first granted
        Thread.sleep(5000);
        JsonObject later = api.get(cluster).json();
        assertEquals(apiVip, later.getJsonArray("api_vips").getJsonObject(0).getString("ip"));
        assertEquals(ingressVip, later.getJsonArray("ingress_vips").getJsonObject(0).getString("ip"));
      } finally {
        for (Object h : api.get(cluster + "/hosts").array()) {
          JsonObject host = (JsonObject) h;
          System.out.println("host " + host.getString("requested_hostname") + " " + host.getString("status") + ": "
              + host.getString("status_info") + " " + host.getString("validations_info"));
        }
        System.out.println("cluster " + api.get(cluster).json().getString("status") + ": "
            + api.get(cluster).json().getString("validations_info"));
      }
    }
  }

  /** "status: message" of one of the cluster's validations. */
  private static String validation(Api api, String cluster, String id) {
    JsonObject v = Api.validation(api.get(cluster).json(), id);
    return v == null ? "(no " + id + ")" : v.getString("status") + ": " + v.getString("message");
  }

  /** The hosts' statuses, sorted, comma-separated. */
  private static String statuses(Api api, String cluster) {
    return String.join(",", api.get(cluster + "/hosts").array().stream()
        .map(h -> ((JsonObject) h).getString("status")).sorted().toList());
  }

  private static JsonObject find(JsonArray hosts, String id) {
    return hosts.stream().map(JsonObject.class::cast).filter(h -> id.equals(h.getString("id"))).findFirst()
        .orElseThrow(() -> new AssertionError("host " + id + " not listed"));
  }

  private static String text(Path file) {
    try {
      return Files.readString(file);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
