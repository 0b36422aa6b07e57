package dev.rendezvous.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Static networking end to end: an infra-env with two hosts' NMState, its discovery Ignition read back, and
 * in each of two network namespaces (NICs left unaddressed by the rig) the Ignition's network files laid
 * down, its pre-network-manager-config command run and a real NetworkManager started (rdv-netns-nm.sh). Each
 * host must come up with the static address its NMState gives the NIC with its MAC (both namespaces get the
 * same Ignition: the script picks the host by MAC), then a real agent in the namespace registers through that
 * address, and the inventory the service stores shows it on that NIC. Skips, saying why, without root,
 * network namespaces or NetworkManager.
 */
@ExtendWith(NetnsExclusive.class)
class NetnsStaticNetworkTest {
  @TempDir Path dataDir;
  @TempDir Path logs;

  /** The static address of host i: not the rig's own (.i+1), so it can only have come from the NMState. */
  private static String address(int i) {
    return "10.250.0." + (50 + i);
  }

  private static String nmstate(int i) {
    return "interfaces:\n- name: eth0\n  type: ethernet\n  state: up\n  ipv4:\n    enabled: true\n    dhcp: false\n"
        + "    address:\n    - ip: " + address(i) + "\n      prefix-length: 24\n  ipv6:\n    enabled: false\n"
        + "dns-resolver:\n  config:\n    server:\n    - " + NetnsAgents.BRIDGE_ADDRESS + "\n"
        + "routes:\n  config:\n  - destination: 0.0.0.0/0\n    next-hop-address: " + NetnsAgents.BRIDGE_ADDRESS
        + "\n    next-hop-interface: eth0\n";
  }

  @Test
  void twoHostsComeUpWithTheirStaticAddressesFromTheDiscoveryIgnitionAndRegisterThroughThem() throws Exception {
    String why = NetnsAgents.unavailable();
    Assumptions.assumeTrue(why == null, () -> "skipped: " + why);
    String noNm = NetnsAgents.networkManagerUnavailable();
    Assumptions.assumeTrue(noNm == null, () -> "skipped: " + noNm);
    try (Rendezvous system = TestSystem.start(dataDir, Map.of(
            "hw-min-cpu-cores", "1", "hw-min-ram-mib", "512", "hw-min-disk-gb", "1"));
        NetnsAgents hosts = NetnsAgents.up(2, logs, true)) {
      Api api = new Api(system.config().apiPort(), Files.readString(system.adminTokenFile()).strip());
      JsonArray config = new JsonArray()
          .add(StaticNetworkTest.host(nmstate(1), NetnsAgents.mac(1), "eth0"))
          .add(StaticNetworkTest.host(nmstate(2), NetnsAgents.mac(2), "eth0"));
      Api.Reply created = api.post("/infra-envs", Api.infraEnv("static-netns", null).put("static_network_config", config));
      assertEquals(201, created.status(), created.body());
      String infraEnvId = created.json().getString("id");
      Api.Reply ign = api.get("/infra-envs/" + infraEnvId + "/downloads/files?file_name=discovery.ign");
      assertEquals(200, ign.status(), ign.body());
      JsonObject ignition = new JsonObject(ign.body());
      String execStart = execStart(ignition);

      for (int i = 1; i <= 2; i++) {
        assertFalse(ip(i, "-4", "addr", "show", "dev", "rdv-veth" + i).contains("inet "), "the rig gave host " + i + " no address");
        Path work = logs.resolve("nm-" + i);
        layDown(ignition, work.resolve("ignition"), 6); // two hosts' profiles and MAC maps, the script, the drop-in
        hosts.startNetworkManager(i, work, execStart);
      }
      for (int i = 1; i <= 2; i++) {
        int host = i;
        String nic = "rdv-veth" + i;
        try {
          Await.until("host " + i + " has " + address(i) + " from NetworkManager", Duration.ofSeconds(30), () -> {
            if (!hosts.networkManagerAlive(host)) {
              throw new AssertionError("NetworkManager " + host + " ended");
            }
            return ip(host, "-4", "addr", "show", "dev", nic).contains("inet " + address(host) + "/24 ");
          });
        } catch (AssertionError e) {
          throw new AssertionError(e.getMessage() + "; ip addr: " + ip(i, "addr") + "; its log: " + log("networkmanager-" + i + ".log"), e);
        }
        assertTrue(ip(i, "-4", "route", "show", "default").contains("default via " + NetnsAgents.BRIDGE_ADDRESS + " dev " + nic),
            ip(i, "-4", "route"));
        String nmLog = log("networkmanager-" + i + ".log");
        assertTrue(nmLog.contains("static network: installed the profiles of host" + (i - 1)), nmLog);
        assertTrue(nmLog.contains("device (" + nic + "): Activation: successful"), nmLog);
        // DNS from the NMState, as NetworkManager wrote it (into the namespace's /etc overlay)
        String resolv = Files.readString(logs.resolve("nm-" + i + "/etc/resolv.conf"));
        assertTrue(resolv.contains("nameserver " + NetnsAgents.BRIDGE_ADDRESS), resolv);
      }

      String token = system.agentToken(infraEnvId, null);
      String[] ids = new String[3];
      for (int i = 1; i <= 2; i++) {
        ids[i] = UUID.randomUUID().toString();
        hosts.start(i, Integer.toString(system.config().apiPort()), infraEnvId, ids[i], token);
      }
      for (int i = 1; i <= 2; i++) {
        String id = ids[i];
        JsonObject inventory = Await.until("host " + i + "'s inventory", Duration.ofSeconds(60), () -> {
          JsonObject h = api.get("/infra-envs/" + infraEnvId + "/hosts/" + id).json();
          return h == null || h.getString("inventory") == null ? null : new JsonObject(h.getString("inventory"));
        });
        String mac = NetnsAgents.mac(i);
        JsonObject nic = inventory.getJsonArray("interfaces").stream().map(JsonObject.class::cast)
            .filter(n -> mac.equalsIgnoreCase(n.getString("mac_address"))).findFirst()
            .orElseThrow(() -> new AssertionError("no NIC with " + mac + ": " + inventory.getJsonArray("interfaces")));
        assertEquals(new JsonArray().add(address(i) + "/24"), nic.getJsonArray("ipv4_addresses"), nic.encode());
        assertEquals("rdv-veth" + i, nic.getString("name"), nic.encode());
      }
    }
  }

  /**
   * A VLAN on an active-backup bond of two NICs, as edge sites wire them: the discovery Ignition's profiles, installed
   * by its script on the host whose MAC they list, are read by a real NetworkManager as the NMState says (asked back
   * through nmcli on its private bus). This machine's kernel has neither the bonding nor the 8021q driver (ip link
   * add type bond: "Unknown device type"), so the bond cannot come up here: what is proved is that NetworkManager
   * takes every profile, with its controller, mode, options, VLAN id and parent, and refuses none.
   */
  @Test
  void aVlanOnABondOfTwoNicsIsReadByNetworkManagerAsTheNmstateSays() throws Exception {
    String why = NetnsAgents.unavailable();
    Assumptions.assumeTrue(why == null, () -> "skipped: " + why);
    String noNm = NetnsAgents.networkManagerUnavailable();
    Assumptions.assumeTrue(noNm == null, () -> "skipped: " + noNm);
    String yaml = """
        interfaces:
          - name: eth0
            type: ethernet
            state: up
          - name: bond0
            type: bond
            state: up
            link-aggregation:
              mode: active-backup
              port: [eth0, eth1]
              options: {miimon: 100, primary: eth0}
          - name: bond0.100
            type: vlan
            state: up
            vlan: {base-iface: bond0, id: 100}
            ipv4:
              enabled: true
              address: [{ip: 10.250.100.51, prefix-length: 24}]
            ipv6: {enabled: false}
        routes:
          config:
            - {destination: 0.0.0.0/0, next-hop-address: 10.250.100.1, next-hop-interface: bond0.100}
        """;
    try (Rendezvous system = TestSystem.start(dataDir, Map.of());
        NetnsAgents hosts = NetnsAgents.up(1, logs, true)) {
      Api api = new Api(system.config().apiPort(), Files.readString(system.adminTokenFile()).strip());
      // eth1's MAC is nobody's here: the rig gives a namespace one NIC (a second port changes nothing of the proof)
      JsonObject host = StaticNetworkTest.host(yaml, NetnsAgents.mac(1), "eth0", "02:52:44:56:ff:01", "eth1");
      Api.Reply created = api.post("/infra-envs", Api.infraEnv("bond-vlan", null)
          .put("static_network_config", new JsonArray().add(host)));
      assertEquals(201, created.status(), created.body());
      Api.Reply ign = api.get("/infra-envs/" + created.json().getString("id") + "/downloads/files?file_name=discovery.ign");
      assertEquals(200, ign.status(), ign.body());
      JsonObject ignition = new JsonObject(ign.body());
      Path work = logs.resolve("nm-1");
      layDown(ignition, work.resolve("ignition"), 5);
      hosts.startNetworkManager(1, work, execStart(ignition));
      String bus = "unix:path=" + work.resolve("bus.sock");
      try {
        Await.until("NetworkManager to list the four profiles", Duration.ofSeconds(30), () -> {
          if (!hosts.networkManagerAlive(1)) {
            throw new AssertionError("NetworkManager ended");
          }
          String list = nmcli(bus, "-t", "-f", "NAME,TYPE", "connection", "show");
          return list.contains("bond0:bond") && list.contains("bond0.100:vlan") && list.contains("eth0:802-3-ethernet")
              && list.contains("eth1:802-3-ethernet");
        });
        assertEquals("bond0\nbond\n02\\:52\\:44\\:56\\:00\\:01", nmcli(bus, "-g",
            "connection.master,connection.slave-type,802-3-ethernet.mac-address", "connection", "show", "eth0").strip());
        assertEquals("bond0\nbond\n02\\:52\\:44\\:56\\:FF\\:01", nmcli(bus, "-g",
            "connection.master,connection.slave-type,802-3-ethernet.mac-address", "connection", "show", "eth1").strip());
        String options = nmcli(bus, "-g", "bond.options", "connection", "show", "bond0").strip();
        assertTrue(options.contains("mode=active-backup") && options.contains("miimon=100")
            && options.contains("primary=eth0"), options);
        assertEquals("100\nbond0\nmanual\n10.250.100.51/24\n10.250.100.1", nmcli(bus, "-g",
            "vlan.id,vlan.parent,ipv4.method,ipv4.addresses,ipv4.gateway", "connection", "show", "bond0.100").strip());
      } catch (AssertionError e) {
        throw new AssertionError(e.getMessage() + "; its log: " + log("networkmanager-1.log"), e);
      }
      String nmLog = log("networkmanager-1.log");
      assertTrue(nmLog.contains("static network: installed the profiles of host0"), nmLog);
      assertFalse(nmLog.contains("failed to load connection"), nmLog);
    }
  }

  /** nmcli against the NetworkManager on the private bus {@code bus}. */
  private static String nmcli(String bus, String... args) {
    java.util.List<String> cmd = new java.util.ArrayList<>(java.util.List.of("nmcli"));
    cmd.addAll(java.util.List.of(args));
    try {
      ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
      pb.environment().put("DBUS_SYSTEM_BUS_ADDRESS", bus);
      Process p = pb.start();
      String out = new String(p.getInputStream().readAllBytes());
      p.waitFor(10, TimeUnit.SECONDS);
      return out;
    } catch (IOException | InterruptedException e) {
      throw new AssertionError(e);
    }
  }

  /** The command of the Ignition's pre-network-manager-config unit, which must be enabled. */
  private static String execStart(JsonObject ignition) {
    JsonObject unit = StaticNetworkTest.unit(ignition, "pre-network-manager-config.service");
    assertTrue(unit.getBoolean("enabled"), unit.encode());
    return unit.getString("contents").lines().filter(l -> l.startsWith("ExecStart=")).findFirst()
        .orElseThrow(() -> new AssertionError("no ExecStart: " + unit.encode())).substring("ExecStart=".length());
  }

  /**
   * The Ignition's network files (its NetworkManager drop-ins and profiles, the hosts' static configuration
   * and the script) under {@code root} at their paths, with their modes, as Ignition writes them.
   */
  private static void layDown(JsonObject ignition, Path root, int atLeast) throws IOException {
    int n = 0;
    for (Object o : ignition.getJsonObject("storage").getJsonArray("files")) {
      String path = ((JsonObject) o).getString("path");
      if (path.startsWith("/etc/NetworkManager/") || path.startsWith("/etc/assisted/network/")
          || path.equals("/usr/local/bin/pre-network-manager-config.sh")) {
        Path target = root.resolve(path.substring(1));
        Files.createDirectories(target.getParent());
        Files.writeString(target, DiscoveryImageTest.fileContents(ignition, path));
        Files.setPosixFilePermissions(target, PosixFilePermissions.fromString(
            mode(((JsonObject) o).getInteger("mode", 0644))));
        n++;
      }
    }
    assertTrue(n >= atLeast, "the hosts' profiles and MAC maps, the script and the drop-in: " + n);
  }

  private static String mode(int mode) {
    StringBuilder s = new StringBuilder();
    for (int shift = 6; shift >= 0; shift -= 3) {
      int bits = mode >> shift;
      s.append((bits & 4) != 0 ? 'r' : '-').append((bits & 2) != 0 ? 'w' : '-').append((bits & 1) != 0 ? 'x' : '-');
    }
    return s.toString();
  }

  private String log(String name) {
    try {
      return Files.readString(logs.resolve(name));
    } catch (IOException e) {
      return "(no " + name + ": " + e + ")";
    }
  }

  /** {@code ip -n rdv-nsI ARGS}'s output. */
  private static String ip(int i, String... args) {
    java.util.List<String> cmd = new java.util.ArrayList<>(java.util.List.of("ip", "-n", "rdv-ns" + i));
    cmd.addAll(java.util.List.of(args));
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes());
      p.waitFor(10, TimeUnit.SECONDS);
      return out;
    } catch (IOException | InterruptedException e) {
      throw new AssertionError(e);
    }
  }
}
