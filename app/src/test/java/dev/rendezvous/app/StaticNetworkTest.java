package dev.rendezvous.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.junit.jupiter.api.Test;

/**
 * Upstream's {@code static_network_config}: accepted, validated with 400s naming the host and field,
 * stored, rendered into the discovery Ignition as per-host keyfiles with their MAC maps and the
 * script that installs them, served as upstream's {@code static-network-config} archive, and shown
 * back as a JSON string.
 */
class StaticNetworkTest {
  private final Api api = TestSystem.admin();

  static String yaml(String ip, String nic) {
    return "interfaces:\n- name: " + nic + "\n  type: ethernet\n  state: up\n  ipv4:\n    enabled: true\n    dhcp: false\n"
        + "    address:\n    - ip: " + ip + "\n      prefix-length: 24\n"
        + "dns-resolver:\n  config:\n    server:\n    - 192.168.126.1\n"
        + "routes:\n  config:\n  - destination: 0.0.0.0/0\n    next-hop-address: 192.168.126.1\n    next-hop-interface: " + nic
        + "\n    table-id: 254\n";
  }

  static JsonObject host(String yaml, String... macNic) {
    JsonArray map = new JsonArray();
    for (int i = 0; i < macNic.length; i += 2) {
      map.add(new JsonObject().put("mac_address", macNic[i]).put("logical_nic_name", macNic[i + 1]));
    }
    return new JsonObject().put("network_yaml", yaml).put("mac_interface_map", map);
  }

  static JsonArray twoHosts() {
    return new JsonArray()
        .add(host(yaml("192.168.126.31", "eth0"), "52:54:00:00:00:31", "eth0"))
        .add(host(yaml("192.168.126.30", "eth0"), "52:54:00:00:00:30", "eth0"));
  }

  @Test
  void twoHostsStaticConfigIsInTheDiscoveryIgnitionAndShownBackAsUpstream() throws Exception {
    Api.Reply created = api.post("/infra-envs", Api.infraEnv("static-two", null).put("static_network_config", twoHosts()));
    assertEquals(201, created.status(), created.body());
    String id = created.json().getString("id");

    // shown back as upstream: a JSON string, hosts sorted by YAML, keys in upstream's order
    Object shown = api.get("/infra-envs/" + id).json().getValue("static_network_config");
    assertTrue(shown instanceof String, "a JSON string: " + shown);
    JsonArray back = new JsonArray((String) shown);
    assertEquals(2, back.size());
    assertEquals(yaml("192.168.126.30", "eth0"), back.getJsonObject(0).getString("network_yaml"));
    assertEquals(yaml("192.168.126.31", "eth0"), back.getJsonObject(1).getString("network_yaml"));
    assertTrue(((String) shown).startsWith("[{\"mac_interface_map\":[{\"logical_nic_name\":\"eth0\",\"mac_address\":\"52:54:00:00:00:30\"}],"
        + "\"network_yaml\":"), (String) shown);

    Api.Reply ign = api.get("/infra-envs/" + id + "/downloads/files?file_name=discovery.ign");
    assertEquals(200, ign.status(), ign.body());
    JsonObject config = new JsonObject(ign.body());
    String host0 = DiscoveryImageTest.fileContents(config, "/etc/assisted/network/host0/eth0.nmconnection");
    String host1 = DiscoveryImageTest.fileContents(config, "/etc/assisted/network/host1/eth0.nmconnection");
    assertTrue(host0.contains("[ipv4]\nmethod=manual\naddress1=192.168.126.30/24\n"), host0);
    assertTrue(host0.contains("route1=0.0.0.0/0,192.168.126.1\nroute1_options=table=254\n"), host0);
    assertTrue(host0.contains("mac-address=52:54:00:00:00:30\n"), host0);
    assertTrue(host0.contains("dns=192.168.126.1;\n"), host0);
    assertTrue(host1.contains("address1=192.168.126.31/24\n"), host1);
    assertTrue(host1.contains("mac-address=52:54:00:00:00:31\n"), host1);
    assertEquals("52:54:00:00:00:30=eth0", DiscoveryImageTest.fileContents(config, "/etc/assisted/network/host0/mac_interface.ini"));
    assertEquals("52:54:00:00:00:31=eth0", DiscoveryImageTest.fileContents(config, "/etc/assisted/network/host1/mac_interface.ini"));
    String script = DiscoveryImageTest.fileContents(config, "/usr/local/bin/pre-network-manager-config.sh");
    assertTrue(script.startsWith("#!/bin/bash") && script.contains("mac_interface.ini"), script);
    JsonObject unit = unit(config, "pre-network-manager-config.service");
    assertTrue(unit.getBoolean("enabled"), unit.encode());
    assertTrue(unit.getString("contents").contains("Before=network-pre.target NetworkManager.service"), unit.encode());
    fileMode(config, "/etc/assisted/network/host0/eth0.nmconnection", 0600);
    fileMode(config, "/usr/local/bin/pre-network-manager-config.sh", 0755);
    ignitionValidate(ign.body());

    // upstream's archive of the same files
    Map<String, String> tar = untar(api.bytes("/infra-envs/" + id + "/downloads/files?file_name=static-network-config"));
    assertEquals(java.util.Set.of("/etc/assisted/network/host0/eth0.nmconnection", "/etc/assisted/network/host0/mac_interface.ini",
        "/etc/assisted/network/host1/eth0.nmconnection", "/etc/assisted/network/host1/mac_interface.ini"), tar.keySet());
    assertEquals(host1, tar.get("/etc/assisted/network/host1/eth0.nmconnection"));

    // PATCH replaces it; an empty list clears it
    Api.Reply patched = api.patch("/infra-envs/" + id, new JsonObject().put("static_network_config", new JsonArray()
        .add(host(yaml("192.168.126.40", "ens3"), "52:54:00:00:00:40", "ens3"))));
    assertEquals(201, patched.status(), patched.body());
    assertTrue(patched.json().getString("static_network_config").contains("192.168.126.40"), patched.body());
    JsonObject after = new JsonObject(api.get("/infra-envs/" + id + "/downloads/files?file_name=discovery.ign").body());
    assertTrue(DiscoveryImageTest.fileContents(after, "/etc/assisted/network/host0/ens3.nmconnection")
        .contains("address1=192.168.126.40/24"));
    assertFalse(after.encode().contains("/etc/assisted/network/host1/"), "the old hosts are gone");
    Api.Reply cleared = api.patch("/infra-envs/" + id, new JsonObject().put("static_network_config", new JsonArray()));
    assertEquals(201, cleared.status(), cleared.body());
    assertNull(api.get("/infra-envs/" + id).json().getValue("static_network_config"));
    assertFalse(api.get("/infra-envs/" + id + "/downloads/files?file_name=discovery.ign").body().contains("pre-network-manager-config"));
    assertTrue(untar(api.bytes("/infra-envs/" + id + "/downloads/files?file_name=static-network-config")).isEmpty());
  }

  @Test
  void badStaticConfigIsA400NamingTheHostAndField() {
    String ok = yaml("192.168.126.30", "eth0");
    JsonObject good = host(ok, "52:54:00:00:00:30", "eth0");
    Map<String, JsonArray> cases = new LinkedHashMap<>();
    cases.put("static_network_config[1].network_yaml", new JsonArray().add(good)
        .add(host("interfaces: [\n  - name: eth0", "52:54:00:00:00:31", "eth0")));
    cases.put("static_network_config[1].network_yaml ", new JsonArray().add(good)
        .add(host("dns-resolver:\n  config:\n    server: [192.168.126.1]\n", "52:54:00:00:00:31", "eth0")));
    cases.put("static_network_config[1].mac_interface_map", new JsonArray().add(good)
        .add(host(yaml("192.168.126.31", "eth0"), "52:54:00:00:00:30", "eth0")));
    cases.put("static_network_config[0].mac_interface_map[0].mac_address", new JsonArray()
        .add(host(ok, "52:54:00:00:00", "eth0")));
    // eth1 is in the YAML, not in the map, and not a predictable physical name (en...)
    cases.put("static_network_config[0].mac_interface_map ", new JsonArray().add(host(
        ok.replaceFirst("interfaces:\n", "interfaces:\n- name: eth1\n  type: ethernet\n  state: up\n"),
        "52:54:00:00:00:30", "eth0")));
    cases.put("static_network_config[0].mac_interface_map  ", new JsonArray().add(host(ok)));
    for (Map.Entry<String, JsonArray> c : cases.entrySet()) {
      Api.Reply r = api.post("/infra-envs", Api.infraEnv("bad-static", null).put("static_network_config", c.getValue()));
      assertEquals(400, r.status(), c.getKey() + ": " + r.body());
      assertEquals(c.getKey().strip(), r.json().getString("field"), r.body());
    }
    // the same checks on PATCH
    String id = api.post("/infra-envs", Api.infraEnv("patch-static", null)).json().getString("id");
    Api.Reply r = api.patch("/infra-envs/" + id, new JsonObject().put("static_network_config", cases.get("static_network_config[1].mac_interface_map")));
    assertEquals(400, r.status(), r.body());
    assertEquals("static_network_config[1].mac_interface_map", r.json().getString("field"));
    assertTrue(r.json().getString("reason").contains("52:54:00:00:00:30"), r.body());
    assertNull(api.get("/infra-envs/" + id).json().getValue("static_network_config"), "nothing stored");
  }

  static JsonObject unit(JsonObject config, String name) {
    for (Object o : config.getJsonObject("systemd").getJsonArray("units")) {
      if (name.equals(((JsonObject) o).getString("name"))) {
        return (JsonObject) o;
      }
    }
    throw new AssertionError(name + " is not in the Ignition");
  }

  static void fileMode(JsonObject config, String path, int mode) {
    for (Object o : config.getJsonObject("storage").getJsonArray("files")) {
      if (path.equals(((JsonObject) o).getString("path"))) {
        assertEquals(mode, ((JsonObject) o).getInteger("mode"), path);
        return;
      }
    }
    throw new AssertionError(path + " is not in the Ignition");
  }

  static Map<String, String> untar(byte[] bytes) throws Exception {
    Map<String, String> out = new LinkedHashMap<>();
    try (TarArchiveInputStream in = new TarArchiveInputStream(new ByteArrayInputStream(bytes))) {
      for (TarArchiveEntry e = in.getNextEntry(); e != null; e = in.getNextEntry()) {
        assertEquals(0600, e.getMode() & 0777, e.getName());
        out.put(e.getName(), new String(in.readAllBytes(), StandardCharsets.UTF_8));
      }
    }
    return out;
  }

  /** ignition-validate (Debian package ignition) when installed: no errors and no warnings. */
  static void ignitionValidate(String config) throws Exception {
    if (!Files.isExecutable(Path.of("/usr/bin/ignition-validate"))) {
      return;
    }
    Process p = new ProcessBuilder("/usr/bin/ignition-validate", "-").redirectErrorStream(true).start();
    try (OutputStream o = p.getOutputStream()) {
      o.write(config.getBytes(StandardCharsets.UTF_8));
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    p.getInputStream().transferTo(out);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS));
    assertEquals(0, p.exitValue(), "ignition-validate: " + out);
    assertFalse(out.toString(StandardCharsets.UTF_8).contains("warning"), "ignition-validate: " + out);
  }
}
