package dev.rendezvous.controller.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.rendezvous.controller.support.ControllerLog;
import dev.rendezvous.controller.support.SharedRuntime;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The client's wire behaviour: paths, headers, bodies, upstream's retry policy (with millisecond delays). */
class AssistedServiceClientTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static final String CLUSTER = "8a2d7c38-0d1a-4d43-9a55-9f8f1e4bb1a1";

  record Seen(String method, String uri, String key, String requestId, String contentType, byte[] body) {
    JsonNode json() throws Exception {
      return JSON.readTree(body);
    }
  }

  HttpServer server;
  final List<Seen> seen = new ArrayList<>();
  final Deque<Integer> statuses = new ArrayDeque<>();
  String answer = "{}";
  AssistedServiceClient client;

  @BeforeEach
  void setUp() throws Exception {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", ex -> {
      byte[] body = ex.getRequestBody().readAllBytes();
      int status;
      synchronized (seen) {
        seen.add(new Seen(ex.getRequestMethod(), ex.getRequestURI().toString(),
            ex.getRequestHeaders().getFirst("X-Secret-Key"), ex.getRequestHeaders().getFirst("X-Request-ID"),
            ex.getRequestHeaders().getFirst("Content-Type"), body));
        status = statuses.isEmpty() ? 200 : statuses.poll();
      }
      byte[] out = (status == 200 ? answer : "{\"code\":\"" + status + "\",\"reason\":\"scripted\"}")
          .getBytes(StandardCharsets.UTF_8);
      ex.sendResponseHeaders(status, out.length);
      ex.getResponseBody().write(out);
      ex.close();
    });
    server.start();
    client = client(URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/"), 4, 3);
  }

  AssistedServiceClient client(URI url, int maxRetries, int minRetries) {
    HttpClient http = HttpClients.shared(new HttpClients.Tls(false, Optional.empty()), ProxySettings.NONE,
        SharedRuntime.get().httpExecutor());
    return new AssistedServiceClient(http, SharedRuntime.get().serviceCalls(), url, "tok", CLUSTER,
        new RetryPolicy(Duration.ofMillis(1), Duration.ofMillis(4), maxRetries, minRetries),
        SharedRuntime.get().scheduler(), new ControllerLog(CLUSTER, 10_000), Duration.ofSeconds(5), () -> false);
  }

  @AfterEach
  void tearDown() {
    server.stop(0);
  }

  @Test
  void aReadIsRetriedOnServerErrorsUnderOneRequestId() throws Exception {
    statuses.addAll(List.of(503, 500));
    answer = "{\"id\":\"" + CLUSTER + "\",\"status\":\"finalizing\",\"progress\":{\"finalizing_stage\":"
        + "\"Adding router ca\",\"finalizing_stage_timed_out\":false},\"monitored_operators\":[{\"name\":\"console\","
        + "\"operator_type\":\"builtin\",\"status\":\"available\"}],\"unknown_field\":1}";
    Cluster c = client.getCluster(true).get(10, TimeUnit.SECONDS);
    assertEquals("finalizing", c.status());
    assertEquals(FinalizingStage.ADDING_ROUTER_CA, c.finalizingStage());
    assertEquals(OperatorStatus.AVAILABLE, c.monitoredOperators().get(0).status());
    assertEquals(3, seen.size());
    assertEquals("/api/assisted-install/v2/clusters/" + CLUSTER + "?exclude-hosts=true", seen.get(0).uri());
    assertTrue(seen.stream().allMatch(s -> "tok".equals(s.key())));
    assertEquals(1, seen.stream().map(Seen::requestId).distinct().count(), "one logical request, one id");
    answer = "[]";
    client.getHosts().get(10, TimeUnit.SECONDS);
    assertNotEquals(seen.get(0).requestId(), seen.get(3).requestId(), "a fresh id per call");
  }

  @Test
  void notFoundIsRetriedOnlyUpToMinRetries() {
    statuses.addAll(List.of(404, 404, 404, 404, 404, 404));
    ExecutionException e = assertThrows(ExecutionException.class, () -> client.getCluster(false).get(10, TimeUnit.SECONDS));
    assertEquals(404, ServiceException.find(e).status());
    assertEquals(1 + 3, seen.size());
  }

  @Test
  void conflictsAreNotRetried() {
    statuses.add(409);
    assertThrows(ExecutionException.class,
        () -> client.updateFinalizingStage(FinalizingStage.DONE).get(10, TimeUnit.SECONDS));
    assertEquals(1, seen.size());
  }

  @Test
  void aHostStageIsNotResentAfterAnAnswerThatMayHaveApplied() throws Exception {
    statuses.add(503);
    assertThrows(ExecutionException.class,
        () -> client.updateHostProgress("ie", "h", HostStage.JOINED, "").get(10, TimeUnit.SECONDS));
    assertEquals(1, seen.size(), "the loop re-reads the host's stage and decides again");
    client.updateHostProgress("ie", "h", HostStage.JOINED, "").get(10, TimeUnit.SECONDS);
    Seen put = seen.get(1);
    assertEquals("PUT", put.method());
    assertEquals("/api/assisted-install/v2/infra-envs/ie/hosts/h/progress", put.uri());
    assertEquals("{\"current_stage\":\"Joined\",\"progress_info\":\"\"}", new String(put.body(), StandardCharsets.UTF_8));
  }

  @Test
  void refusedConnectionsAreRetriedThenReported() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    AssistedServiceClient refused = client(URI.create("http://127.0.0.1:" + port), 2, 1);
    ExecutionException e = assertThrows(ExecutionException.class,
        () -> refused.updateHostProgress("ie", "h", HostStage.DONE, "").get(10, TimeUnit.SECONDS));
    assertEquals(0, ServiceException.find(e).status());
    assertInstanceOf(java.net.ConnectException.class, ServiceException.find(e).getCause());
  }

  @Test
  void bodiesAreUpstreamsShapes() throws Exception {
    client.completeInstallation(false, "boom", Map.of("CLUSTER_OPERATORS_REPORT",
        List.of(Map.of("name", "console", "status", "progressing", "status_info", "x")))).get(10, TimeUnit.SECONDS);
    client.completeInstallation(true, "", null).get(10, TimeUnit.SECONDS);
    client.uploadIngressCert("-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n").get(10, TimeUnit.SECONDS);
    client.updateFinalizingStage(FinalizingStage.WAITING_FOR_OLM_OPERATORS_CSV_INITIALIZATION).get(10, TimeUnit.SECONDS);
    client.reportOperator(new Requests.OperatorReport("cvo", OperatorStatus.AVAILABLE, "Done", "4.18.3"))
        .get(10, TimeUnit.SECONDS);
    client.updateLogsProgress(LogsState.REQUESTED).get(10, TimeUnit.SECONDS);
    client.uploadControllerLogs(new byte[] {1, 2, 3}).get(10, TimeUnit.SECONDS);
    client.triggerEvent(new Requests.Event("reboots_for_node", "user", "info", "m", CLUSTER, "h", "ie",
        "2026-01-01T00:00:00Z")).get(10, TimeUnit.SECONDS);

    assertEquals("/api/assisted-install/v2/clusters/" + CLUSTER + "/actions/complete-installation", seen.get(0).uri());
    com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
    assertEquals(json.readTree("{\"is_success\":false,\"error_info\":\"boom\",\"data\":{\"CLUSTER_OPERATORS_REPORT\":"
        + "[{\"name\":\"console\",\"status\":\"progressing\",\"status_info\":\"x\"}]}}"),
        json.readTree(seen.get(0).body()), "the same JSON, whatever the order of the report's fields");
    assertEquals("{\"is_success\":true,\"error_info\":\"\"}", new String(seen.get(1).body(), StandardCharsets.UTF_8));
    assertTrue(seen.get(2).json().isTextual(), "ingress-cert body is a JSON string");
    assertEquals("/api/assisted-install/v2/clusters/" + CLUSTER + "/uploads/ingress-cert", seen.get(2).uri());
    assertEquals("{\"finalizing_stage\":\"Waiting for olm operators csv initialization\"}",
        new String(seen.get(3).body(), StandardCharsets.UTF_8));
    assertEquals("PUT", seen.get(4).method());
    assertEquals("/api/assisted-install/v2/clusters/" + CLUSTER + "/monitored-operators", seen.get(4).uri());
    assertEquals("{\"name\":\"cvo\",\"status\":\"available\",\"status_info\":\"Done\",\"version\":\"4.18.3\"}",
        new String(seen.get(4).body(), StandardCharsets.UTF_8));
    assertEquals("{\"logs_state\":\"requested\"}", new String(seen.get(5).body(), StandardCharsets.UTF_8));
    assertEquals("/api/assisted-install/v2/clusters/" + CLUSTER + "/logs?logs_type=controller", seen.get(6).uri());
    assertTrue(seen.get(6).contentType().startsWith("multipart/form-data; boundary="));
    String multipart = new String(seen.get(6).body(), StandardCharsets.ISO_8859_1);
    assertTrue(multipart.contains("name=\"upfile\"; filename=\"controller_logs.tar.gz\""), multipart);
    assertEquals("/api/assisted-install/v2/events", seen.get(7).uri());
    assertEquals("reboots_for_node", seen.get(7).json().path("name").asText());
  }
}
