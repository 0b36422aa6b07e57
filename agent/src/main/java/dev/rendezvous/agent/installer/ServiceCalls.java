package dev.rendezvous.agent.installer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The installer's calls to the service (reference §0), asynchronous on a shared JDK client so a swarm of installers
 * holds no thread per host. Retried as upstream's installer client: 5xx, 408, 429 and connection failures with
 * jittered back-off; 404/423/425 a few times; other answers fail at once.
 */
public final class ServiceCalls {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String PREFIX = "/api/assisted-install/v2";
  private final HttpClient http;
  private final String base;
  private final String token;
  private final ScheduledExecutorService scheduler;
  private final int maxRetries;

  public ServiceCalls(HttpClient http, String serviceUrl, String token, ScheduledExecutorService scheduler, int maxRetries) {
    this.http = http;
    this.base = serviceUrl.replaceAll("/+$", "") + PREFIX;
    this.token = token;
    this.scheduler = scheduler;
    this.maxRetries = maxRetries;
  }

  /** The service answered 409: it holds a state that refuses the request (e.g. a stage it already passed). */
  public static final class Refused extends IOException {
    Refused(String message) {
      super(message);
    }
  }

  /** PUT /v2/infra-envs/{ie}/hosts/{h}/progress. */
  public CompletableFuture<Void> progress(InstallRequest r, String stage, String info) {
    String body = JSON.createObjectNode().put("current_stage", stage).put("progress_info", info == null ? "" : info)
        .toString();
    return send(HttpRequest.newBuilder(URI.create(base + "/infra-envs/" + r.infraEnvId() + "/hosts/" + r.hostId()
        + "/progress")).header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofString(body)), 0)
        .thenApply(b -> null);
  }

  /** GET /v2/clusters/{id}/hosts?role=master: the masters' stages, as upstream's installer asks (no documents). */
  public CompletableFuture<JsonNode> clusterMasters(InstallRequest r) {
    return send(HttpRequest.newBuilder(URI.create(base + "/clusters/" + r.clusterId() + "/hosts?role=master")).GET(), 0)
        .thenApply(ServiceCalls::json);
  }

  /** GET of a file below the API base, e.g. {@code /clusters/{id}/downloads/files?file_name=bootstrap.ign}. */
  public CompletableFuture<byte[]> download(String pathAndQuery) {
    return send(HttpRequest.newBuilder(URI.create(base + pathAndQuery)).GET(), 0);
  }

  /** GET of an absolute URL the service handed out (host Ignition, metal image). */
  public CompletableFuture<byte[]> downloadUrl(String url) {
    return send(HttpRequest.newBuilder(URI.create(url)).GET(), 0);
  }

  private static JsonNode json(byte[] body) {
    try {
      return JSON.readTree(body);
    } catch (IOException e) {
      throw new CompletionException(e);
    }
  }

  private CompletableFuture<byte[]> send(HttpRequest.Builder b, int attempt) {
    HttpRequest req = b.copy().header("X-Secret-Key", token).header("X-Request-ID", UUID.randomUUID().toString())
        .timeout(Duration.ofSeconds(60)).build();
    return http.sendAsync(req, HttpResponse.BodyHandlers.ofByteArray()).handle((resp, t) -> {
      int code = resp == null ? -1 : resp.statusCode();
      if (t == null && code >= 200 && code < 300) {
        return CompletableFuture.completedFuture(resp.body());
      }
      boolean retryable = t != null || code >= 500 || code == 408 || code == 429
          || ((code == 404 || code == 423 || code == 425) && attempt < Math.min(maxRetries, 10));
      if (retryable && attempt < maxRetries) {
        long delay = (long) (Math.min(10_000, 2_000L << Math.min(attempt, 3)) * (0.5 + Math.random() / 2));
        Executor later = CompletableFuture.delayedExecutor(delay, TimeUnit.MILLISECONDS, scheduler);
        return CompletableFuture.supplyAsync(() -> null, later).thenCompose(x -> send(b, attempt + 1));
      }
      String why = t != null ? t.toString() : code + " " + new String(resp.body(), java.nio.charset.StandardCharsets.UTF_8);
      String what = req.method() + " " + req.uri().getPath() + ": " + why;
      return CompletableFuture.<byte[]>failedFuture(code == 409 ? new Refused(what) : new IOException(what));
    }).thenCompose(f -> f);
  }
}
