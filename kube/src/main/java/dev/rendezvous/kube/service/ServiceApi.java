package dev.rendezvous.kube.service;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;

/**
 * The service's REST API v2, as the kube face calls it: the same operations, validation and errors as every other
 * client (upstream's controllers call the same inventory functions its REST handlers do). Every call names the custom
 * resource it acts for in {@value #OWNER_HEADER}, so what a CR owns is changed only through it. Blocking: called
 * from the kube face's reconcile threads, never from an event loop.
 */
public final class ServiceApi {
  /** The service's ownership header (KubeOwnership in the service): a wire contract, so spelled here too. */
  public static final String OWNER_HEADER = "X-Rdv-Kube-Key";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient http;
  private final String base;
  private final String token;

  /** {@code base}: e.g. {@code http://127.0.0.1:8090/api/assisted-install/v2}; {@code token}: an admin bearer token or null. */
  public ServiceApi(String base, String token) {
    this(base, token, null);
  }

  /** {@code tls}: how to trust an https {@code base} (the service's own CA); null: the JVM's roots. */
  public ServiceApi(String base, String token, javax.net.ssl.SSLContext tls) {
    HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10));
    if (tls != null) {
      b.sslContext(tls);
    }
    this.http = b.build();
    this.base = base.endsWith("/") ? base.substring(0, base.length() - 1) : base;
    this.token = token;
  }

  /** A 4xx or 5xx answer: upstream's error shape, its field (the REST parameter) when it names one. */
  public static final class ServiceError extends RuntimeException {
    private final int status;
    private final String field;

    ServiceError(int status, String field, String reason) {
      super(reason);
      this.status = status;
      this.field = field;
    }

    public int status() {
      return status;
    }

    /** The REST parameter the service named, or null. */
    public String field() {
      return field;
    }

    public boolean inputError() {
      return status == 400 || status == 422;
    }
  }

  public JsonNode createCluster(String owner, ObjectNode params) {
    return call("POST", "/clusters", owner, params);
  }

  public JsonNode updateCluster(String id, String owner, ObjectNode params) {
    return call("PATCH", "/clusters/" + id, owner, params);
  }

  public JsonNode clusters() {
    return call("GET", "/clusters", null, null);
  }

  public JsonNode infraEnvs() {
    return call("GET", "/infra-envs", null, null);
  }

  public Optional<JsonNode> cluster(String id) {
    return optional(() -> call("GET", "/clusters/" + id, null, null));
  }

  public void clusterAction(String id, String owner, String action) {
    call("POST", "/clusters/" + id + "/actions/" + action, owner, JSON.createObjectNode());
  }

  public void deleteCluster(String id, String owner) {
    optional(() -> call("DELETE", "/clusters/" + id, owner, null));
  }

  /** Upstream's install-config overrides: a JSON document (as a string) merged into the generated install-config. */
  public void installConfigOverrides(String id, String owner, String overrides) {
    call("PATCH", "/clusters/" + id + "/install-config", owner, JSON.getNodeFactory().textNode(overrides));
  }

  public JsonNode createInfraEnv(String owner, ObjectNode params) {
    return call("POST", "/infra-envs", owner, params);
  }

  public JsonNode updateInfraEnv(String id, String owner, ObjectNode params) {
    return call("PATCH", "/infra-envs/" + id, owner, params);
  }

  public Optional<JsonNode> infraEnv(String id) {
    return optional(() -> call("GET", "/infra-envs/" + id, null, null));
  }

  public void deleteInfraEnv(String id, String owner) {
    optional(() -> call("DELETE", "/infra-envs/" + id, owner, null));
  }

  public JsonNode infraEnvHosts(String infraEnvId) {
    return call("GET", "/infra-envs/" + infraEnvId + "/hosts", null, null);
  }

  public Optional<JsonNode> host(String infraEnvId, String hostId) {
    return optional(() -> call("GET", "/infra-envs/" + infraEnvId + "/hosts/" + hostId, null, null));
  }

  public JsonNode updateHost(String infraEnvId, String hostId, String owner, ObjectNode params) {
    return call("PATCH", "/infra-envs/" + infraEnvId + "/hosts/" + hostId, owner, params);
  }

  /** A host's Ignition overrides (upstream's host-ignition-params: the overrides as a JSON string). */
  public void hostIgnition(String infraEnvId, String hostId, String owner, String config) {
    call("PATCH", "/infra-envs/" + infraEnvId + "/hosts/" + hostId + "/ignition", owner,
        JSON.createObjectNode().put("config", config));
  }

  public void hostAction(String infraEnvId, String hostId, String owner, String action, ObjectNode body) {
    call("POST", "/infra-envs/" + infraEnvId + "/hosts/" + hostId + "/actions/" + action, owner,
        body == null ? JSON.createObjectNode() : body);
  }

  public void deleteHost(String infraEnvId, String hostId, String owner) {
    optional(() -> call("DELETE", "/infra-envs/" + infraEnvId + "/hosts/" + hostId, owner, null));
  }

  public JsonNode manifests(String clusterId) {
    return call("GET", "/clusters/" + clusterId + "/manifests", null, null);
  }

  public void createManifest(String clusterId, String owner, String folder, String fileName, String content) {
    ObjectNode body = JSON.createObjectNode().put("folder", folder).put("file_name", fileName)
        .put("content", java.util.Base64.getEncoder().encodeToString(content.getBytes(StandardCharsets.UTF_8)));
    call("POST", "/clusters/" + clusterId + "/manifests", owner, body);
  }

  public void deleteManifest(String clusterId, String owner, String folder, String fileName) {
    optional(() -> call("DELETE", "/clusters/" + clusterId + "/manifests?folder=" + enc(folder) + "&file_name="
        + enc(fileName), owner, null));
  }

  /** The admin kubeconfig (upstream's downloads/credentials?file_name=kubeconfig). */
  public String kubeconfig(String clusterId) {
    return text("/clusters/" + clusterId + "/downloads/credentials?file_name=kubeconfig");
  }

  /** {@code {username, password, console_url}} of the installed cluster. */
  public JsonNode credentials(String clusterId) {
    return call("GET", "/clusters/" + clusterId + "/credentials", null, null);
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  private interface Call {
    JsonNode run();
  }

  private static Optional<JsonNode> optional(Call c) {
    try {
      return Optional.ofNullable(c.run());
    } catch (ServiceError e) {
      if (e.status() == 404) {
        return Optional.empty();
      }
      throw e;
    }
  }

  private HttpRequest.Builder request(String path, String owner) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    if (owner != null) {
      b.header(OWNER_HEADER, owner);
    }
    return b;
  }

  private String text(String path) {
    HttpResponse<String> r = send(request(path, null).GET().build());
    check(r);
    return r.body();
  }

  private JsonNode call(String method, String path, String owner, JsonNode body) {
    HttpRequest.Builder b = request(path, owner);
    if (body != null) {
      b.header("Content-Type", "application/json")
          .method(method, HttpRequest.BodyPublishers.ofString(body.toString(), StandardCharsets.UTF_8));
    } else {
      b.method(method, HttpRequest.BodyPublishers.noBody());
    }
    HttpResponse<String> r = send(b.build());
    check(r);
    if (r.body() == null || r.body().isBlank()) {
      return JSON.createObjectNode();
    }
    try {
      return JSON.readTree(r.body());
    } catch (IOException e) {
      throw new ServiceError(502, null, "the service answered " + method + " " + path + " with no JSON");
    }
  }

  private HttpResponse<String> send(HttpRequest req) {
    try {
      return http.send(req, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new ServiceError(503, null, "the service did not answer " + req.method() + " " + req.uri().getPath()
          + ": " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ServiceError(503, null, "interrupted");
    }
  }

  private static void check(HttpResponse<String> r) {
    if (r.statusCode() < 400) {
      return;
    }
    String reason = r.body();
    String field = null;
    try {
      JsonNode e = JSON.readTree(r.body());
      if (e.hasNonNull("reason")) {
        reason = e.get("reason").asText();
      }
      if (e.hasNonNull("field")) {
        field = e.get("field").asText();
      }
    } catch (IOException | RuntimeException ignored) {
      // not upstream's error shape: keep the body as the reason
    }
    throw new ServiceError(r.statusCode(), field, reason == null || reason.isBlank() ? "HTTP " + r.statusCode() : reason);
  }
}
