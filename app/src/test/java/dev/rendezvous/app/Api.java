package dev.rendezvous.app;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** A real HTTP client for the REST API, authenticated as one tenant. */
final class Api {
  static final String BASE = "/api/assisted-install/v2";
  static final String PULL_SECRET = "{\"auths\":{\"quay.io\":{\"auth\":\"dXNlcjpwYXNz\",\"email\":\"a@b.c\"}}}";
  static final String SSH_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl test@rdv";
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  final int port;
  final String token;
  final String host;
  /** When set, requests carry this agent token as X-Secret-Key (the installer's and controller's calls). */
  final String agentToken;

  Api(int port, String token) {
    this(port, token, null);
  }

  /** A user's client of a service elsewhere (a site's Rendezvous in a network namespace). */
  Api(String host, int port, String token) {
    this(host, port, token, null);
  }

  private Api(int port, String token, String agentToken) {
    this("127.0.0.1", port, token, agentToken);
  }

  private Api(String host, int port, String token, String agentToken) {
    this.host = host;
    this.port = port;
    this.token = token;
    this.agentToken = agentToken;
  }

  /** An API client that authenticates as an agent, installer or controller does. */
  static Api agent(int port, String agentToken) {
    return new Api(port, null, agentToken);
  }

  Reply put(String path, Object body) {
    return call("PUT", path, body.toString());
  }

  /** A multipart/form-data POST with one file field (the logs upload). */
  Reply upload(String path, String field, String fileName, byte[] content) {
    String boundary = "rdv" + java.util.UUID.randomUUID();
    java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
    b.writeBytes(("--" + boundary + "\r\nContent-Disposition: form-data; name=\"" + field + "\"; filename=\"" + fileName
        + "\"\r\nContent-Type: application/gzip\r\n\r\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
    b.writeBytes(content);
    b.writeBytes(("\r\n--" + boundary + "--\r\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
    HttpRequest.Builder r = HttpRequest.newBuilder(URI.create("http://" + host + ":" + port + BASE + path))
        .timeout(Duration.ofSeconds(30)).header("Content-Type", "multipart/form-data; boundary=" + boundary)
        .POST(HttpRequest.BodyPublishers.ofByteArray(b.toByteArray()));
    auth(r);
    return send(r);
  }

  /** The raw bytes of a download. */
  byte[] bytes(String path) {
    HttpRequest.Builder r = HttpRequest.newBuilder(URI.create("http://" + host + ":" + port + BASE + path)).timeout(Duration.ofSeconds(30));
    auth(r);
    try {
      HttpResponse<byte[]> resp = HTTP.send(r.build(), HttpResponse.BodyHandlers.ofByteArray());
      if (resp.statusCode() != 200) {
        throw new IllegalStateException("GET " + path + " answered " + resp.statusCode() + ": " + new String(resp.body()));
      }
      return resp.body();
    } catch (java.io.IOException | InterruptedException e) {
      throw new IllegalStateException("GET " + path + " failed", e);
    }
  }

  private void auth(HttpRequest.Builder b) {
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    if (agentToken != null) {
      b.header("X-Secret-Key", agentToken);
    }
  }

  private Reply send(HttpRequest.Builder b) {
    try {
      HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
      return new Reply(r.statusCode(), r.body(), r.headers());
    } catch (Exception e) {
      throw new IllegalStateException("request failed", e);
    }
  }

  record Reply(int status, String body, HttpHeaders headers) {
    JsonObject json() {
      return new JsonObject(body);
    }

    JsonArray array() {
      return new JsonArray(body);
    }

    @Override
    public String toString() {
      return status + " " + body;
    }
  }

  Reply get(String path) {
    return call("GET", path, null);
  }

  Reply delete(String path) {
    return call("DELETE", path, null);
  }

  Reply post(String path, Object body) {
    return call("POST", path, body == null ? null : body.toString());
  }

  Reply patch(String path, Object body) {
    return call("PATCH", path, body.toString());
  }

  Reply call(String method, String path, String body) {
    // Paths are relative to the API v2 base unless they name another root (/api..., /health, /ready, /metrics).
    String full = path.startsWith("/api") || path.matches("/(health|ready|metrics).*") ? path : BASE + path;
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://" + host + ":" + port + full))
        .timeout(Duration.ofSeconds(30))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      b.header("Content-Type", "application/json");
    }
    auth(b);
    try {
      HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
      return new Reply(r.statusCode(), r.body(), r.headers());
    } catch (Exception e) {
      throw new IllegalStateException(method + " " + path + " failed", e);
    }
  }

  /** One validation ({id, status, message}) of a cluster's or host's {@code validations_info}; null when absent. */
  static JsonObject validation(JsonObject resource, String id) {
    String info = resource.getString("validations_info");
    if (info == null) {
      return null;
    }
    JsonObject byCategory = new JsonObject(info);
    for (String category : byCategory.fieldNames()) {
      for (Object o : byCategory.getJsonArray(category)) {
        if (id.equals(((JsonObject) o).getString("id"))) {
          return (JsonObject) o;
        }
      }
    }
    return null;
  }

  static JsonObject cluster(String name) {
    return new JsonObject().put("name", name).put("openshift_version", "4.18").put("pull_secret", PULL_SECRET)
        .put("base_dns_domain", "example.com");
  }

  static JsonObject infraEnv(String name, String clusterId) {
    JsonObject o = new JsonObject().put("name", name).put("pull_secret", PULL_SECRET);
    if (clusterId != null) {
      o.put("cluster_id", clusterId);
    }
    return o;
  }
}
