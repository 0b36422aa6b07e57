package dev.rendezvous.controller.service;

import com.fasterxml.jackson.core.type.TypeReference;
import dev.rendezvous.controller.support.ControllerLog;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The controller's side of the service API (REST v2, the paths upstream's inventory client calls), for one cluster.
 * Every call carries {@code X-Secret-Key} and a fresh {@code X-Request-ID}; failures are retried by the
 * {@link RetryPolicy} on the shared scheduler, never by a sleeping thread. All calls are asynchronous.
 */
public final class AssistedServiceClient {

  /** Told about every cluster and host list the client fetched (the dry-run cluster derives its world from them). */
  public interface Listener {
    default void onCluster(Cluster cluster) {
    }

    default void onHosts(List<Host> hosts) {
    }
  }

  public static final String API_PREFIX = "/api/assisted-install";

  private final HttpClient http;
  private final Executor calls;
  private final Executor reports;
  private final String base;
  private final String token;
  private final String clusterId;
  private final RetryPolicy retry;
  private final ScheduledExecutorService scheduler;
  private final ControllerLog log;
  private final Duration requestTimeout;
  private final BooleanSupplier stopped;
  private final List<Listener> listeners = new CopyOnWriteArrayList<>();

  /**
   * @param http the (shared) HTTP client
   * @param calls where requests are made (blocking {@code send}, one thread per request in flight)
   * @param scheduler where retries wait
   * @param stopped once true, no new attempt is made
   */
  public AssistedServiceClient(HttpClient http, Executor calls, URI inventoryUrl, String token, String clusterId,
      RetryPolicy retry, ScheduledExecutorService scheduler, ControllerLog log, Duration requestTimeout,
      BooleanSupplier stopped) {
    this(http, calls, calls, inventoryUrl, token, clusterId, retry, scheduler, log, requestTimeout, stopped);
  }

  /**
   * {@code reports}: where requests that move the installation on are made (the same threads, ahead of waiting
   * polls): every one but GETs and log snapshots, and the ready state's read.
   */
  public AssistedServiceClient(HttpClient http, Executor calls, Executor reports, URI inventoryUrl, String token,
      String clusterId, RetryPolicy retry, ScheduledExecutorService scheduler, ControllerLog log,
      Duration requestTimeout, BooleanSupplier stopped) {
    this.http = http;
    this.calls = calls;
    this.reports = reports;
    String u = inventoryUrl.toString();
    while (u.endsWith("/")) {
      u = u.substring(0, u.length() - 1);
    }
    this.base = u + API_PREFIX;
    this.token = token;
    this.clusterId = clusterId;
    this.retry = retry;
    this.scheduler = scheduler;
    this.log = log;
    this.requestTimeout = requestTimeout;
    this.stopped = stopped;
  }

  public void addListener(Listener listener) {
    listeners.add(listener);
  }

  public String clusterId() {
    return clusterId;
  }

  // ---- reads ------------------------------------------------------------------------------------------------

  /** GET /v2/clusters/{id}[?exclude-hosts=true]. */
  public CompletableFuture<Cluster> getCluster(boolean excludeHosts) {
    return getCluster(excludeHosts, false);
  }

  /**
   * The cluster; {@code ahead}: the read goes with the reports, before waiting polls (the ready state's, which the
   * installer waits for: behind thousands of a swarm's polls its hosts sat minutes in "Waiting for bootkube").
   */
  public CompletableFuture<Cluster> getCluster(boolean excludeHosts, boolean ahead) {
    String path = "/v2/clusters/" + clusterId + (excludeHosts ? "?exclude-hosts=true" : "");
    return callBytes("GET", path, null, null, RetryPolicy.Mode.FULL, ahead).thenApply(r -> {
      Cluster c = parse(r.body(), Cluster.class);
      for (Listener l : listeners) {
        notify(() -> l.onCluster(c));
        if (!excludeHosts) {
          notify(() -> l.onHosts(c.hosts()));
        }
      }
      return c;
    });
  }

  /**
   * GET /v2/clusters/{id}/hosts?with-inventory=true: the hosts with the inventories the CSR approver and node labels
   * need, without the connectivity reports (upstream's controller reads the whole cluster instead, which carries them:
   * hundreds of MB in a 1,000-host cluster).
   */
  public CompletableFuture<List<Host>> getHosts() {
    String path = "/v2/clusters/" + clusterId + "/hosts?with-inventory=true";
    return call("GET", path, null, null, RetryPolicy.Mode.FULL).thenApply(r -> {
      List<Host> hosts = parse(r.body(), new TypeReference<List<Host>>() { });
      for (Listener l : listeners) {
        notify(() -> l.onHosts(hosts));
      }
      return hosts;
    });
  }

  /** GET /v2/clusters/{id}/monitored-operators. */
  public CompletableFuture<List<MonitoredOperator>> getMonitoredOperators() {
    return call("GET", "/v2/clusters/" + clusterId + "/monitored-operators", null, null, RetryPolicy.Mode.FULL)
        .thenApply(r -> parse(r.body(), new TypeReference<List<MonitoredOperator>>() { }));
  }

  /** GET /v2/clusters/{id}/downloads/files?file_name=...; empty when the service has no such file (404). */
  public CompletableFuture<Optional<byte[]>> downloadClusterFile(String fileName) {
    return download("/v2/clusters/" + clusterId + "/downloads/files?file_name=" + enc(fileName));
  }

  /** GET /v2/clusters/{id}/downloads/credentials?file_name=... (kubeconfig-noingress). */
  public CompletableFuture<Optional<byte[]>> downloadCredentials(String fileName) {
    return download("/v2/clusters/" + clusterId + "/downloads/credentials?file_name=" + enc(fileName));
  }

  private CompletableFuture<Optional<byte[]>> download(String path) {
    return call("GET", path, null, null, RetryPolicy.Mode.FULL)
        .thenApply(r -> Optional.of(r.body()))
        .exceptionally(t -> {
          ServiceException se = ServiceException.find(t);
          if (se != null && se.isNotFound()) {
            return Optional.empty();
          }
          throw t instanceof CompletionException ce ? ce : new CompletionException(t);
        });
  }

  // ---- writes -----------------------------------------------------------------------------------------------

  /**
   * PUT /v2/infra-envs/{ie}/hosts/{h}/progress. Retried only when it cannot have reached the service (see
   * {@link RetryPolicy.Mode#UNSENT_ONLY}): the caller re-reads and decides again rather than risk a duplicate.
   */
  public CompletableFuture<Void> updateHostProgress(String infraEnvId, String hostId, HostStage stage, String info) {
    String ie = infraEnvId == null || infraEnvId.isBlank() ? clusterId : infraEnvId;
    return call("PUT", "/v2/infra-envs/" + ie + "/hosts/" + hostId + "/progress",
        Json.write(new Requests.HostProgress(stage, info == null ? "" : info)), "application/json",
        RetryPolicy.Mode.UNSENT_ONLY).thenApply(r -> null);
  }

  /** PUT /v2/clusters/{id}/progress {finalizing_stage}. */
  public CompletableFuture<Void> updateFinalizingStage(FinalizingStage stage) {
    return call("PUT", "/v2/clusters/" + clusterId + "/progress",
        Json.write(new Requests.FinalizingProgress(stage)), "application/json", RetryPolicy.Mode.FULL)
        .thenApply(r -> null);
  }

  /** PUT /v2/clusters/{id}/monitored-operators {name,status,status_info,version}. */
  public CompletableFuture<Void> reportOperator(Requests.OperatorReport report) {
    return call("PUT", "/v2/clusters/" + clusterId + "/monitored-operators", Json.write(report),
        "application/json", RetryPolicy.Mode.FULL).thenApply(r -> null);
  }

  /** POST /v2/clusters/{id}/uploads/ingress-cert; the body is a JSON string holding the PEM bundle. */
  public CompletableFuture<Void> uploadIngressCert(String pemBundle) {
    return call("POST", "/v2/clusters/" + clusterId + "/uploads/ingress-cert", Json.write(pemBundle),
        "application/json", RetryPolicy.Mode.FULL).thenApply(r -> null);
  }

  /** POST /v2/clusters/{id}/logs?logs_type=controller, multipart field {@code upfile}. */
  public CompletableFuture<Void> uploadControllerLogs(byte[] tarGz) {
    String boundary = "rdv-" + UUID.randomUUID();
    byte[] body = multipart(boundary, "upfile", "controller_logs.tar.gz", tarGz);
    // with the polls, not ahead of them: a log snapshot moves nothing on (in the 10,000-site swarm the snapshots of
    // ~3,800 controllers, ahead, left the polls 5 calls a second)
    return callBytes("POST", "/v2/clusters/" + clusterId + "/logs?logs_type=controller", body,
        "multipart/form-data; boundary=" + boundary, RetryPolicy.Mode.FULL, false).thenApply(r -> null);
  }

  /** PUT /v2/clusters/{id}/logs-progress {logs_state}. */
  public CompletableFuture<Void> updateLogsProgress(LogsState state) {
    return call("PUT", "/v2/clusters/" + clusterId + "/logs-progress", Json.write(new Requests.LogsProgress(state)),
        "application/json", RetryPolicy.Mode.FULL).thenApply(r -> null);
  }

  /** POST /v2/clusters/{id}/actions/complete-installation {is_success,error_info,data}. */
  public CompletableFuture<Void> completeInstallation(boolean success, String errorInfo, Map<String, Object> data) {
    return call("POST", "/v2/clusters/" + clusterId + "/actions/complete-installation",
        Json.write(new Requests.Completion(success, errorInfo == null ? "" : errorInfo, data)), "application/json",
        RetryPolicy.Mode.FULL).thenApply(r -> null);
  }

  /** POST /v2/events. */
  public CompletableFuture<Void> triggerEvent(Requests.Event event) {
    return call("POST", "/v2/events", Json.write(event), "application/json", RetryPolicy.Mode.FULL)
        .thenApply(r -> null);
  }

  // ---- transport --------------------------------------------------------------------------------------------

  private CompletableFuture<HttpResponse<byte[]>> call(String method, String path, String json, String contentType,
      RetryPolicy.Mode mode) {
    return callBytes(method, path, json == null ? null : json.getBytes(StandardCharsets.UTF_8), contentType, mode,
        !"GET".equals(method));
  }

  /** {@code ahead}: made before the polls waiting for a call thread (reports, and reads something waits on). */
  private CompletableFuture<HttpResponse<byte[]>> callBytes(String method, String path, byte[] body,
      String contentType, RetryPolicy.Mode mode, boolean ahead) {
    CompletableFuture<HttpResponse<byte[]>> result = new CompletableFuture<>();
    attempt(method, path, body, contentType, mode, UUID.randomUUID().toString(), 0, ahead, result);
    return result;
  }

  private void attempt(String method, String path, byte[] body, String contentType, RetryPolicy.Mode mode,
      String requestId, int retries, boolean ahead, CompletableFuture<HttpResponse<byte[]>> result) {
    if (stopped.getAsBoolean()) {
      result.completeExceptionally(new CancellationException("controller stopped"));
      return;
    }
    HttpRequest.Builder rb = HttpRequest.newBuilder(URI.create(base + path))
        .timeout(requestTimeout)
        .header("X-Secret-Key", token)
        .header("X-Request-ID", requestId)
        .header("Accept", "application/json")
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofByteArray(body));
    if (contentType != null) {
      rb.header("Content-Type", contentType);
    }
    HttpRequest request;
    try {
      request = rb.build();
    } catch (IllegalArgumentException e) {
      result.completeExceptionally(new ServiceException(method, path, 0, e.getMessage(), e));
      return;
    }
    CompletableFuture.supplyAsync(() -> {
      try {
        return http.send(request, HttpResponse.BodyHandlers.ofByteArray());
      } catch (IOException e) {
        throw new CompletionException(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new CompletionException(e);
      }
    }, ahead ? reports : calls).whenComplete((resp, err) -> {
      if (err != null) {
        Throwable cause = err instanceof CompletionException && err.getCause() != null ? err.getCause() : err;
        if (retry.retriesFailure(cause, retries, mode)) {
          retryLater(method, path, body, contentType, mode, requestId, retries, ahead, result, cause.toString());
        } else {
          result.completeExceptionally(new ServiceException(method, path, 0, cause.toString(), cause));
        }
        return;
      }
      int status = resp.statusCode();
      if (status >= 200 && status < 300) {
        log.debug("{} {} -> {} (request {})", method, path, status, requestId);
        result.complete(resp);
      } else if (retry.retriesStatus(status, retries, mode)) {
        retryLater(method, path, body, contentType, mode, requestId, retries, ahead, result, "status " + status);
      } else {
        result.completeExceptionally(new ServiceException(method, path, status, reason(resp.body()), null));
      }
    });
  }

  private void retryLater(String method, String path, byte[] body, String contentType, RetryPolicy.Mode mode,
      String requestId, int retries, boolean ahead, CompletableFuture<HttpResponse<byte[]>> result, String why) {
    Duration d = retry.delay(retries);
    log.debug("{} {} failed ({}), retry {} in {} (request {})", method, path, why, retries + 1, d, requestId);
    scheduler.schedule(() -> attempt(method, path, body, contentType, mode, requestId, retries + 1, ahead, result),
        d.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void notify(Runnable r) {
    try {
      r.run();
    } catch (RuntimeException e) {
      log.warn("service view listener failed: {}", ControllerLog.describe(e));
    }
  }

  private static String reason(byte[] body) {
    String s = new String(body, StandardCharsets.UTF_8).trim();
    return s.length() > 300 ? s.substring(0, 300) + "..." : s;
  }

  private static <T> T parse(byte[] body, Class<T> type) {
    try {
      return Json.MAPPER.readValue(body, type);
    } catch (IOException e) {
      throw new UncheckedIOException("unexpected answer from the service: " + e.getMessage(), e);
    }
  }

  private static <T> T parse(byte[] body, TypeReference<T> type) {
    try {
      return Json.MAPPER.readValue(body, type);
    } catch (IOException e) {
      throw new UncheckedIOException("unexpected answer from the service: " + e.getMessage(), e);
    }
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  static byte[] multipart(String boundary, String field, String fileName, byte[] content) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(content.length + 256);
    String head = "--" + boundary + "\r\n"
        + "Content-Disposition: form-data; name=\"" + field + "\"; filename=\"" + fileName + "\"\r\n"
        + "Content-Type: application/octet-stream\r\n\r\n";
    out.writeBytes(head.getBytes(StandardCharsets.UTF_8));
    out.writeBytes(content);
    out.writeBytes(("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8));
    return out.toByteArray();
  }
}
