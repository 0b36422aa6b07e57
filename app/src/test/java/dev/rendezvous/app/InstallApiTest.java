package dev.rendezvous.app;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The service side of an installation on the real bus and database, driven through upstream's API the way the
 * installer (stages, files) and the controller (Joined/Done, finalizing stages, operators, ingress CA, logs) call
 * it with the agent token: from install to installed, with the built-in generator's files.
 */
class InstallApiTest {
  static final String INGRESS_CA = "-----BEGIN CERTIFICATE-----\nMIIBingressCAforTest\n-----END CERTIFICATE-----\n";
  private final Rendezvous system = TestSystem.shared();
  private final Api api = TestSystem.admin();

  /** Registers five hosts (three masters, two workers), answers their checks, installs, and answers disk speed. */
  BrainFlowTest.Ready installing(GatewayDouble gw, String name, List<String> hosts) {
    return BrainFlowTest.install(api, gw, BrainFlowTest.readyCluster(api, gw, name, hosts), hosts);
  }

  static String role(JsonObject h) {
    return h.getBoolean("bootstrap") ? "bootstrap" : h.getString("role");
  }

  static List<String> stages(String role) {
    return switch (role) {
      case "bootstrap" -> List.of("Starting installation", "Installing", "Writing image to disk", "Waiting for control plane",
          "Waiting for bootkube", "Waiting for controller", "Rebooting", "Joined", "Done");
      case "worker" -> List.of("Starting installation", "Installing", "Writing image to disk", "Waiting for control plane",
          "Rebooting", "Joined", "Done");
      default -> List.of("Starting installation", "Installing", "Writing image to disk", "Rebooting", "Joined", "Done");
    };
  }

  @Test
  void installerAndControllerCallsTakeAClusterToInstalled() throws Exception {
    List<String> hosts = BrainFlowTest.newHosts(5);
    try (GatewayDouble gw = new GatewayDouble(system.kafkaBootstrap(), Set.copyOf(hosts))) {
      BrainFlowTest.Ready r = installing(gw, "inst-api", hosts);
      Api agent = Api.agent(api.port, system.agentToken(r.infraEnv(), r.cluster()));

      // the installer's files: made by the built-in generator, which says so
      Api.Reply bootstrap = agent.get("/clusters/" + r.cluster() + "/downloads/files?file_name=bootstrap.ign");
      assertEquals(200, bootstrap.status(), bootstrap.body());
      assertEquals("built-in", bootstrap.headers().firstValue("X-Rendezvous-Generator").orElse(""));
      assertTrue(bootstrap.body().contains("/opt/openshift/auth/kubeconfig"));
      assertEquals(404, agent.get("/clusters/" + r.cluster() + "/downloads/files?file_name=custom_manifests.json").status(),
          "no OLM operators, nothing for the controller to apply");
      JsonObject cluster = api.get("/clusters/" + r.cluster()).json();
      JsonArray ops = cluster.getJsonArray("monitored_operators");
      assertEquals(List.of("console", "cvo"), ops.stream().map(o -> ((JsonObject) o).getString("name")).toList());
      assertTrue(api.get("/events?cluster_id=" + r.cluster()).body().contains("not a real OpenShift payload"),
          "the user is told what the built-in generator made");
      assertEquals(401, Api.agent(api.port, "rdv1.forged.token").get("/clusters/" + r.cluster()).status());

      // each host's installer: its Ignition, then its stages in its role's order
      List<JsonObject> all = new ArrayList<>();
      hosts.forEach(h -> all.add(BrainFlowTest.host(api, r.infraEnv(), h)));
      JsonObject worker = all.stream().filter(h -> "worker".equals(h.getString("role"))).findFirst().orElseThrow();
      String workerIgnition = new String(agent.bytes("/infra-env/" + r.infraEnv() + "/hosts/" + worker.getString("id")
          + "/downloads/ignition"), StandardCharsets.UTF_8);
      assertTrue(workerIgnition.contains("22623/config/worker"), workerIgnition);
      String progressBase = "/infra-envs/" + r.infraEnv() + "/hosts/";
      for (JsonObject h : all) {
        List<String> mine = stages(role(h));
        for (String stage : mine.subList(0, mine.indexOf("Rebooting") + 1)) {
          Api.Reply p = agent.put(progressBase + h.getString("id") + "/progress", new JsonObject()
              .put("current_stage", stage).put("progress_info", stage.equals("Writing image to disk") ? "100%" : ""));
          assertEquals(200, p.status(), stage + ": " + p.body());
        }
      }
      String first = all.get(0).getString("id");
      Await.until("progress applied", BrainFlowTest.PATIENCE, () -> "Rebooting".equals(BrainFlowTest.host(api, r.infraEnv(), first)
          .getJsonObject("progress").getString("current_stage")) ? true : null);
      Api.Reply backwards = agent.put(progressBase + first + "/progress", new JsonObject().put("current_stage", "Installing"));
      assertEquals(409, backwards.status(), "a stage may not go backwards: " + backwards.body());
      Api.Reply unknown = agent.put(progressBase + first + "/progress", new JsonObject().put("current_stage", "Dancing"));
      assertEquals(400, unknown.status(), unknown.body());

      // the controller: Joined and Done per node, then the finalizing work
      for (JsonObject h : all) {
        for (String stage : List.of("Joined", "Done")) {
          assertEquals(200, agent.put(progressBase + h.getString("id") + "/progress",
              new JsonObject().put("current_stage", stage)).status());
        }
      }
      BrainFlowTest.awaitHosts(api, r.infraEnv(), hosts, "installed");
      BrainFlowTest.awaitCluster(api, r.cluster(), "finalizing");
      String c = "/clusters/" + r.cluster();
      assertEquals(409, api.get(c + "/credentials").status(), "no credentials before the console is available");
      assertEquals(200, agent.put(c + "/progress", new JsonObject().put("finalizing_stage", "Waiting for cluster operators")).status());
      assertEquals(400, agent.put(c + "/progress", new JsonObject().put("finalizing_stage", "Lunch")).status());
      JsonArray monitored = agent.get(c + "/monitored-operators").array();
      assertEquals(2, monitored.size());
      for (String op : List.of("console", "cvo")) {
        Api.Reply rep = agent.put(c + "/monitored-operators", new JsonObject().put("name", op).put("status", "available")
            .put("status_info", "All is well").put("version", "4.18.1"));
        assertEquals(200, rep.status(), rep.body());
      }
      assertEquals(404, agent.put(c + "/monitored-operators", new JsonObject().put("name", "ghost").put("status", "available")).status());
      Await.until("console available", BrainFlowTest.PATIENCE, () -> api.get(c + "/credentials").status() == 200 ? true : null);
      JsonObject creds = api.get(c + "/credentials").json();
      assertEquals("kubeadmin", creds.getString("username"));
      assertEquals("https://console-openshift-console.apps.inst-api.example.com", creds.getString("console_url"));
      assertEquals(new String(api.bytes(c + "/downloads/credentials?file_name=kubeadmin-password"), StandardCharsets.UTF_8).strip(),
          creds.getString("password"));
      Api.Reply ingress = agent.post(c + "/uploads/ingress-cert", "\"" + INGRESS_CA.replace("\n", "\\n") + "\"");
      assertEquals(201, ingress.status(), ingress.body());
      BrainFlowTest.awaitCluster(api, r.cluster(), "installed");

      // the kubeconfig now trusts the ingress CA too
      String kubeconfig = new String(api.bytes(c + "/downloads/credentials?file_name=kubeconfig"), StandardCharsets.UTF_8);
      String caData = kubeconfig.lines().filter(l -> l.contains("certificate-authority-data")).findFirst().orElseThrow()
          .replaceAll(".*certificate-authority-data:\\s*", "").strip();
      String ca = new String(Base64.getDecoder().decode(caData), StandardCharsets.UTF_8);
      assertTrue(ca.contains("MIIBingressCAforTest") && ca.indexOf("BEGIN CERTIFICATE") != ca.lastIndexOf("BEGIN CERTIFICATE"),
          "the generated CA and the ingress CA: " + ca);

      // the controller's logs go up and come back
      byte[] bundle = "controller logs".getBytes(StandardCharsets.UTF_8);
      Api.Reply up = agent.upload(c + "/logs?logs_type=controller", "upfile", "controller_logs.tar.gz", bundle);
      assertEquals(204, up.status(), up.body());
      assertArrayEquals(bundle, api.bytes(c + "/logs?logs_type=controller"));
      assertEquals(202, agent.post(c + "/actions/complete-installation", new JsonObject().put("is_success", true)).status());
      Await.until("logs recorded", BrainFlowTest.PATIENCE, () -> api.get(c).json().getString("controller_logs_collected_at"));
      String events = api.get("/events?cluster_id=" + r.cluster()).body();
      for (String name : List.of("host_install_progress_updated", "cluster_finalizing_stage_updated", "cluster_operator_status",
          "cluster_installation_completed", "cluster_logs_uploaded")) {
        assertTrue(events.contains(name), name);
      }
      assertEquals(100, api.get(c).json().getJsonObject("progress").getInteger("total_percentage"));
    }
  }

  @Test
  void anLvmClustersInstallationCarriesTheOperatorsManifestsAndTheControllersResources() throws Exception {
    List<String> hosts = BrainFlowTest.newHosts(3);
    try (GatewayDouble gw = new GatewayDouble(system.kafkaBootstrap(), Set.copyOf(hosts))) {
      String cluster = BrainFlowTest.createCluster(api, "inst-lvm");
      String c = "/clusters/" + cluster;
      Api.Reply lvm = api.patch(c, new JsonObject().put("olm_operators", new JsonArray().add(new JsonObject().put("name", "lvm"))));
      assertEquals(201, lvm.status(), lvm.body());
      String infraEnv = api.post("/infra-envs", Api.infraEnv("inst-lvm-ie", cluster)).json().getString("id");
      hosts.forEach(h -> gw.register(cluster, infraEnv, h));
      BrainFlowTest.awaitHosts(api, infraEnv, hosts, "discovering");
      // LVM's 1200 MiB on top of a master's 16 GiB; the inventory's second disk (sdb) is LVM's
      BrainFlowTest.answerChecks(gw, "inst-lvm", new BrainFlowTest.Ready(cluster, infraEnv, hosts), hosts, i -> {
        JsonObject inv = new JsonObject(GatewayDouble.inventory(i, 8));
        inv.getJsonObject("memory").put("physical_bytes", 32L << 30).put("usable_bytes", 32L << 30);
        return inv.encode();
      });
      BrainFlowTest.awaitCluster(api, cluster, "ready");
      assertEquals(404, api.get(c + "/manifests/files?folder=openshift&file_name=50_openshift-lvm_ns.yaml").status(),
          "rendered when the installation is prepared, as upstream's");
      assertEquals(202, api.post(c + "/actions/install", null).status());
      BrainFlowTest.awaitHosts(api, infraEnv, hosts, "preparing-for-installation");
      hosts.forEach(h -> gw.reply(cluster, infraEnv, h, "installation-disk-speed-check", 0, GatewayDouble.diskSpeed("/dev/sda", 4)));
      BrainFlowTest.awaitCluster(api, cluster, "installing");

      // listed as upstream lists them: only when asked for, as the system's
      assertEquals(0, api.get(c + "/manifests").array().size());
      List<JsonObject> listed = api.get(c + "/manifests?include_system_generated=true").array().stream()
          .map(o -> (JsonObject) o).toList();
      assertEquals(List.of("50_openshift-lvm_ns.yaml", "50_openshift-lvm_operator_group.yaml",
          "50_openshift-lvm_subscription.yaml", "olm_operator_manifests.yaml"),
          listed.stream().map(m -> m.getString("file_name")).toList());
      assertTrue(listed.stream().allMatch(m -> m.getString("folder").equals("openshift")
          && m.getString("manifest_source").equals("system")), listed.toString());
      String subscription = api.get(c + "/manifests/files?folder=openshift&file_name=50_openshift-lvm_subscription.yaml").body();
      assertTrue(subscription.contains("kind: Subscription") && subscription.contains("name: lvms-operator")
          && subscription.contains("namespace: openshift-storage"), subscription);

      // in the installation's files: the bootstrap carries them to bootkube
      Api agent = Api.agent(api.port, system.agentToken(infraEnv, cluster));
      String bootstrap = agent.get(c + "/downloads/files?file_name=bootstrap.ign").body();
      String subscriptionFile = new JsonObject(bootstrap).getJsonObject("storage").getJsonArray("files").stream()
          .map(o -> (JsonObject) o).filter(f -> f.getString("path").equals("/opt/openshift/openshift/50_openshift-lvm_subscription.yaml"))
          .findFirst().orElseThrow().getJsonObject("contents").getString("source");
      assertEquals(subscription, new String(Base64.getDecoder().decode(subscriptionFile.substring(subscriptionFile.indexOf(',') + 1)),
          StandardCharsets.UTF_8));

      // the controller's: the LVMCluster, applied once lvm's CSV exists, and the operator it follows
      JsonArray resources = new JsonArray(agent.get(c + "/downloads/files?file_name=custom_manifests.json").body());
      assertEquals(1, resources.size());
      assertEquals("lvm", resources.getJsonObject(0).getString("Name"));
      assertTrue(new String(Base64.getDecoder().decode(resources.getJsonObject(0).getString("Content")), StandardCharsets.UTF_8)
          .contains("kind: LVMCluster"));
      JsonObject monitored = agent.get(c + "/monitored-operators").array().stream().map(o -> (JsonObject) o)
          .filter(o -> o.getString("name").equals("lvm")).findFirst().orElseThrow();
      assertEquals("olm", monitored.getString("operator_type"));
      assertEquals("openshift-storage", monitored.getString("namespace"));
      assertEquals("lvms-operator", monitored.getString("subscription_name"));
    }
  }

  /**
   * Disk encryption bound to a Tang server on the masters, as a user sets it: refused with the field named when the
   * servers are malformed; the hosts' Tang check read; the installation carries upstream's MachineConfig for the
   * masters' root disk to openshift-install's manifests (here: the bootstrap's), listed as the system's.
   */
  @Test
  void tangDiskEncryptionOnTheMastersBecomesTheirMachineConfig() throws Exception {
    List<String> hosts = BrainFlowTest.newHosts(3);
    try (GatewayDouble gw = new GatewayDouble(system.kafkaBootstrap(), Set.copyOf(hosts))) {
      String cluster = BrainFlowTest.createCluster(api, "inst-luks");
      String c = "/clusters/" + cluster;
      Api.Reply bad = api.patch(c, new JsonObject().put("disk_encryption", new JsonObject().put("enable_on", "masters")
          .put("mode", "tang").put("tang_servers", "[{\"url\":\"http://tang.example.com:7500\"}]")));
      assertEquals(400, bad.status(), bad.body());
      assertTrue(bad.body().contains("tang_servers") && bad.body().contains("Tang thumbprint isn't set"), bad.body());
      String servers = "[{\"url\":\"http://tang.example.com:7500\",\"thumbprint\":\"PLjNyRdGw03zlRoGjQYMahSZGu9\"}]";
      Api.Reply set = api.patch(c, new JsonObject().put("disk_encryption", new JsonObject().put("enable_on", "masters")
          .put("mode", "tang").put("tang_servers", servers)));
      assertEquals(201, set.status(), set.body());
      String infraEnv = api.post("/infra-envs", Api.infraEnv("inst-luks-ie", cluster)).json().getString("id");
      hosts.forEach(h -> gw.register(cluster, infraEnv, h));
      BrainFlowTest.awaitHosts(api, infraEnv, hosts, "discovering");
      hosts.forEach(h -> gw.reply(cluster, infraEnv, h, "tang-connectivity-check", 0,
          "{\"is_success\":true,\"tang_server_response\":[]}"));
      BrainFlowTest.answerChecks(gw, "inst-luks", new BrainFlowTest.Ready(cluster, infraEnv, hosts), hosts);
      BrainFlowTest.install(api, gw, new BrainFlowTest.Ready(cluster, infraEnv, hosts), hosts);

      List<String> listed = api.get(c + "/manifests?include_system_generated=true").array().stream()
          .map(o -> ((JsonObject) o).getString("folder") + "/" + ((JsonObject) o).getString("file_name")).toList();
      assertEquals(List.of("openshift/99-openshift-master-tang-encryption.yaml"), listed, "the masters only");
      String mc = api.get(c + "/manifests/files?folder=openshift&file_name=99-openshift-master-tang-encryption.yaml").body();
      assertTrue(mc.contains("kind: MachineConfig") && mc.contains("url: http://tang.example.com:7500")
          && mc.contains("thumbprint: PLjNyRdGw03zlRoGjQYMahSZGu9") && mc.contains("rd.neednet=1"), mc);
      String bootstrap = Api.agent(api.port, system.agentToken(infraEnv, cluster)).get(c + "/downloads/files?file_name=bootstrap.ign").body();
      assertTrue(new JsonObject(bootstrap).getJsonObject("storage").getJsonArray("files").stream().map(o -> (JsonObject) o)
          .anyMatch(f -> f.getString("path").equals("/opt/openshift/openshift/99-openshift-master-tang-encryption.yaml")),
          "in the manifests openshift-install (and bootkube) get");
    }
  }

  @Test
  void filesAreRefusedToStrangersAndBeforeTheInstallationStarts() {
    String cluster = BrainFlowTest.createCluster(api, "inst-refuse");
    String infraEnv = api.post("/infra-envs", Api.infraEnv("inst-refuse-ie", cluster)).json().getString("id");
    String other = api.post("/infra-envs", Api.infraEnv("inst-other-ie", null)).json().getString("id");
    try {
      String path = "/clusters/" + cluster + "/downloads/files?file_name=master.ign";
      assertEquals(409, Api.agent(api.port, system.agentToken(infraEnv, cluster)).get(path).status(), "not installing yet");
      assertEquals(403, Api.agent(api.port, system.agentToken(other, null)).get(path).status(), "another infra-env's token");
      assertEquals(400, api.get("/clusters/" + cluster + "/downloads/files?file_name=passwd").status());
      assertEquals(401, new Api(api.port, null).get(path).status());
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void cancelAndResetDuringTheInstallationThenASecondInstallationGetsFreshFiles() throws Exception {
    List<String> hosts = BrainFlowTest.newHosts(5);
    try (GatewayDouble gw = new GatewayDouble(system.kafkaBootstrap(), Set.copyOf(hosts))) {
      BrainFlowTest.Ready r = installing(gw, "inst-reset", hosts);
      Api agent = Api.agent(api.port, system.agentToken(r.infraEnv(), r.cluster()));
      String c = "/clusters/" + r.cluster();
      byte[] firstMaster = agent.bytes(c + "/downloads/files?file_name=master.ign");
      String h0 = hosts.get(0);
      assertEquals(200, agent.put("/infra-envs/" + r.infraEnv() + "/hosts/" + h0 + "/progress",
          new JsonObject().put("current_stage", "Starting installation")).status());
      assertEquals(202, api.post(c + "/actions/cancel", null).status());
      BrainFlowTest.awaitCluster(api, r.cluster(), "cancelled");
      BrainFlowTest.awaitHosts(api, r.infraEnv(), hosts, "cancelled");
      assertEquals(202, api.post(c + "/actions/reset", null).status());
      BrainFlowTest.awaitCluster(api, r.cluster(), "insufficient");
      BrainFlowTest.awaitHosts(api, r.infraEnv(), hosts, "resetting-pending-user-action");
      assertTrue(BrainFlowTest.host(api, r.infraEnv(), h0).getString("status_info").contains("booting into the discovery image"),
          "the user is told to boot the hosts into discovery again");
      assertEquals(409, agent.get(c + "/downloads/files?file_name=master.ign").status(), "no files outside an installation");

      // the hosts boot the discovery image again: a new registration each, then their checks once more
      hosts.forEach(h -> gw.register(r.cluster(), r.infraEnv(), h));
      BrainFlowTest.awaitHosts(api, r.infraEnv(), hosts, "discovering");
      BrainFlowTest.Ready again = BrainFlowTest.answerChecks(gw, "inst-reset", r, hosts);
      BrainFlowTest.awaitCluster(api, again.cluster(), "ready");
      assertEquals(202, api.post(c + "/actions/install", null).status());
      // the disks' speed was measured in the first preparation: the hosts are prepared at once this time
      BrainFlowTest.awaitCluster(api, r.cluster(), "installing");
      byte[] secondMaster = agent.bytes(c + "/downloads/files?file_name=master.ign");
      assertTrue(!java.util.Arrays.equals(firstMaster, secondMaster), "a new installation gets a new cluster CA");
    }
  }
}
