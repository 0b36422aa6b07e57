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

  Api(int port, String token) {
    this.port = port;
    this.token = token;
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
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + full))
        .timeout(Duration.ofSeconds(30))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      b.header("Content-Type", "application/json");
    }
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    try {
      HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
      return new Reply(r.statusCode(), r.body(), r.headers());
    } catch (Exception e) {
      throw new IllegalStateException(method + " " + path + " failed", e);
    }
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
