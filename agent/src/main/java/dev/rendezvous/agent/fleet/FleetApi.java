package dev.rendezvous.agent.fleet;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The swarm's calls to the service as a user makes them (the REST API v2 and {@code /metrics}, with the user's
 * token): clusters and infra-envs created, the agent token and CA read from a discovery Ignition, the cluster list
 * read as it streams in. Blocking (the JDK client); a restarting service is asked again for three minutes, a 503 after
 * its Retry-After, as its agents do.
 */
final class FleetApi {
  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
  /**
   * How long a service that cannot be reached (restarting, upgraded, overloaded) is asked again. A rolling upgrade on
   * one port is the old instance's stop and the new one's start: on CI's loaded machine that took over a minute (the
   * start alone 39 s), and a minute's patience ended a swarm the upgrade was meant to carry through.
   */
  static final Duration UNREACHABLE_PATIENCE = Duration.ofMinutes(3);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String PULL_SECRET = "{\"auths\":{\"cloud.openshift.com\":{\"auth\":\"ZHJ5OnJ1bg==\",\"email\":\"dry@run\"}}}";
  private final String url;
  private final String userToken;
  private final PrintStream out;
  private HttpClient http = HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT).build();
  /** Agents trust only what their discovery Ignition gives them: the service's CA, kept here one file per infra-env. */
  private java.nio.file.Path caDir;

  FleetApi(String url, String userToken, PrintStream out) {
    this.url = url;
    this.userToken = userToken;
    this.out = out;
  }

  /**
   * These calls trust this CA as well as the JVM's roots, as {@code curl --cacert} would; the agents still take
   * theirs from their Ignition only.
   */
  void trust(java.nio.file.Path caPem) {
    this.http = HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT)
        .sslContext(dev.rendezvous.controller.service.HttpClients.sslContext(
            new dev.rendezvous.controller.service.HttpClients.Tls(false, java.util.Optional.of(caPem))))
        .build();
  }

  /** The clusters of the list, as far as the swarm follows them. */
  List<Listed> clusters() throws IOException, InterruptedException {
    return send(HttpRequest.newBuilder(api("/clusters")).GET(), FleetApi::readListing);
  }

  /** A cluster for {@code hosts} dry-run hosts (single node for one; the VIPs of the dry-run network else); its id. */
  String createCluster(String name, int hosts) throws IOException, InterruptedException {
    ObjectNode c = JSON.createObjectNode().put("name", name).put("openshift_version", "4.18")
        .put("base_dns_domain", "example.com").put("pull_secret", PULL_SECRET);
    if (hosts == 1) {
      c.put("high_availability_mode", "None");
    } else {
      // dry-run hosts live in 10.200.0.0/16 from .10 up; the VIPs sit at the top of that network
      c.putArray("api_vips").addObject().put("ip", "10.200.255.1");
      c.putArray("ingress_vips").addObject().put("ip", "10.200.255.2");
    }
    if (hosts > 512) {
      // the default cluster network (10.128.0.0/14, a /23 per host) holds 512 hosts; upstream refuses more
      c.putArray("cluster_networks").addObject().put("cidr", "10.128.0.0/14").put("host_prefix", 24);
    }
    return post("/clusters", c).path("id").asText();
  }

  private synchronized java.nio.file.Path caDir() throws IOException {
    if (caDir == null) {
      caDir = java.nio.file.Files.createTempDirectory("rdv-swarm-ca-");
      caDir.toFile().deleteOnExit();
    }
    return caDir;
  }

  /** An infra-env of a cluster, the agent token its discovery image carries and the file of its CA (null: none). */
  record InfraEnv(String id, String clusterId, String agentToken, String caFile) {}

  /**
   * An infra-env bound to the cluster, its agent token and CA read, as a booted host would find them, from the
   * {@code agent.env} file and the CA file of the infra-env's discovery Ignition.
   */
  InfraEnv createInfraEnv(String name, String clusterId) throws IOException, InterruptedException {
    JsonNode ie = post("/infra-envs", JSON.createObjectNode().put("name", name).put("cluster_id", clusterId)
        .put("pull_secret", PULL_SECRET));
    String id = ie.path("id").asText();
    JsonNode ignition = getAgain("/infra-envs/" + id + "/downloads/files?file_name=discovery.ign");
    String token = null;
    String ca = null;
    for (JsonNode f : ignition.path("storage").path("files")) {
      String path = f.path("path").asText();
      if (path.equals("/etc/rendezvous/agent.env")) {
        for (String line : contents(f).split("\n")) {
          if (line.startsWith("RDV_AGENT_TOKEN=")) {
            token = line.substring("RDV_AGENT_TOKEN=".length()).strip();
          }
        }
      } else if (path.equals("/etc/assisted-service/service-ca-cert.crt")) {
        java.nio.file.Path file = caDir().resolve(id + ".pem");
        java.nio.file.Files.writeString(file, contents(f));
        file.toFile().deleteOnExit();
        ca = file.toString();
      }
    }
    if (token != null) {
      return new InfraEnv(id, clusterId, token, ca);
    }
    throw new IOException("infra-env " + id + ": its discovery Ignition carries no RDV_AGENT_TOKEN in agent.env");
  }

  /** An Ignition file's contents ({@code data:} URL, base64 or percent-escaped). */
  private static String contents(JsonNode file) {
    String source = file.path("contents").path("source").asText();
    String data = source.substring(source.indexOf(',') + 1);
    return source.substring(0, source.indexOf(',')).endsWith(";base64")
        ? new String(java.util.Base64.getDecoder().decode(data), StandardCharsets.UTF_8)
        : java.net.URLDecoder.decode(data.replace("+", "%2B"), StandardCharsets.UTF_8);
  }

  /**
   * The service's own count of hosts by status and of installing hosts by stage (its fleet gauges on /metrics,
   * refreshed every 15 s, all clusters of the service), so an installation's progress shows where a person looks,
   * with their age when the service gives it (a count 14 s old can show hosts installing beside a cluster the list
   * already calls installed); empty when the service does not answer it.
   */
  String serviceCounts() {
    try {
      // only the families it reads (a whole scrape is hundreds; a service without the filter sends them all)
      HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url.replaceAll("/+$", "")
              + "/metrics?name%5B%5D=rdv_hosts&name%5B%5D=rdv_hosts_installing&name%5B%5D=rdv_fleet_counts_age_seconds"))
          .timeout(REQUEST_TIMEOUT).GET();
      if (userToken != null) {
        b.header("Authorization", "Bearer " + userToken);
      }
      HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 200) {
        return "";
      }
      Map<String, Long> statuses = ServiceGauges.byLabel(r.body(), "rdv_hosts", "status");
      Map<String, Long> stages = ServiceGauges.byLabel(r.body(), "rdv_hosts_installing", "stage");
      Double age = ServiceGauges.value(r.body(), "rdv_fleet_counts_age_seconds");
      String counted = age == null || age < 0 ? "" : String.format(" (counted %.0f s ago)", age);
      return "  service hosts" + counted + " " + statuses + (stages.isEmpty() ? "" : "  stages " + stages);
    } catch (IOException e) {
      return "";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "";
    }
  }

  JsonNode get(String path) throws IOException, InterruptedException {
    return send(HttpRequest.newBuilder(api(path)).GET());
  }

  /**
   * A read that may be asked again when its answer is late (a saturated machine: the swarm's own event loops were seen
   * blocked for 4 s while 38,000 agents started), instead of ending the whole swarm on one slow answer.
   */
  JsonNode getAgain(String path) throws IOException, InterruptedException {
    for (int attempt = 1; ; attempt++) {
      try {
        return get(path);
      } catch (java.net.http.HttpTimeoutException e) {
        if (attempt >= 5) {
          throw e;
        }
        out.printf("GET %s took over %d s; asking again%n", path.replaceAll("\\?.*", ""), REQUEST_TIMEOUT.toSeconds());
      }
    }
  }

  JsonNode post(String path, JsonNode body) throws IOException, InterruptedException {
    HttpRequest.Builder b = HttpRequest.newBuilder(api(path));
    if (body == null) {
      b.POST(HttpRequest.BodyPublishers.noBody());
    } else {
      b.header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body.toString()));
    }
    return send(b);
  }

  URI api(String path) {
    return URI.create(url.replaceAll("/+$", "") + "/api/assisted-install/v2" + path);
  }

  private JsonNode send(HttpRequest.Builder b) throws IOException, InterruptedException {
    return send(b, in -> {
      byte[] body = in.readAllBytes();
      return body.length == 0 ? JSON.createObjectNode() : JSON.readTree(body);
    });
  }

  /** How a successful answer's body is read. */
  @FunctionalInterface
  interface BodyReader<T> {
    T read(InputStream body) throws IOException;
  }

  /** A cluster of the list, as far as the swarm follows it. */
  record Listed(String id, String status, int totalHosts, int readyHosts) {}

  /**
   * The cluster list's fields the swarm follows, read as the answer streams in: 10,000 clusters are ~75 MB, and
   * building the whole tree of each list (then dropping all but four fields) was a fifth of the swarm's CPU.
   */
  static List<Listed> readListing(InputStream body) throws IOException {
    try (JsonParser p = JSON.getFactory().createParser(body)) {
      if (p.nextToken() != JsonToken.START_ARRAY) {
        throw new IOException("the cluster list is not a JSON array");
      }
      List<Listed> listed = new ArrayList<>();
      while (p.nextToken() == JsonToken.START_OBJECT) {
        String id = "";
        String status = "";
        int total = 0;
        int ready = 0;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String field = p.currentName();
          p.nextToken();
          switch (field) {
            case "id" -> id = p.getValueAsString("");
            case "status" -> status = p.getValueAsString("");
            case "total_host_count" -> total = p.getValueAsInt();
            case "ready_host_count" -> ready = p.getValueAsInt();
            default -> p.skipChildren(); // nested documents (hosts, networks) say "status" and "id" too
          }
        }
        listed.add(new Listed(id, status, total, ready));
      }
      return listed;
    }
  }

  <T> T send(HttpRequest.Builder b, BodyReader<T> reader) throws IOException, InterruptedException {
    if (userToken != null) {
      b.header("Authorization", "Bearer " + userToken);
    }
    HttpRequest req = b.timeout(REQUEST_TIMEOUT).build();
    Long giveUpAt = null; // UNREACHABLE_PATIENCE after the start of the first attempt that reached no service
    for (int attempt = 1; ; attempt++) {
      long started = System.nanoTime();
      try {
        HttpResponse<InputStream> r = http.send(req, HttpResponse.BodyHandlers.ofInputStream());
        try (InputStream body = r.body()) {
          if (r.statusCode() == 503 && attempt < 10) { // the service asks to come back (database restarting, bus busy)
            Thread.sleep(1000L * r.headers().firstValue("Retry-After").map(Long::parseLong).orElse(1L));
            continue;
          }
          if (r.statusCode() >= 300) {
            throw new Refused(r.statusCode(), req.method() + " " + req.uri().getPath() + " answered " + r.statusCode()
                + ": " + new String(body.readAllBytes(), StandardCharsets.UTF_8));
          }
          return reader.read(body);
        }
      } catch (java.net.http.HttpTimeoutException e) {
        if (!(e instanceof java.net.http.HttpConnectTimeoutException)) {
          throw e; // the request was sent and its answer is late: the callers decide (a busy service)
        }
        // no connection within 10 s (a loaded machine): nothing was sent, so it is asked again, a POST too
        if (giveUpAt == null) {
          giveUpAt = started + UNREACHABLE_PATIENCE.toNanos();
        }
        if (System.nanoTime() - giveUpAt >= 0) {
          throw e;
        }
        out.printf("%s %s: no connection in %d s; trying again%n", req.method(), req.uri().getPath(),
            CONNECT_TIMEOUT.toSeconds());
      } catch (Refused e) {
        throw e;
      } catch (IOException e) {
        // the instance restarting (an upgrade, a crash), also while its answer streamed in: come back, as its agents do
        if (giveUpAt == null) {
          giveUpAt = started + UNREACHABLE_PATIENCE.toNanos();
          out.printf("%s %s: %s; trying again for %d minutes%n", req.method(), req.uri().getPath(),
              e.getMessage() != null ? e.getMessage() : e, // a refused connection has no message
              UNREACHABLE_PATIENCE.toMinutes());
        }
        if (System.nanoTime() - giveUpAt >= 0) {
          throw e;
        }
        Thread.sleep(1000);
      }
    }
  }

  /** The service answered, and not with success. */
  static final class Refused extends IOException {
    final int status;

    Refused(int status, String message) {
      super(message);
      this.status = status;
    }
  }
}
