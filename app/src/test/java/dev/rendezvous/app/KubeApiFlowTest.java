package dev.rendezvous.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.agent.AgentConfig;
import dev.rendezvous.agent.AgentSwarm;
import dev.rendezvous.kube.Kinds;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fleets from Git: a GitOps repository's manifests (upstream's formats) applied to a hub, Rendezvous given its
 * kubeconfig, dry-run agents booting the InfraEnv's image, and the custom resources followed to Completed. The hub is
 * fabric8's Kubernetes mock server in CRUD mode (no kube-apiserver can run here; see {@link KubeHub}).
 */
class KubeApiFlowTest {
  private static final Duration INSTALL = Duration.ofSeconds(240);
  @TempDir
  static Path dir;
  static KubeHub hub;
  static Rendezvous system;
  static Api api;

  @BeforeAll
  static void start() throws Exception {
    hub = new KubeHub(dir);
    system = TestSystem.start(dir.resolve("data"), Map.of("os-images", TestSystem.osImages(),
        "kubeconfig", hub.kubeconfig().toString()));
    api = new Api(system.config().apiPort(), Files.readString(system.adminTokenFile()).strip());
  }

  @AfterAll
  static void stop() {
    if (system != null) {
      system.close();
    }
    if (hub != null) {
      hub.close();
    }
  }

  @Test
  void singleNodeSiteFromGitIsInstalledAndItsKubeconfigLandsInASecret() throws Exception {
    hub.apply("kube/sno/site.yaml");
    String ieId = infraEnvIdOnceImageCreated("site-sno", "sno1");
    JsonObject infraEnv = api.get("/infra-envs/" + ieId).json();
    String clusterId = infraEnv.getString("cluster_id");
    assertNotNull(clusterId, "the InfraEnv's clusterRef bound its infra-env to the AgentClusterInstall's cluster");
    assertEquals("InfraEnv/site-sno/sno1", infraEnv.getString("kube_key"));
    JsonObject cluster = api.get("/clusters/" + clusterId).json();
    assertEquals("sno1", cluster.getString("name"));
    assertEquals("edge.example.com", cluster.getString("base_dns_domain"));
    assertEquals("None", cluster.getString("high_availability_mode"));
    assertEquals(1, infraEnv.getString("static_network_config").contains("52:54:00:aa:00:01") ? 1 : 0,
        "the NMStateConfig picked by the label selector is the infra-env's static networking");

    // REST reads stay open; a write to what a CR owns is refused, naming the CR
    Api.Reply refused = api.patch("/clusters/" + clusterId, new JsonObject().put("base_dns_domain", "other.example.com"));
    assertEquals(409, refused.status(), refused.body());
    assertTrue(refused.json().getString("reason").contains("AgentClusterInstall/site-sno/sno1"), refused.body());
    assertEquals("edge.example.com", api.get("/clusters/" + clusterId).json().getString("base_dns_domain"));

    AgentSwarm agents = boot(ieId, clusterId, 1);
    try {
      String hostId = agents.agents().get(0).hostId();
      GenericKubernetesResource agent = Await.until("the Agent CR of the discovered host", Duration.ofSeconds(60),
          () -> hub.get(Kinds.AGENT, "site-sno", hostId));
      assertEquals("sno1", ((Map<?, ?>) agent.getMetadata().getLabels()).get(Kinds.INFRA_ENV_LABEL));
      assertEquals(Boolean.FALSE, KubeHub.path(agent, "spec", "approved"), "nothing installs until approved");
      Await.until("RequirementsMet=False UnapprovedAgents", Duration.ofSeconds(90), () -> KubeHub.conditionIs(
          hub.get(Kinds.AGENT_CLUSTER_INSTALL, "site-sno", "sno1"), "RequirementsMet", "False", "UnapprovedAgents"));
      assertEquals("ready", api.get("/clusters/" + clusterId).json().getString("status"),
          "ready, yet held back by the unapproved Agent");

      hub.mergePatch(Kinds.AGENT, "site-sno", hostId, "{\"spec\":{\"approved\":true}}");
      GenericKubernetesResource aci = until("Completed=True", INSTALL, Kinds.AGENT_CLUSTER_INSTALL, "site-sno", "sno1",
          () -> {
        GenericKubernetesResource r = hub.get(Kinds.AGENT_CLUSTER_INSTALL, "site-sno", "sno1");
        return KubeHub.conditionIs(r, "Completed", "True", "InstallationCompleted") ? r : null;
      });
      assertTrue(KubeHub.conditionIs(aci, "Stopped", "True", "InstallationCompleted"));
      assertTrue(KubeHub.conditionIs(aci, "Failed", "False", "InstallationNotFailed"));
      assertEquals("installed", KubeHub.path(aci, "status", "debugInfo", "state"));
      assertTrue(KubeHub.conditionIs(hub.get(Kinds.AGENT, "site-sno", hostId), "Installed", "True", null));

      GenericKubernetesResource cd = Await.until("ClusterDeployment spec.installed", Duration.ofSeconds(30), () -> {
        GenericKubernetesResource r = hub.get(Kinds.CLUSTER_DEPLOYMENT, "site-sno", "sno1");
        return Boolean.TRUE.equals(KubeHub.path(r, "spec", "installed")) ? r : null;
      });
      assertEquals(clusterId, KubeHub.path(cd, "spec", "clusterMetadata", "infraID"));
      assertEquals("sno1-admin-kubeconfig",
          KubeHub.path(cd, "spec", "clusterMetadata", "adminKubeconfigSecretRef", "name"));
      Secret kubeconfig = hub.client().secrets().inNamespace("site-sno").withName("sno1-admin-kubeconfig").get();
      assertEquals(api.get("/clusters/" + clusterId + "/downloads/credentials?file_name=kubeconfig").body(),
          secretText(kubeconfig, "kubeconfig"), "the Secret holds the kubeconfig the REST API serves");
      Secret password = hub.client().secrets().inNamespace("site-sno").withName("sno1-admin-password").get();
      assertEquals(api.get("/clusters/" + clusterId + "/credentials").json().getString("password"),
          secretText(password, "password"));
    } finally {
      agents.stop().await(30, TimeUnit.SECONDS);
    }

    // deleting the CRs removes what they made; their finalizers let them go once it is gone
    hub.delete(Kinds.INFRA_ENV, "site-sno", "sno1");
    Await.until("the InfraEnv, its Agents, hosts and infra-env gone", Duration.ofSeconds(60),
        () -> hub.get(Kinds.INFRA_ENV, "site-sno", "sno1") == null && hub.list(Kinds.AGENT, "site-sno").isEmpty()
            && api.get("/infra-envs/" + ieId).status() == 404);
    var owners = hub.get(Kinds.AGENT_CLUSTER_INSTALL, "site-sno", "sno1").getMetadata().getOwnerReferences();
    assertEquals(List.of("ClusterDeployment/sno1"), owners.stream().map(o -> o.getKind() + "/" + o.getName()).toList(),
        "the AgentClusterInstall belongs to its ClusterDeployment");
    hub.delete(Kinds.CLUSTER_DEPLOYMENT, "site-sno", "sno1"); // the mock hub has no garbage collector: we delete it
    Await.until("the AgentClusterInstall and its cluster gone with the ClusterDeployment", Duration.ofSeconds(60),
        () -> hub.get(Kinds.AGENT_CLUSTER_INSTALL, "site-sno", "sno1") == null
            && api.get("/clusters/" + clusterId).status() == 404);
  }

  @Test
  void threePlusTwoSiteWithLateBindingAgentsBoundByTheirSpec() throws Exception {
    hub.apply("kube/ha/site.yaml");
    String ieId = infraEnvIdOnceImageCreated("site-ha", "ha1");
    assertNull(api.get("/infra-envs/" + ieId).json().getString("cluster_id"), "late binding: no cluster yet");
    String clusterId = Await.until("the AgentClusterInstall's cluster", Duration.ofSeconds(30), () -> {
      for (Object c : api.get("/clusters").array()) {
        if ("AgentClusterInstall/site-ha/ha1".equals(((JsonObject) c).getString("kube_key"))) {
          return ((JsonObject) c).getString("id");
        }
      }
      return null;
    });
    AgentSwarm agents = boot(ieId, null, 5);
    try {
      List<GenericKubernetesResource> crs = Await.until("five Agents", Duration.ofSeconds(60), () -> {
        List<GenericKubernetesResource> l = hub.list(Kinds.AGENT, "site-ha");
        return l.size() == 5 ? l : null;
      });
      for (GenericKubernetesResource a : crs) {
        assertNull(KubeHub.path(a, "spec", "clusterDeploymentName"), "unbound until its spec says");
        Await.until("Bound=False Unbound", Duration.ofSeconds(60), () -> KubeHub.conditionIs(
            hub.get(Kinds.AGENT, "site-ha", a.getMetadata().getName()), "Bound", "False", "Unbound"));
      }
      for (GenericKubernetesResource a : crs) {
        hub.mergePatch(Kinds.AGENT, "site-ha", a.getMetadata().getName(),
            "{\"spec\":{\"approved\":true,\"clusterDeploymentName\":{\"name\":\"ha1\",\"namespace\":\"site-ha\"}}}");
      }
      Await.until("every host bound to the cluster", Duration.ofSeconds(90),
          () -> api.get("/clusters/" + clusterId + "/hosts").array().size() == 5);
      // the rest of an Agent's spec reaches its host: name and Ignition overrides
      String first = crs.get(0).getMetadata().getName();
      String overrides = "{\"ignition\":{\"version\":\"3.2.0\"},\"storage\":{\"files\":[{\"path\":\"/etc/site\","
          + "\"contents\":{\"source\":\"data:,ha1\"}}]}}";
      hub.mergePatch(Kinds.AGENT, "site-ha", first, new JsonObject().put("spec", new JsonObject()
          .put("hostname", "ha1-node-a").put("ignitionConfigOverrides", overrides)).encode());
      Await.until("hostname and Ignition overrides on the host", Duration.ofSeconds(60), () -> {
        JsonObject h = api.get("/infra-envs/" + ieId + "/hosts/" + first).json();
        return "ha1-node-a".equals(h.getString("requested_hostname"))
            && overrides.equals(h.getString("ignition_config_overrides"));
      });
      GenericKubernetesResource aci;
      try {
        aci = until("Completed=True", INSTALL, Kinds.AGENT_CLUSTER_INSTALL, "site-ha", "ha1", () -> {
          GenericKubernetesResource r = hub.get(Kinds.AGENT_CLUSTER_INSTALL, "site-ha", "ha1");
          return KubeHub.conditionIs(r, "Completed", "True", "InstallationCompleted") ? r : null;
        });
      } catch (AssertionError e) {
        StringBuilder hosts = new StringBuilder();
        for (Object h : api.get("/clusters/" + clusterId + "/hosts").array()) {
          JsonObject o = (JsonObject) h;
          hosts.append(o.getString("id")).append(' ').append(o.getString("status")).append(' ')
              .append(o.getString("role")).append(": ").append(o.getString("status_info")).append("; ");
        }
        throw new AssertionError(e.getMessage() + "; cluster " + api.get("/clusters/" + clusterId).json()
            .getString("status") + "; hosts " + hosts, e);
      }
      assertEquals(3, ((Number) KubeHub.path(aci, "status", "controlPlaneAgentsDiscovered")).intValue());
      assertEquals(2, ((Number) KubeHub.path(aci, "status", "workerAgentsDiscovered")).intValue());
      for (GenericKubernetesResource a : hub.list(Kinds.AGENT, "site-ha")) {
        assertTrue(KubeHub.conditionIs(a, "Bound", "True", "Bound"), a.getMetadata().getName());
      }

      // reclaim, as upstream's hub does it: an installed worker's Agent is unbound (no BareMetalHost manages it), its
      // agent fetches the discovery kernel and initrd signed for it, reboots into discovery (the dry-run agent starts
      // again) and the host is back in the pool, ready for another cluster
      String worker = api.get("/clusters/" + clusterId + "/hosts").array().stream().map(JsonObject.class::cast)
          .filter(h -> "worker".equals(h.getString("role"))).findFirst().orElseThrow().getString("id");
      hub.mergePatch(Kinds.AGENT, "site-ha", worker, "{\"spec\":{\"clusterDeploymentName\":null}}");
      JsonObject back;
      try {
        back = Await.until("the reclaimed worker back in the pool", Duration.ofSeconds(120), () -> {
          JsonObject h = api.get("/infra-envs/" + ieId + "/hosts/" + worker).json();
          return "known-unbound".equals(h.getString("status")) ? h : null;
        });
      } catch (AssertionError e) {
        throw new AssertionError(e.getMessage() + "; host " + api.get("/infra-envs/" + ieId + "/hosts/" + worker).json()
            .getString("status") + "; events " + api.get("/events?host_id=" + worker + "&infra_env_id=" + ieId).body(), e);
      }
      assertNull(back.getString("cluster_id"), back.encodePrettily());
      String events = api.get("/events?host_id=" + worker + "&infra_env_id=" + ieId).body();
      for (String step : List.of("from installed to reclaiming", "from reclaiming to reclaiming-rebooting",
          "from reclaiming-rebooting to discovering-unbound")) {
        assertTrue(events.contains(step), step + ": " + events);
      }
      // the agent fetched the discovery kernel and the infra-env's initrd with the credential the service signed
      String metrics = api.get("/metrics").body();
      for (String artifact : List.of("kernel", "pxe-initrd")) {
        assertTrue(SwarmTest.value(metrics, "rdv_image_downloads_total{artifact=\"" + artifact
            + "\",complete=\"true\"}") >= 1, artifact + " downloaded");
      }
      Await.until("the Agent Bound=False Unbound", Duration.ofSeconds(60), () -> KubeHub.conditionIs(
          hub.get(Kinds.AGENT, "site-ha", worker), "Bound", "False", "Unbound"));
      assertEquals("installed", api.get("/clusters/" + clusterId).json().getString("status"));
    } finally {
      agents.stop().await(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void aBadSpecIsAnInputErrorNamingTheFieldAndAMissingSecretClearsOnceItAppears() throws Exception {
    hub.apply("kube/bad/site.yaml");
    // the ClusterDeployment may reach the hub after its AgentClusterInstall: "ClusterDeployment ... not found" is an
    // InputError of its own until then (seen in CI), so wait for the one about the spec's field
    GenericKubernetesResource aci = Await.until("InputError on the field", Duration.ofSeconds(60), () -> {
      GenericKubernetesResource r = hub.get(Kinds.AGENT_CLUSTER_INSTALL, "site-bad", "bad1");
      return KubeHub.conditionIs(r, "SpecSynced", "False", "InputError") && String.valueOf(
          KubeHub.condition(r, "SpecSynced").get("message")).contains("provisionRequirements") ? r : null;
    });
    String message = (String) KubeHub.condition(aci, "SpecSynced").get("message");
    assertTrue(message.contains("AgentClusterInstall.spec.provisionRequirements.controlPlaneAgents"), message);
    for (Object c : api.get("/clusters").array()) {
      assertTrue(!"AgentClusterInstall/site-bad/bad1".equals(((JsonObject) c).getString("kube_key")),
          "nothing created half-way");
    }
    // the InfraEnv's pull secret is not there yet: a condition, which clears by itself once it appears
    GenericKubernetesResource ie = Await.until("ImageCreated=False", Duration.ofSeconds(60), () -> {
      GenericKubernetesResource r = hub.get(Kinds.INFRA_ENV, "site-bad", "late-secret");
      return KubeHub.conditionIs(r, "ImageCreated", "False", "ImageCreationError") ? r : null;
    });
    assertTrue(((String) KubeHub.condition(ie, "ImageCreated").get("message")).contains("pull-secret-later"));
    hub.client().secrets().inNamespace("site-bad").resource(new SecretBuilder().withNewMetadata()
        .withName("pull-secret-later").withNamespace("site-bad").endMetadata()
        .addToStringData(".dockerconfigjson", Api.PULL_SECRET).build()).create();
    until("ImageCreated=True once the Secret exists", Duration.ofSeconds(60), Kinds.INFRA_ENV, "site-bad", "late-secret",
        () -> KubeHub.conditionIs(
        hub.get(Kinds.INFRA_ENV, "site-bad", "late-secret"), "ImageCreated", "True", "ImageCreated"));
  }

  @Test
  void aRestartMidInstallLeavesTheCrsAndTheDatabaseAgreeing() throws Exception {
    hub.apply("kube/restart/site.yaml");
    String ieId = infraEnvIdOnceImageCreated("site-restart", "rs1");
    String clusterId = api.get("/infra-envs/" + ieId).json().getString("cluster_id");
    // the agents live in a Vert.x of their own: the host keeps running while Rendezvous restarts
    io.vertx.core.Vertx hosts = io.vertx.core.Vertx.vertx();
    AgentConfig config = AgentConfig.parse(new String[] {"--url", "http://127.0.0.1:" + system.config().apiPort(),
        "--infra-env-id", ieId, "--dry-run", "--swarm", "1"}, Map.of("RDV_AGENT_TOKEN", system.agentToken(ieId, clusterId)));
    AgentSwarm agents = AgentSwarm.start(hosts, config, 1);
    try {
      until("installing (auto-approved)", Duration.ofSeconds(120), Kinds.AGENT_CLUSTER_INSTALL, "site-restart", "rs1",
          () -> KubeHub.conditionIs(hub.get(Kinds.AGENT_CLUSTER_INSTALL, "site-restart", "rs1"), "Completed", "False",
              "InstallationInProgress"));
      int apiPort = system.config().apiPort();
      int imagePort = system.config().imagePort();
      system.close();
      system = TestSystem.startOn(dir.resolve("data"), apiPort, imagePort, Map.of("os-images", TestSystem.osImages(),
          "kubeconfig", hub.kubeconfig().toString()));
      api = new Api(system.config().apiPort(), Files.readString(system.adminTokenFile()).strip());
      until("Completed=True after the restart", INSTALL, Kinds.AGENT_CLUSTER_INSTALL, "site-restart", "rs1",
          () -> KubeHub.conditionIs(hub.get(Kinds.AGENT_CLUSTER_INSTALL, "site-restart", "rs1"), "Completed", "True",
              "InstallationCompleted"));
      Await.until("ClusterDeployment spec.installed", Duration.ofSeconds(30), () -> Boolean.TRUE.equals(
          KubeHub.path(hub.get(Kinds.CLUSTER_DEPLOYMENT, "site-restart", "rs1"), "spec", "installed")));
    } finally {
      agents.stop().await(30, TimeUnit.SECONDS);
      hosts.close().await(10, TimeUnit.SECONDS);
    }
    // the database and the CRs agree: one cluster and one infra-env for them (nothing made twice), one host, one Agent
    assertEquals("installed", api.get("/clusters/" + clusterId).json().getString("status"));
    long clusters = api.get("/clusters").array().stream()
        .filter(c -> "AgentClusterInstall/site-restart/rs1".equals(((JsonObject) c).getString("kube_key"))).count();
    assertEquals(1, clusters);
    long infraEnvs = api.get("/infra-envs").array().stream()
        .filter(e -> "InfraEnv/site-restart/rs1".equals(((JsonObject) e).getString("kube_key"))).count();
    assertEquals(1, infraEnvs);
    assertEquals(1, api.get("/clusters/" + clusterId + "/hosts").array().size());
    List<GenericKubernetesResource> crs = hub.list(Kinds.AGENT, "site-restart");
    assertEquals(1, crs.size());
    assertEquals("installed", KubeHub.path(crs.get(0), "status", "debugInfo", "state"));
  }

  /** As {@link Await#until}, and on a timeout the CR as it stands, to see why. */
  private static <T> T until(String what, Duration timeout, Kinds kind, String ns, String name,
      java.util.function.Supplier<T> probe) {
    try {
      return Await.until(what, timeout, probe);
    } catch (AssertionError e) {
      GenericKubernetesResource r = hub.get(kind, ns, name);
      throw new AssertionError(e.getMessage() + "; " + kind.kind + " " + ns + "/" + name + " is "
          + (r == null ? "gone" : hub.client().getKubernetesSerialization().asJson(r)), e);
    }
  }

  private static String infraEnvIdOnceImageCreated(String ns, String name) {
    GenericKubernetesResource ie = until("InfraEnv " + name + " ImageCreated with its ISO URL", Duration.ofSeconds(60),
        Kinds.INFRA_ENV, ns, name, () -> {
          GenericKubernetesResource r = hub.get(Kinds.INFRA_ENV, ns, name);
          return KubeHub.conditionIs(r, "ImageCreated", "True", "ImageCreated") ? r : null;
        });
    String url = (String) KubeHub.path(ie, "status", "isoDownloadURL");
    assertNotNull(url);
    assertNotNull(KubeHub.path(ie, "status", "bootArtifacts", "ipxeScript"));
    String id = url.replaceAll(".*/images/([0-9a-f-]{36}).*", "$1");
    assertEquals(200, api.get("/infra-envs/" + id).status(), url);
    return id;
  }

  /** Dry-run agents booted from the infra-env's image (its token, as the discovery Ignition carries it). */
  private static AgentSwarm boot(String ieId, String clusterId, int hosts) throws Exception {
    AgentConfig config = AgentConfig.parse(new String[] {"--url", "http://127.0.0.1:" + system.config().apiPort(),
        "--infra-env-id", ieId, "--dry-run", "--swarm", Integer.toString(hosts)},
        Map.of("RDV_AGENT_TOKEN", system.agentToken(ieId, clusterId)));
    return AgentSwarm.start(system.vertx(), config, hosts);
  }

  private static String secretText(Secret s, String key) {
    assertNotNull(s, "the Secret exists");
    if (s.getStringData() != null && s.getStringData().containsKey(key)) {
      return s.getStringData().get(key);
    }
    return new String(Base64.getDecoder().decode(s.getData().get(key)), StandardCharsets.UTF_8);
  }
}
