package dev.rendezvous.agent.transport;

import dev.rendezvous.agent.executor.LogsUploader;
import dev.rendezvous.agent.wire.ApiError;
import dev.rendezvous.agent.wire.HostCreateParams;
import dev.rendezvous.agent.wire.HostRegistration;
import dev.rendezvous.agent.wire.LogsProgress;
import dev.rendezvous.agent.wire.StepReply;
import dev.rendezvous.agent.wire.Steps;
import dev.rendezvous.agent.wire.WireJson;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.multipart.MultipartForm;
import java.net.URI;
import java.nio.file.Path;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The upstream-compatible HTTP API (docs/agent-protocol.md "HTTP"): registration, long-poll for steps,
 * step replies, logs progress and upload. Every request carries {@code X-Secret-Key}, a fresh
 * {@code X-Request-ID} and {@code discovery_agent_version}, as upstream's agent. Futures complete on the
 * caller's context; non-2xx answers fail with {@link GatewayException}.
 */
public final class GatewayClient implements LogsUploader {
  public static final String API = "/api/assisted-install/v2";
  private static final long REQUEST_TIMEOUT_MS = 30_000;
  private static final long UPLOAD_TIMEOUT_MS = 600_000;

  private final WebClient web;
  private final String base;
  private final String token;
  private final String agentVersion;

  public GatewayClient(WebClient web, URI url, String token, String agentVersion) {
    this.web = web;
    String s = url.toString();
    this.base = (s.endsWith("/") ? s.substring(0, s.length() - 1) : s) + API;
    this.token = token;
    this.agentVersion = agentVersion;
  }

  public Future<HostRegistration> register(String infraEnvId, String hostId) {
    return request(HttpMethod.POST, "/infra-envs/" + infraEnvId + "/hosts", REQUEST_TIMEOUT_MS)
        .sendBuffer(json(new HostCreateParams(hostId, agentVersion)))
        .compose(r -> expect(r, 200, 201))
        .map(r -> WireJson.read(r.bodyAsString(), HostRegistration.class));
  }

  /** GET instructions; the gateway holds it up to {@code waitSeconds} when nothing is pending. */
  public Future<Steps> nextSteps(String infraEnvId, String hostId, int waitSeconds) {
    String path = hostPath(infraEnvId, hostId) + "/instructions?timestamp=" + (System.currentTimeMillis() / 1000)
        + "&wait_seconds=" + waitSeconds;
    return request(HttpMethod.GET, path, (waitSeconds + 15) * 1000L)
        .send()
        .compose(r -> expect(r, 200))
        .map(r -> WireJson.read(r.bodyAsString(), Steps.class));
  }

  public Future<Void> postReply(String infraEnvId, String hostId, StepReply reply) {
    return request(HttpMethod.POST, hostPath(infraEnvId, hostId) + "/instructions", REQUEST_TIMEOUT_MS)
        .sendBuffer(json(reply))
        .compose(r -> expect(r, 200, 201, 204))
        .mapEmpty();
  }

  public Future<Void> putLogsProgress(String infraEnvId, String hostId, String state) {
    return request(HttpMethod.PUT, hostPath(infraEnvId, hostId) + "/logs-progress", REQUEST_TIMEOUT_MS)
        .sendBuffer(json(new LogsProgress(state)))
        .compose(r -> expect(r, 200, 204))
        .mapEmpty();
  }

  public Future<Void> uploadLogs(String clusterId, String infraEnvId, String hostId, Path bundle) {
    String path = "/clusters/" + clusterId + "/logs?logs_type=host&infra_env_id=" + infraEnvId + "&host_id=" + hostId;
    MultipartForm form = MultipartForm.create()
        .binaryFileUpload("upfile", "logs_host_" + hostId + ".tar.gz", bundle.toString(), "application/gzip");
    HttpRequest<Buffer> req = web.requestAbs(HttpMethod.POST, base + path)
        .timeout(UPLOAD_TIMEOUT_MS)
        .putHeader("X-Secret-Key", token)
        .putHeader("X-Request-ID", UUID.randomUUID().toString())
        .putHeader("discovery_agent_version", agentVersion);
    return req.sendMultipartForm(form).compose(r -> expect(r, 200, 201, 204)).mapEmpty();
  }

  // LogsUploader, for the logs step on a worker thread: block on the async calls.
  @Override
  public void progress(String infraEnvId, String hostId, String state) throws Exception {
    putLogsProgress(infraEnvId, hostId, state).toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
  }

  @Override
  public void upload(String clusterId, String infraEnvId, String hostId, Path bundle) throws Exception {
    uploadLogs(clusterId, infraEnvId, hostId, bundle).toCompletionStage().toCompletableFuture()
        .get(UPLOAD_TIMEOUT_MS + 10_000, TimeUnit.MILLISECONDS);
  }

  /** GETs {@code url} (absolute; the service's, with the agent's token) into {@code to}; blocks: a worker thread's. */
  public void download(String url, Path to) throws Exception {
    HttpResponse<Buffer> r = web.getAbs(url).timeout(UPLOAD_TIMEOUT_MS).putHeader("X-Secret-Key", token).send()
        .compose(x -> expect(x, 200))
        .toCompletionStage().toCompletableFuture().get(UPLOAD_TIMEOUT_MS + 10_000, TimeUnit.MILLISECONDS);
    java.nio.file.Files.write(to, r.body() == null ? new byte[0] : r.body().getBytes());
  }

  private String hostPath(String infraEnvId, String hostId) {
    return "/infra-envs/" + infraEnvId + "/hosts/" + hostId;
  }

  private HttpRequest<Buffer> request(HttpMethod method, String path, long timeoutMs) {
    return web.requestAbs(method, base + path)
        .timeout(timeoutMs)
        .putHeader("X-Secret-Key", token)
        .putHeader("X-Request-ID", UUID.randomUUID().toString())
        .putHeader("discovery_agent_version", agentVersion)
        .putHeader("Content-Type", "application/json")
        .putHeader("Accept", "application/json");
  }

  private static Buffer json(Object o) {
    return Buffer.buffer(WireJson.write(o));
  }

  private static Future<HttpResponse<Buffer>> expect(HttpResponse<Buffer> r, int... ok) {
    for (int s : ok) {
      if (r.statusCode() == s) {
        return Future.succeededFuture(r);
      }
    }
    return Future.failedFuture(new GatewayException(r.statusCode(), reason(r), retryAfter(r), serviceError(r)));
  }

  /** The body is upstream's error JSON ({@code "kind": "Error"}). */
  static boolean serviceError(HttpResponse<Buffer> r) {
    String body = r.bodyAsString();
    if (body == null || body.isBlank()) {
      return false;
    }
    try {
      return "Error".equals(WireJson.read(body, ApiError.class).kind());
    } catch (IllegalArgumentException notJson) {
      return false;
    }
  }

  /** Upstream error JSON's reason, else the body's first line (a proxy's HTML page, say), else the status text. */
  static String reason(HttpResponse<Buffer> r) {
    String body = r.bodyAsString();
    if (body == null || body.isBlank()) {
      return r.statusMessage();
    }
    try {
      ApiError e = WireJson.read(body, ApiError.class);
      if (e.reason() != null) {
        return e.reason();
      }
    } catch (IllegalArgumentException notJson) {
      // fall through to the raw text
    }
    String line = body.strip().lines().findFirst().orElse("");
    return line.length() > 200 ? line.substring(0, 200) + "…" : line;
  }

  private static int retryAfter(HttpResponse<Buffer> r) {
    String v = r.getHeader("Retry-After");
    if (v == null) {
      return -1;
    }
    try {
      return Integer.parseInt(v.trim());
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
