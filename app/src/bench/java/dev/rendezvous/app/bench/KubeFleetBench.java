package dev.rendezvous.app.bench;

import dev.rendezvous.agent.AgentConfig;
import dev.rendezvous.agent.AgentSwarm;
import dev.rendezvous.agent.fleet.FleetSwarm;
import dev.rendezvous.app.AppConfig;
import dev.rendezvous.app.KubeHub;
import dev.rendezvous.app.Rendezvous;
import dev.rendezvous.kube.Kinds;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Sites from Git at fleet scale: N single-node sites applied as custom resources (per site a Namespace, its
 * pull-secret Secret, ClusterDeployment, AgentClusterInstall and InfraEnv with auto-approved Agents; one shared
 * ClusterImageSet) to a hub, Rendezvous reconciling them, one dry-run agent booting each InfraEnv's image as soon as
 * its ISO URL is in its status, until every AgentClusterInstall is {@code Completed}. Measures the time from the first
 * manifest applied to the last Completed, and the requests the API server saw per site (the bench's own applies and
 * polls counted apart). Baseline in the same run: the same number of single-node sites through the REST API
 * ({@code ./rendezvous swarm}'s code), on the same system.
 *
 * <p>The hub is fabric8's Kubernetes mock server in CRUD mode (no kube-apiserver can run here). Its CRUD store scans
 * every object on each request and diffs whole objects on each write, so its own cost grows with the fleet: figures
 * include it.
 *
 * <p>{@code mvn -q -B -pl app -Pbench test-compile exec:java -Dbench.main=dev.rendezvous.app.bench.KubeFleetBench
 * -Dexec.args="sites=100 baseline=true"}
 */
public final class KubeFleetBench {
  private static final String PULL_SECRET = "{\"auths\":{\"quay.io\":{\"auth\":\"dXNlcjpwYXNz\"}}}";

  public static void main(String[] argv) throws Exception {
    Map<String, String> a = new HashMap<>(Map.of("sites", "100", "baseline", "true", "timeout", "1800"));
    for (String s : argv) {
      for (String kv : s.split("\\s+")) {
        if (kv.contains("=")) {
          a.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
        }
      }
    }
    int sites = Integer.parseInt(a.get("sites"));
    Duration timeout = Duration.ofSeconds(Long.parseLong(a.get("timeout")));
    Path dir = Files.createTempDirectory("rdv-kube-bench-");
    KubeHub kubeHub = new KubeHub(dir);
    KubernetesClient hub = kubeHub.client();
    Path kubeconfig = kubeHub.kubeconfig();
    int[] ports = dev.rendezvous.bus.LocalPorts.free(2); // API and images: two ports, never handed out twice here
    int apiPort = ports[0];
    Rendezvous system = Rendezvous.start(AppConfig.from(List.of("--data-dir=" + dir.resolve("data"),
        "--api-port=" + apiPort, "--image-port=" + ports[1], "--kubeconfig=" + kubeconfig), Map.of()));
    String token = Files.readString(system.adminTokenFile()).strip();
    try {
      long requestsBefore = kubeHub.requests();
      long t0 = System.nanoTime();
      long own = apply(hub, sites);
      System.out.printf("kube: %d sites applied (%d objects) in %.1f s%n", sites, own, seconds(t0));
      Map<String, AgentSwarm> agents = new HashMap<>();
      Set<String> completed = new HashSet<>();
      double allBooted = -1;
      long nextReport = 0;
      long deadline = System.nanoTime() + timeout.toNanos();
      List<Double> perSite = new ArrayList<>();
      while (completed.size() < sites && System.nanoTime() < deadline) {
        own++;
        for (GenericKubernetesResource ie : hub.genericKubernetesResources(Kinds.INFRA_ENV.context()).inAnyNamespace()
            .list().getItems()) {
          String ns = ie.getMetadata().getNamespace();
          Object url = status(ie, "isoDownloadURL");
          if (url != null && !agents.containsKey(ns)) {
            String ieId = url.toString().replaceAll(".*/images/([0-9a-f-]{36}).*", "$1");
            String clusterId = get(apiPort, token, "/infra-envs/" + ieId).replaceAll("(?s).*\"cluster_id\"\\s*:\\s*\"([^\"]+)\".*", "$1");
            AgentConfig config = AgentConfig.parse(new String[] {"--url", "http://127.0.0.1:" + apiPort,
                "--infra-env-id", ieId, "--dry-run", "--swarm", "1"},
                Map.of("RDV_AGENT_TOKEN", system.agentToken(ieId, clusterId)));
            agents.put(ns, AgentSwarm.start(system.vertx(), config, 1));
          }
        }
        if (allBooted < 0 && agents.size() == sites) {
          allBooted = seconds(t0);
        }
        own++;
        for (GenericKubernetesResource aci : hub.genericKubernetesResources(Kinds.AGENT_CLUSTER_INSTALL.context())
            .inAnyNamespace().list().getItems()) {
          if (completedTrue(aci) && completed.add(aci.getMetadata().getNamespace())) {
            perSite.add(seconds(t0));
          }
        }
        if (System.nanoTime() > nextReport) {
          System.out.printf("kube: %.0f s: %d agents booted, %d Completed, API server requests so far %d%n", seconds(t0),
              agents.size(), completed.size(), kubeHub.requests() - requestsBefore);
          nextReport = System.nanoTime() + 10_000_000_000L;
        }
        Thread.sleep(2000);
      }
      double took = seconds(t0);
      long requests = kubeHub.requests() - requestsBefore - own;
      System.out.printf("kube: %d of %d sites Completed in %.1f s (all agents booted at %.1f s; median site %.1f s);"
          + " API server requests by Rendezvous: %d, %.1f per site (the bench's own %d apart)%n",
          completed.size(), sites, took, allBooted, perSite.isEmpty() ? -1 : perSite.get(perSite.size() / 2),
          requests, requests / (double) sites, own);
      for (AgentSwarm s : agents.values()) {
        s.stop().await(30, java.util.concurrent.TimeUnit.SECONDS);
      }
      if (Boolean.parseBoolean(a.get("baseline"))) {
        long b0 = System.nanoTime();
        FleetSwarm.Report r = new FleetSwarm(new FleetSwarm.Config("http://127.0.0.1:" + apiPort, token, sites, 1, true,
            "rest", null, timeout, Duration.ofSeconds(10)), new PrintStream(new ByteArrayOutputStream(), true,
            StandardCharsets.UTF_8)).run(system.vertx());
        double rest = seconds(b0);
        System.out.printf("baseline (REST, same system): %d sites installed=%s in %.1f s (all ready %.1f s)%n", sites,
            r.allInstalled(), r.allDoneSeconds(), r.allReadySeconds());
        System.out.printf("ratio kube/REST: %.2f (time to all installed)%n", took / r.allDoneSeconds());
      }
    } finally {
      system.close();
      kubeHub.close();
    }
    System.exit(0);
  }

  /** Applies the sites' manifests; the number of objects (each one request). */
  private static long apply(KubernetesClient hub, int sites) throws Exception {
    long n = 0;
    StringBuilder y = new StringBuilder("""
        apiVersion: hive.openshift.io/v1
        kind: ClusterImageSet
        metadata: {name: openshift-v4.18.3}
        spec: {releaseImage: 'quay.io/openshift-release-dev/ocp-release:4.18.3-x86_64'}
        """);
    for (HasMetadata o : hub.load(new ByteArrayInputStream(y.toString().getBytes(StandardCharsets.UTF_8))).items()) {
      hub.resource(o).create();
      n++;
    }
    for (int i = 0; i < sites; i++) {
      String site = "site-" + i;
      String doc = """
          apiVersion: v1
          kind: Namespace
          metadata: {name: SITE}
          ---
          apiVersion: v1
          kind: Secret
          metadata: {name: pull-secret, namespace: SITE}
          type: kubernetes.io/dockerconfigjson
          stringData: {.dockerconfigjson: 'PULL'}
          ---
          apiVersion: hive.openshift.io/v1
          kind: ClusterDeployment
          metadata: {name: SITE, namespace: SITE}
          spec:
            baseDomain: edge.example.com
            clusterName: SITE
            clusterInstallRef: {group: extensions.hive.openshift.io, kind: AgentClusterInstall, name: SITE, version: v1beta1}
            platform: {agentBareMetal: {}}
            pullSecretRef: {name: pull-secret}
          ---
          apiVersion: extensions.hive.openshift.io/v1beta1
          kind: AgentClusterInstall
          metadata: {name: SITE, namespace: SITE}
          spec:
            clusterDeploymentRef: {name: SITE}
            imageSetRef: {name: openshift-v4.18.3}
            networking:
              clusterNetwork: [{cidr: 10.128.0.0/14, hostPrefix: 23}]
              serviceNetwork: [172.30.0.0/16]
              machineNetwork: [{cidr: 10.200.0.0/16}]
            provisionRequirements: {controlPlaneAgents: 1}
          ---
          apiVersion: agent-install.openshift.io/v1beta1
          kind: InfraEnv
          metadata: {name: SITE, namespace: SITE}
          spec:
            clusterRef: {name: SITE, namespace: SITE}
            pullSecretRef: {name: pull-secret}
            agentApproval: {autoApprove: true}
          """.replace("SITE", site).replace("PULL", PULL_SECRET);
      for (HasMetadata o : hub.load(new ByteArrayInputStream(doc.getBytes(StandardCharsets.UTF_8))).items()) {
        hub.resource(o).create();
        n++;
      }
    }
    return n;
  }

  @SuppressWarnings("unchecked")
  private static Object status(GenericKubernetesResource r, String field) {
    return r.getAdditionalProperties().get("status") instanceof Map<?, ?> s ? ((Map<String, Object>) s).get(field) : null;
  }

  private static boolean completedTrue(GenericKubernetesResource aci) {
    if (status(aci, "conditions") instanceof List<?> conditions) {
      for (Object c : conditions) {
        if (c instanceof Map<?, ?> m && "Completed".equals(m.get("type")) && "True".equals(m.get("status"))) {
          return true;
        }
      }
    }
    return false;
  }

  private static String get(int port, String token, String path) throws Exception {
    HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + port + "/api/assisted-install/v2" + path))
        .header("Authorization", "Bearer " + token).build(), HttpResponse.BodyHandlers.ofString());
    return r.body();
  }

  private static double seconds(long t0) {
    return (System.nanoTime() - t0) / 1e9;
  }
}
