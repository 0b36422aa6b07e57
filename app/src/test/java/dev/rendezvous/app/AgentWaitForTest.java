package dev.rendezvous.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.rendezvous.agentbased.cli.AgentCli;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code agent wait-for} against a real service (the shared test system standing in for a site's Rendezvous, reached
 * with --rendezvous-url): it follows the site's cluster by name and fails, saying which, when hosts of
 * agent-config.yaml never show up, or when the service never answers. The site's service vanishing right after
 * {@code ready} cannot be played by the shared system (it must stay up): a stand-in HTTP server answers as it would,
 * then stops, and the new cluster's API is fabric8's mock server in CRUD mode.
 */
class AgentWaitForTest {

  static void site(Path dir, String name) throws Exception {
    Files.writeString(dir.resolve("install-config.yaml"), """
        apiVersion: v1
        baseDomain: example.com
        metadata:
          name: %s
        networking:
          machineNetwork:
          - cidr: 192.168.111.0/24
        compute:
        - name: worker
          replicas: 0
        controlPlane:
          name: master
          replicas: 3
        platform:
          baremetal:
            apiVIPs: [192.168.111.5]
            ingressVIPs: [192.168.111.4]
        pullSecret: '%s'
        sshKey: '%s'
        """.formatted(name, Api.PULL_SECRET, Api.SSH_KEY));
    StringBuilder agent = new StringBuilder("apiVersion: v1beta1\nkind: AgentConfig\nmetadata:\n  name: " + name
        + "\nrendezvousIP: 192.168.111.80\nhosts:\n");
    for (int i = 0; i < 3; i++) {
      agent.append("- hostname: master-").append(i).append("\n  role: master\n  interfaces:\n  - name: enp1s0\n")
          .append("    macAddress: 52:54:00:00:00:0").append(i + 1).append('\n');
    }
    Files.writeString(dir.resolve("agent-config.yaml"), agent);
    Files.createDirectories(dir.resolve("auth"));
    Files.writeString(dir.resolve("auth/rendezvous-admin-token"), TestSystem.admin().token + "\n");
  }

  @Test
  void hostsThatNeverShowUpFailTheWaitNamingThem(@TempDir Path dir) throws Exception {
    String name = "waitfor-" + UUID.randomUUID().toString().substring(0, 8);
    site(dir, name);
    // the site's cluster, as its service registers it; no host ever boots
    Api.Reply created = TestSystem.admin().post("/clusters", Api.cluster(name));
    assertEquals(201, created.status(), created.body());
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status = AgentCli.run(List.of("wait-for", "bootstrap-complete", "--dir", dir.toString(),
        "--rendezvous-url=http://127.0.0.1:" + TestSystem.admin().port, "--poll-seconds=0.2",
        "--host-timeout-minutes=0.02"), new PrintStream(out, true), new PrintStream(err, true));
    String said = out.toString(StandardCharsets.UTF_8);
    String why = err.toString(StandardCharsets.UTF_8);
    assertEquals(1, status, said + why);
    // followed as it is: pending-for-input until the brain's first evaluation, then insufficient (a loaded machine
    // may not get there within the host timeout)
    assertTrue(said.matches("(?s).*Cluster " + name + ": (pending-for-input|insufficient).*"),
        "the cluster's status is followed: " + said);
    assertTrue(why.contains("master-0 (52:54:00:00:00:01), master-1 (52:54:00:00:00:02), master-2 (52:54:00:00:00:03)"
        + " never showed up"), why);
  }

  @Test
  void aServiceThatNeverAnswersFailsTheWaitWhenTimeRunsOut(@TempDir Path dir) throws Exception {
    site(dir, "waitfor-silent");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status = AgentCli.run(List.of("wait-for", "install-complete", "--dir", dir.toString(),
        "--rendezvous-url=http://127.0.0.1:" + TestSystem.freePort(), "--poll-seconds=0.2", "--timeout-minutes=0.03"),
        new PrintStream(out, true), new PrintStream(err, true));
    assertEquals(1, status);
    assertTrue(out.toString(StandardCharsets.UTF_8).contains("does not answer yet"), out.toString(StandardCharsets.UTF_8));
    assertTrue(err.toString(StandardCharsets.UTF_8).contains("bootstrap did not complete in time"),
        err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void aServiceGoneRightAfterReadyIsABootstrapDoneWhenTheClusterServesItsVersion(@TempDir Path dir) throws Exception {
    String name = "waitfor-quick";
    site(dir, name);
    String id = UUID.randomUUID().toString();
    // the site's service as a dry run shows it: ready, all hosts known; the next poll finds the host rebooted into the
    // cluster (the installation ran between two polls)
    CountDownLatch sawReady = new CountDownLatch(2);
    HttpServer site = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    site.createContext("/api/assisted-install/v2/clusters", x -> {
      String path = x.getRequestURI().getPath();
      if (path.endsWith("/clusters")) {
        answer(x, "[{\"id\":\"" + id + "\",\"name\":\"" + name + "\",\"status\":\"ready\","
            + "\"status_info\":\"Cluster ready to be installed\"}]");
        sawReady.countDown();
      } else {
        StringBuilder hosts = new StringBuilder("[");
        for (int i = 0; i < 3; i++) {
          hosts.append(i == 0 ? "" : ",").append("{\"id\":\"").append(UUID.randomUUID())
              .append("\",\"requested_hostname\":\"master-").append(i).append("\",\"status\":\"known\",")
              .append("\"bootstrap\":").append(i == 0).append('}');
        }
        answer(x, hosts.append(']').toString());
      }
    });
    site.start();
    try (KubeHub cluster = new KubeHub(dir)) {
      cluster.client().apiextensions().v1().customResourceDefinitions().resource(new CustomResourceDefinitionBuilder()
          .withNewMetadata().withName("clusterversions.config.openshift.io").endMetadata()
          .withNewSpec().withGroup("config.openshift.io").withScope("Cluster")
          .withNewNames().withKind("ClusterVersion").withPlural("clusterversions").withSingular("clusterversion")
          .endNames().addNewVersion().withName("v1").withServed(true).withStorage(true).endVersion().endSpec()
          .build()).create();
      cluster.client().genericKubernetesResources("config.openshift.io/v1", "ClusterVersion")
          .resource(new GenericKubernetesResourceBuilder().withApiVersion("config.openshift.io/v1")
              .withKind("ClusterVersion").withNewMetadata().withName("version").endMetadata().build())
          .create();
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      Thread stop = new Thread(() -> {
        try {
          if (sawReady.await(60, TimeUnit.SECONDS)) {
            site.stop(0);
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      stop.start();
      int status = AgentCli.run(List.of("wait-for", "bootstrap-complete", "--dir", dir.toString(),
          "--rendezvous-url=http://127.0.0.1:" + site.getAddress().getPort(), "--kubeconfig=" + cluster.kubeconfig(),
          "--poll-seconds=0.2", "--timeout-minutes=0.5"), new PrintStream(out, true), new PrintStream(out, true));
      stop.join();
      String said = out.toString(StandardCharsets.UTF_8);
      assertEquals(0, status, said);
      assertTrue(said.contains("Cluster " + name + ": ready"), said);
      assertTrue(said.contains("it rebooted into the cluster") && said.contains("Bootstrap is complete"), said);
    } finally {
      site.stop(0);
    }
  }

  private static void answer(HttpExchange x, String json) throws IOException {
    byte[] body = json.getBytes(StandardCharsets.UTF_8);
    x.getResponseHeaders().set("Content-Type", "application/json");
    x.sendResponseHeaders(200, body.length);
    x.getResponseBody().write(body);
    x.close();
  }
}
