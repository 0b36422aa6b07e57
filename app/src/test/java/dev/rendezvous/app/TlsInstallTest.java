package dev.rendezvous.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rendezvous.agent.AgentConfig;
import dev.rendezvous.agent.AgentSwarm;
import dev.rendezvous.agent.fleet.FleetSwarm;
import dev.rendezvous.tls.ClientTrust;
import dev.rendezvous.tls.Pem;
import dev.rendezvous.tls.ServerCertificates;
import dev.rendezvous.tls.ServerTls;
import dev.rendezvous.tls.TlsConfig;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The whole program with {@code --tls=auto}: the API, the agents' gateway (websockets) and the image service on
 * HTTPS with a CA made in the data directory; dry-run agents that trust only the CA their discovery Ignition carries
 * install clusters end to end (their installers and in-process controllers verifying the service too); agents that
 * cannot verify the server send nothing.
 */
// never beside a class with hosts in network namespaces (it may run beside the Chromium ones): three runs in a row on
// one machine, beside NetnsInstallTest's six agents, its instance stopped answering for a minute through 4-9 s
// machine-wide stalls (Kafka's controller fencing its broker) and the class failed, at v0.51.0 as at HEAD
@org.junit.jupiter.api.extension.ExtendWith(NetnsExclusive.Shared.class)
class TlsInstallTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static Path dir;
  private static Rendezvous system;
  private static String token;
  private static HttpClient user;
  private static String base;

  @BeforeAll
  static void start() throws Exception {
    dir = Files.createTempDirectory("rdv-tls-");
    system = TestSystem.start(dir, Map.of("tls", "auto", "os-images", TestSystem.osImages()));
    token = Files.readString(system.adminTokenFile()).strip();
    // a user's client trusts the CA the service made (curl --cacert data/tls/ca.pem); its connect timeout is room for
    // a machine loaded by another test JVM, not a claim about speed
    user = HttpClient.newBuilder().sslContext(ClientTrust.trusting(Files.readString(dir.resolve("tls/ca.pem"))))
        .connectTimeout(Duration.ofSeconds(30)).build();
    base = "https://localhost:" + system.config().apiPort();
  }

  @AfterAll
  static void stop() {
    if (system != null) {
      system.close();
    }
  }

  private static HttpResponse<String> get(String url) throws Exception {
    return user.send(HttpRequest.newBuilder(URI.create(url)).header("Authorization", "Bearer " + token).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static FleetSwarm.Report swarm(String prefix, int hosts) throws Exception {
    FleetSwarm.Config config = new FleetSwarm.Config(system.config().service().publicUrl(), token, 1, hosts, true,
        prefix, null, Duration.ofSeconds(240), Duration.ofSeconds(5));
    Vertx vertx = Vertx.vertx();
    try {
      return new FleetSwarm(config, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8))
          .trusting(dir.resolve("tls/ca.pem")).run(vertx);
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void aSingleNodeAndAThreePlusTwoClusterInstallOverTlsWithAgentsTrustingOnlyTheCaOfTheirIgnition() throws Exception {
    assertTrue(system.config().service().publicUrl().startsWith("https://"), system.config().service().publicUrl());
    CompletableFuture<FleetSwarm.Report> sno = CompletableFuture.supplyAsync(() -> {
      try {
        return swarm("tls-sno", 1);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    FleetSwarm.Report multi = swarm("tls-multi", 5);
    FleetSwarm.Report single = sno.get(5, TimeUnit.MINUTES);
    assertTrue(single.allInstalled(), "single node: " + single.clustersByStatus());
    assertTrue(multi.allInstalled(), "3 + 2: " + multi.clustersByStatus());
    JsonNode hosts = JSON.readTree(get(base + "/api/assisted-install/v2/clusters/" + multi.clusterIds().get(0)
        + "/hosts").body());
    assertEquals(5, hosts.size());
    for (JsonNode h : hosts) {
      assertEquals("installed", h.path("status").asText(), h.toString());
    }
  }

  @Test
  void theDiscoveryIgnitionCarriesTheCaWhereUpstreamsAgentReadsItAndTheIsoDownloadsOverHttps() throws Exception {
    String ie = infraEnv("tls-iso");
    JsonNode ignition = JSON.readTree(get(base + "/api/assisted-install/v2/infra-envs/" + ie
        + "/downloads/files?file_name=discovery.ign").body());
    String ca = null;
    String unit = null;
    for (JsonNode f : ignition.path("storage").path("files")) {
      if (f.path("path").asText().equals("/etc/assisted-service/service-ca-cert.crt")) {
        String src = f.path("contents").path("source").asText();
        ca = new String(java.util.Base64.getDecoder().decode(src.substring(src.indexOf(',') + 1)), StandardCharsets.UTF_8);
      }
    }
    for (JsonNode u : ignition.path("systemd").path("units")) {
      if (u.path("name").asText().equals("agent.service")) {
        unit = u.path("contents").asText();
      }
    }
    assertEquals(Files.readString(dir.resolve("tls/ca.pem")), ca);
    assertTrue(unit != null && unit.contains("--url https://") && unit.contains("--cacert /etc/assisted-service/service-ca-cert.crt"),
        String.valueOf(unit));

    // the ISO: at the image service's https URL, with its api_key, the size of the base image
    String url = JSON.readTree(get(base + "/api/assisted-install/v2/infra-envs/" + ie + "/downloads/image-url").body())
        .path("url").asText();
    assertTrue(url.startsWith("https://") && url.contains("api_key="), url);
    HttpResponse<byte[]> iso = user.send(HttpRequest.newBuilder(URI.create(url)).build(),
        HttpResponse.BodyHandlers.ofByteArray());
    assertEquals(200, iso.statusCode());
    assertEquals(Files.size(TestSystem.baseIso()), iso.body().length);
    assertEquals("CD001", new String(iso.body(), 32769, 5, StandardCharsets.US_ASCII));
    // without the key: refused, over TLS
    HttpResponse<String> noKey = user.send(HttpRequest.newBuilder(URI.create(url.replaceAll("api_key=[^&]*", "api_key=x")))
        .build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(401, noKey.statusCode(), noKey.body());

    // plain HTTP to the API's port: a clear error, not a dropped connection
    HttpResponse<String> plain = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + system.config().apiPort() + "/api/assisted-install/v2/clusters")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(400, plain.statusCode());
    assertTrue(plain.body().contains("HTTPS"), plain.body());
  }

  @Test
  void prometheusScrapesTheTlsInstanceTrustingItsCa() throws Exception {
    int promPort = TestSystem.freePort();
    dev.rendezvous.observability.grafana.GrafanaProvisioning.Options o = ObservabilitySetup.options(List.of("--out=" + dir.resolve("obs"),
        "--prometheus-url=http://127.0.0.1:" + promPort, "--scrape-interval=1s"), system.config(),
        new java.util.ArrayList<>(), system.embeddedPostgres().orElseThrow().connectionUri());
    dev.rendezvous.observability.grafana.GrafanaProvisioning.write(o);
    Path config = o.out().resolve("prometheus.yml");
    String yaml = Files.readString(config);
    assertTrue(yaml.contains("scheme: https") && yaml.contains("ca_file: " + dir.resolve("tls/ca.pem")), yaml);
    Process check = new ProcessBuilder("promtool", "check", "config", config.toString()).redirectErrorStream(true).start();
    String checked = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, check.waitFor(), "promtool accepts it: " + checked);
    Process prometheus = new ProcessBuilder("prometheus", "--config.file=" + config,
        "--storage.tsdb.path=" + dir.resolve("tsdb"), "--web.listen-address=127.0.0.1:" + promPort)
        .redirectErrorStream(true).redirectOutput(dir.resolve("prometheus.log").toFile()).start();
    try {
      Await.until("Prometheus scraping the TLS instance (log: " + dir.resolve("prometheus.log") + ")",
          Duration.ofSeconds(60), () -> !ObservabilityTest.query(promPort, "up{job=\"rendezvous\"} == 1").isEmpty());
    } finally {
      prometheus.destroy();
      prometheus.waitFor(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void anAgentThatCannotVerifyTheServiceSendsNothing() throws Exception {
    // the real service, an agent given another CA: no host ever registers
    String ie = infraEnv("tls-refused");
    String agentToken = agentToken(ie);
    Path other = dir.resolve("other-ca");
    ServerCertificates.Files otherCa = ServerCertificates.ensure(other, List.of("localhost"), Instant.now());
    Vertx vertx = Vertx.vertx();
    try {
      AgentSwarm wrongCa = AgentSwarm.start(vertx, agent(system.config().service().publicUrl(), ie, agentToken,
          otherCa.ca()), 1);
      // the same agent with the CA of its Ignition, at an address the certificate does not name (127.0.0.2)
      AgentSwarm wrongName = AgentSwarm.start(vertx, agent("https://127.0.0.2:" + system.config().apiPort(), ie,
          agentToken, dir.resolve("tls/ca.pem")), 1);
      Thread.sleep(3000); // the first attempts go out at once; a handshake that fails, fails in milliseconds
      assertEquals(0, JSON.readTree(get(base + "/api/assisted-install/v2/infra-envs/" + ie + "/hosts").body()).size());
      wrongCa.stop().await(10, TimeUnit.SECONDS);
      wrongName.stop().await(10, TimeUnit.SECONDS);

      // a server of our own counting what reaches it: with another CA's certificate, with an expired one of the right
      // CA, with one for another name: the agent sends not one request to any
      X509Certificate caCert = Pem.certificates(Files.readString(dir.resolve("tls/ca.pem")), "ca").get(0);
      PrivateKey caKey = Pem.privateKey(Files.readString(dir.resolve("tls/ca-key.pem")), "ca key");
      Map<String, Path> servers = Map.of(
          "another CA", otherCa.cert().getParent(),
          "expired", issue(dir.resolve("expired"), caCert, caKey, List.of("localhost"),
              Instant.now().minus(Duration.ofDays(10)), Duration.ofDays(1)),
          "wrong name", issue(dir.resolve("wrong-name"), caCert, caKey, List.of("elsewhere.example.test"), Instant.now(),
              Duration.ofDays(10)));
      for (var e : servers.entrySet()) {
        Path files = e.getValue();
        ServerTls tls = ServerTls.start(new TlsConfig(TlsConfig.Mode.FILES,
            files.resolve(Files.exists(files.resolve("server.pem")) ? "server.pem" : "cert.pem"),
            files.resolve(Files.exists(files.resolve("server-key.pem")) ? "server-key.pem" : "key.pem"), null, null,
            List.of(), Duration.ofSeconds(5)));
        AtomicInteger requests = new AtomicInteger();
        HttpServer server = vertx.createHttpServer(tls.apply(new HttpServerOptions().setHost("127.0.0.1").setPort(0)))
            .requestHandler(r -> {
              requests.incrementAndGet();
              r.response().setStatusCode(500).end();
            })
            .webSocketHandler(ws -> {
              requests.incrementAndGet();
              ws.close();
            })
            .listen().await(10, TimeUnit.SECONDS);
        AgentSwarm a = AgentSwarm.start(vertx, agent("https://localhost:" + server.actualPort(), ie, agentToken,
            dir.resolve("tls/ca.pem")), 1);
        Thread.sleep(1500);
        a.stop().await(10, TimeUnit.SECONDS);
        server.close().await(10, TimeUnit.SECONDS);
        assertEquals(0, requests.get(), e.getKey() + ": requests that reached the server");
      }
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }

  private static AgentConfig agent(String url, String infraEnv, String agentToken, Path ca) {
    return AgentConfig.parse(new String[] {"--url", url, "--infra-env-id", infraEnv, "--dry-run", "--cacert",
        ca.toString()}, Map.of("RDV_AGENT_TOKEN", agentToken));
  }

  private static Path issue(Path dir, X509Certificate ca, PrivateKey caKey, List<String> names, Instant from,
      Duration validity) throws Exception {
    Files.createDirectories(dir);
    KeyPair kp = ServerCertificates.keyPair();
    X509Certificate cert = ServerCertificates.server(kp, ca, caKey, names, from, validity);
    Files.writeString(dir.resolve("key.pem"), Pem.encode("PRIVATE KEY", kp.getPrivate().getEncoded()));
    Files.writeString(dir.resolve("cert.pem"), Pem.encode("CERTIFICATE", cert.getEncoded()));
    return dir;
  }

  private static String infraEnv(String name) throws Exception {
    String body = "{\"name\":\"" + name + "\",\"pull_secret\":\"{\\\"auths\\\":{\\\"x.io\\\":{\\\"auth\\\":\\\"eDp5\\\"}}}\","
        + "\"openshift_version\":\"4.18\",\"cpu_architecture\":\"x86_64\"}";
    HttpResponse<String> r = user.send(HttpRequest.newBuilder(URI.create(base + "/api/assisted-install/v2/infra-envs"))
        .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(201, r.statusCode(), r.body());
    return JSON.readTree(r.body()).path("id").asText();
  }

  private static String agentToken(String infraEnv) throws Exception {
    JsonNode ignition = JSON.readTree(get(base + "/api/assisted-install/v2/infra-envs/" + infraEnv
        + "/downloads/files?file_name=discovery.ign").body());
    for (JsonNode f : ignition.path("storage").path("files")) {
      if (f.path("path").asText().equals("/etc/rendezvous/agent.env")) {
        String src = f.path("contents").path("source").asText();
        for (String line : new String(java.util.Base64.getDecoder().decode(src.substring(src.indexOf(',') + 1)),
            StandardCharsets.UTF_8).split("\n")) {
          if (line.startsWith("RDV_AGENT_TOKEN=")) {
            return line.substring("RDV_AGENT_TOKEN=".length());
          }
        }
      }
    }
    throw new AssertionError("no agent token in the discovery Ignition");
  }
}
