package dev.rendezvous.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.service.auth.TokenStore;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Host actions of issue 14 (bind, unbind, day-2 reset and install, reset-validation, installer-args), driven through
 * the state machine: hosts register and report on the bus as a gateway's would.
 */
class HostActionsTest {
  private final Rendezvous system = TestSystem.shared();
  private final Api api = TestSystem.admin();

  private Api otherTenant(String name) throws Exception {
    return new Api(system.config().apiPort(),
        new TokenStore(system.pool()).create(name, "test", false).await(10, TimeUnit.SECONDS));
  }

  @Test
  void lateBindingBindsAndUnbindsThroughTheStateMachine() throws Exception {
    String host = UUID.randomUUID().toString();
    String cluster = BrainFlowTest.createCluster(api, "late-binding");
    String pool = api.post("/infra-envs", Api.infraEnv("late-pool", null)).json().getString("id");
    String hostPath = "/infra-envs/" + pool + "/hosts/" + host;
    try (GatewayDouble gw = new GatewayDouble(system.kafkaBootstrap(), Set.of(host))) {
      gw.register(null, pool, host);
      BrainFlowTest.awaitHosts(api, pool, List.of(host), "discovering-unbound");
      Api.Reply early = api.post(hostPath + "/actions/bind", new JsonObject().put("cluster_id", cluster));
      assertEquals(409, early.status(), "only a known-unbound host binds: " + early.body());
      gw.reply(null, pool, host, "inventory", 0, GatewayDouble.inventory(31, 8));
      BrainFlowTest.awaitHosts(api, pool, List.of(host), "known-unbound");

      Api.Reply noCluster = api.post(hostPath + "/actions/bind", new JsonObject());
      assertEquals(400, noCluster.status());
      assertEquals("cluster_id", noCluster.json().getString("field"));
      Api.Reply unknownCluster = api.post(hostPath + "/actions/bind",
          new JsonObject().put("cluster_id", UUID.randomUUID().toString()));
      assertEquals(400, unknownCluster.status());
      assertEquals("cluster_id", unknownCluster.json().getString("field"));
      Api other = otherTenant("bind-other");
      assertEquals(404, other.post(hostPath + "/actions/bind", new JsonObject().put("cluster_id", cluster)).status());
      assertEquals(404, api.post("/infra-envs/" + pool + "/hosts/" + UUID.randomUUID() + "/actions/bind",
          new JsonObject().put("cluster_id", cluster)).status());
      assertEquals(409, api.post(hostPath + "/actions/unbind", null).status(), "not bound yet");

      Api.Reply bound = api.post(hostPath + "/actions/bind", new JsonObject().put("cluster_id", cluster));
      assertEquals(200, bound.status(), bound.body());
      assertEquals("binding", bound.json().getString("status"));
      assertEquals(cluster, bound.json().getString("cluster_id"));
      assertEquals(409, api.post(hostPath + "/actions/bind", new JsonObject().put("cluster_id", cluster)).status(),
          "already bound");
      assertEquals(1, api.get("/clusters/" + cluster + "/hosts").array().size());

      // the agent exits and registers again: now under the cluster
      gw.register(null, pool, host);
      BrainFlowTest.awaitHosts(api, pool, List.of(host), "discovering");
      assertEquals(cluster, api.get(hostPath).json().getString("cluster_id"));

      assertEquals(404, other.post(hostPath + "/actions/unbind", null).status());
      Api.Reply unbound = api.post(hostPath + "/actions/unbind", null);
      assertEquals(200, unbound.status(), unbound.body());
      assertEquals("unbinding", unbound.json().getString("status"));
      assertNull(unbound.json().getString("cluster_id"));
      assertEquals(0, api.get("/clusters/" + cluster + "/hosts").array().size());
      assertEquals(409, api.post(hostPath + "/actions/unbind", null).status(), "already unbound");
    }
  }

  @Test
  void aMachineBootedFromAnotherInfraEnvsImageIsAHostOfItsOwnThere() throws Exception {
    // one machine (one host id), first booted from a cluster's image, then from an unbound pool's: upstream keeps two
    // host records, one per infra-env, and each agent's events act on its own
    String host = UUID.randomUUID().toString();
    String cluster = BrainFlowTest.createCluster(api, "reused-machine");
    String clusterIe = api.post("/infra-envs", Api.infraEnv("reused-machine-ie", cluster)).json().getString("id");
    String pool = api.post("/infra-envs", Api.infraEnv("reused-machine-pool", null)).json().getString("id");
    try (GatewayDouble gw = new GatewayDouble(system.kafkaBootstrap(), Set.of(host))) {
      gw.register(cluster, clusterIe, host);
      BrainFlowTest.awaitHosts(api, clusterIe, List.of(host), "discovering");
      gw.register(null, pool, host);
      BrainFlowTest.awaitHosts(api, pool, List.of(host), "discovering-unbound");
      gw.reply(null, pool, host, "inventory", 0, GatewayDouble.inventory(33, 8));
      BrainFlowTest.awaitHosts(api, pool, List.of(host), "known-unbound");
      JsonObject first = api.get("/infra-envs/" + clusterIe + "/hosts/" + host).json();
      assertEquals("discovering", first.getString("status"), "the cluster's host is left as it was: " + first);
      assertEquals(cluster, first.getString("cluster_id"));
      assertNull(first.getString("inventory"), "the pool agent's inventory is not the cluster host's");
      assertEquals(1, api.get("/clusters/" + cluster + "/hosts").array().size());
    }
  }

  @Test
  void dayTwoHostsResetAndInstallDayOneHostsDoNot() throws Exception {
    String dayOneHost = UUID.randomUUID().toString();
    String dayTwoHost = UUID.randomUUID().toString();
    String dayOneCluster = BrainFlowTest.createCluster(api, "day1-actions");
    String dayOneIe = api.post("/infra-envs", Api.infraEnv("day1-actions-ie", dayOneCluster)).json().getString("id");
    JsonObject imported = api.post("/clusters/import", new JsonObject().put("name", "day2")
        .put("api_vip_dnsname", "api.day2.example.com").put("openshift_cluster_id", UUID.randomUUID().toString())
        .put("openshift_version", "4.18")).json();
    String dayTwoCluster = imported.getString("id");
    // every ignorable host validation ignored: the day-2 host is known once it has an inventory
    assertEquals(201, api.put("/clusters/" + dayTwoCluster + "/ignored-validations",
        new JsonObject().put("host-validation-ids", "[\"all\"]")).status());
    String dayTwoIe = api.post("/infra-envs", Api.infraEnv("day2-actions-ie", dayTwoCluster)).json().getString("id");
    String oneHostPath = "/infra-envs/" + dayOneIe + "/hosts/" + dayOneHost;
    String twoHostPath = "/infra-envs/" + dayTwoIe + "/hosts/" + dayTwoHost;
    try (GatewayDouble gw = new GatewayDouble(system.kafkaBootstrap(), Set.of(dayOneHost, dayTwoHost))) {
      gw.register(dayOneCluster, dayOneIe, dayOneHost);
      gw.register(dayTwoCluster, dayTwoIe, dayTwoHost);
      BrainFlowTest.awaitHosts(api, dayOneIe, List.of(dayOneHost), "discovering");
      BrainFlowTest.awaitHosts(api, dayTwoIe, List.of(dayTwoHost), "discovering");
      assertEquals("AddToExistingClusterHost", api.get(twoHostPath).json().getString("kind"));

      assertEquals(409, api.post(oneHostPath + "/actions/reset", null).status(), "day-1 host");
      assertEquals(409, api.post(oneHostPath + "/actions/install", null).status(), "day-1 host");
      assertEquals(409, api.post(twoHostPath + "/actions/install", null).status(), "not known yet");

      gw.reply(dayTwoCluster, dayTwoIe, dayTwoHost, "inventory", 0, GatewayDouble.inventory(32, 8));
      gw.checkIn(dayTwoCluster, dayTwoIe, dayTwoHost);
      BrainFlowTest.awaitHosts(api, dayTwoIe, List.of(dayTwoHost), "known");
      Api other = otherTenant("day2-host-other");
      assertEquals(404, other.post(twoHostPath + "/actions/install", null).status());
      assertEquals(404, other.post(twoHostPath + "/actions/reset", null).status());
      Api.Reply installing = api.post(twoHostPath + "/actions/install", null);
      assertEquals(202, installing.status(), installing.body());
      assertEquals("installing", installing.json().getString("status"));
      assertEquals("installing", api.get(twoHostPath).json().getString("status"));
      assertEquals(409, api.post(twoHostPath + "/actions/install", null).status(), "already installing");
      // its installer fetches a pointer to the installed cluster's Machine Config Server (upstream's day-2 Ignition)
      Api.Reply ign = api.get("/infra-env/" + dayTwoIe + "/hosts/" + dayTwoHost + "/downloads/ignition");
      assertEquals(200, ign.status(), ign.body());
      assertEquals("http://api.day2.example.com:22624/config/worker", new JsonObject(ign.body()).getJsonObject("ignition")
          .getJsonObject("config").getJsonArray("merge").getJsonObject(0).getString("source"));
      Api.Reply badCa = api.patch("/clusters/" + dayTwoCluster, new JsonObject().put("ignition_endpoint",
          new JsonObject().put("ca_certificate", "bm90IGEgY2VydA==")));
      assertEquals(400, badCa.status(), badCa.body());
      assertEquals("ignition_endpoint.ca_certificate", badCa.json().getString("field"));

      Api.Reply reset = api.post(twoHostPath + "/actions/reset", null);
      assertEquals(200, reset.status(), reset.body());
      assertEquals("resetting-pending-user-action", reset.json().getString("status"));
      assertEquals(404, api.post("/infra-envs/" + dayTwoIe + "/hosts/" + UUID.randomUUID() + "/actions/reset", null)
          .status());
    }
  }

  @Test
  void installerArgsAndValidationResetsAreCheckedAndStored() throws Exception {
    String host = UUID.randomUUID().toString();
    String cluster = BrainFlowTest.createCluster(api, "installer-args");
    String ie = api.post("/infra-envs", Api.infraEnv("installer-args-ie", cluster)).json().getString("id");
    String hostPath = "/infra-envs/" + ie + "/hosts/" + host;
    try (GatewayDouble gw = new GatewayDouble(system.kafkaBootstrap(), Set.of(host))) {
      gw.register(cluster, ie, host);
      BrainFlowTest.awaitHosts(api, ie, List.of(host), "discovering");

      JsonArray args = new JsonArray().add("--append-karg").add("console=ttyS0,115200n8").add("--copy-network");
      Api.Reply set = api.patch(hostPath + "/installer-args", new JsonObject().put("args", args));
      assertEquals(201, set.status(), set.body());
      assertEquals(args.encode(), set.json().getString("installer_args"), "a JSON-encoded string");
      assertEquals(args.encode(), api.get(hostPath).json().getString("installer_args"));
      Api.Reply badFlag = api.patch(hostPath + "/installer-args",
          new JsonObject().put("args", new JsonArray().add("--append-karg").add("a").add("--wipe-everything")));
      assertEquals(400, badFlag.status());
      assertEquals("args[2]", badFlag.json().getString("field"));
      assertTrue(badFlag.json().getString("reason").contains("--wipe-everything"), badFlag.body());
      Api.Reply badValue = api.patch(hostPath + "/installer-args", new JsonObject().put("args", new JsonArray().add("a b")));
      assertEquals(400, badValue.status());
      assertEquals("args[0]", badValue.json().getString("field"));
      assertEquals(400, api.patch(hostPath + "/installer-args", new JsonObject()).status());
      assertEquals(args.encode(), api.get(hostPath).json().getString("installer_args"), "refusals changed nothing");
      Api other = otherTenant("args-other");
      assertEquals(404, other.patch(hostPath + "/installer-args", new JsonObject().put("args", new JsonArray())).status());
      assertEquals(404, api.patch("/infra-envs/" + ie + "/hosts/" + UUID.randomUUID() + "/installer-args",
          new JsonObject().put("args", new JsonArray())).status());

      String reset = hostPath + "/actions/reset-validation/";
      assertEquals(200, api.patch(reset + "sufficient-installation-disk-speed", new JsonObject()).status());
      assertEquals(200, api.patch(reset + "container-images-available", new JsonObject()).status());
      Api.Reply notResettable = api.patch(reset + "has-min-cpu-cores", new JsonObject());
      assertEquals(400, notResettable.status());
      assertEquals("validation_id", notResettable.json().getString("field"));
      assertEquals(404, other.patch(reset + "container-images-available", new JsonObject()).status());
      assertFalse(api.get(hostPath).json().containsKey("field"));
    }
  }
}
