package dev.rendezvous.controller.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.rendezvous.controller.loops.StageOrder;
import dev.rendezvous.controller.service.Host;
import dev.rendezvous.controller.service.HostRole;
import dev.rendezvous.controller.service.HostStage;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A protocol double of the service API as the controller uses it (JDK HTTP server): it records every call, holds
 * the cluster's status, the hosts' stages and the monitored operators, and moves the cluster the way
 * assisted-service does: to {@code finalizing} once every master is installed (and two workers when two or more are
 * expected), to {@code installed} once every host is installed, the ingress CA is uploaded and every monitored
 * operator is done, to {@code error} on an unsuccessful complete-installation. Host progress follows the service's
 * rules: stages of the host's role only, never backwards (409). The real service is integrated by others.
 */
public final class ServiceDouble implements AutoCloseable {
  public static final ObjectMapper JSON = new ObjectMapper();
  private static final String BASE = "/api/assisted-install/v2";

  /** One recorded request and the status it got. */
  public record Call(String method, String path, String query, Map<String, List<String>> headers, byte[] body,
      int status) {
    public String text() {
      return new String(body, StandardCharsets.UTF_8);
    }

    public JsonNode json() {
      try {
        return JSON.readTree(body);
      } catch (IOException e) {
        throw new IllegalStateException("not JSON: " + text(), e);
      }
    }

    public String header(String name) {
      for (Map.Entry<String, List<String>> e : headers.entrySet()) {
        if (e.getKey() != null && e.getKey().equalsIgnoreCase(name) && !e.getValue().isEmpty()) {
          return e.getValue().get(0);
        }
      }
      return null;
    }
  }

  /** A host as the double holds it. */
  public static final class HostState {
    public final String id;
    public final String infraEnvId;
    public final String role;
    public final boolean bootstrap;
    public final String hostname;
    public final String ip;
    public volatile String status = "installing-in-progress";
    public volatile HostStage stage;
    public volatile Instant stageStartedAt = Instant.now();
    public volatile String nodeLabels = "";

    HostState(String id, String infraEnvId, String role, boolean bootstrap, String hostname, String ip) {
      this.id = id;
      this.infraEnvId = infraEnvId;
      this.role = role;
      this.bootstrap = bootstrap;
      this.hostname = hostname;
      this.ip = ip;
    }
  }

  private final HttpServer server;
  private final ExecutorService executor;
  public final String clusterId = UUID.randomUUID().toString();
  public final String infraEnvId = UUID.randomUUID().toString();
  public final String token = "agent-token-" + UUID.randomUUID();
  private final List<Call> calls = new ArrayList<>();
  private final Map<String, HostState> hosts = new LinkedHashMap<>();
  private final Map<String, ObjectNode> operators = new LinkedHashMap<>();
  private String status = "installing";
  private String finalizingStage;
  private boolean finalizingStageTimedOut;
  private String ingressCert;
  private boolean deleted;
  private int controlPlaneCount = 3;
  private String platform = "baremetal";
  private final List<byte[]> logUploads = new ArrayList<>();
  private final Map<String, byte[]> clusterFiles = new LinkedHashMap<>();
  private byte[] kubeconfig = "apiVersion: v1\nkind: Config\n".getBytes(StandardCharsets.UTF_8);

  public ServiceDouble() throws IOException {
    this(4);
  }

  public ServiceDouble(int threads) throws IOException {
    executor = Executors.newFixedThreadPool(threads);
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setExecutor(executor);
    server.createContext("/", this::handle);
    server.start();
  }

  public URI url() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }

  // ---- set-up -----------------------------------------------------------------------------------------------

  public synchronized HostState addHost(String hostname, String ip, String role, boolean bootstrap, HostStage stage) {
    HostState h = new HostState(UUID.randomUUID().toString(), infraEnvId, role, bootstrap, hostname, ip);
    h.stage = stage;
    hosts.put(h.id, h);
    return h;
  }

  public synchronized void addOperator(String name, String type, String namespace, String subscription) {
    ObjectNode op = JSON.createObjectNode();
    op.put("name", name);
    op.put("operator_type", type);
    op.put("cluster_id", clusterId);
    if (namespace != null) {
      op.put("namespace", namespace);
    }
    if (subscription != null) {
      op.put("subscription_name", subscription);
    }
    op.put("status", "");
    op.put("status_info", "");
    op.put("timeout_seconds", 3600);
    operators.put(name, op);
  }

  /** A file of {@code GET /downloads/files} (e.g. custom_manifests.json); others answer 404. */
  public synchronized void setClusterFile(String name, byte[] content) {
    clusterFiles.put(name, content);
  }

  /** What {@code GET /downloads/credentials} answers (the kubeconfig the controller applies manifests with). */
  public synchronized void setKubeconfig(byte[] content) {
    kubeconfig = content;
  }

  public synchronized void addOperator(String name, String type) {
    addOperator(name, type, null, null);
  }

  /** The usual builtin pair the service monitors. */
  public void addBuiltinOperators() {
    addOperator("console", "builtin", null, null);
    addOperator("cvo", "builtin", null, null);
  }

  public synchronized void setStatus(String s) {
    status = s;
  }

  public synchronized void setFinalizingStage(String stage) {
    finalizingStage = stage;
  }

  public synchronized void setOperatorStatus(String name, String s) {
    operators.get(name).put("status", s);
  }

  public synchronized void setControlPlaneCount(int n) {
    controlPlaneCount = n;
  }

  public synchronized void setPlatform(String p) {
    platform = p;
  }

  /** The cluster is deleted: every path of it answers 404 from now on. */
  public synchronized void delete() {
    deleted = true;
  }

  /** The installer (not the controller) reports a stage: not recorded as a call. */
  public synchronized void installerReports(HostState h, HostStage stage) {
    h.stage = stage;
    h.stageStartedAt = Instant.now();
    h.status = stage == HostStage.DONE ? "installed" : "installing-in-progress";
    evaluate();
    remember();
  }

  /** A host's stage and status at one moment, for reads that lag behind. */
  private record Shown(HostStage stage, String status) {}

  /** The hosts at one moment. */
  private record Seen(long atMillis, Map<String, Shown> hosts) {}

  private long readLagMillis;
  /** The moments a lagged read may still show: the newest one at least the lag old, and every later one. */
  private final List<Seen> seen = new ArrayList<>();

  /**
   * From now on the host lists read show the hosts as they were {@code lag} ago, while reports are judged against
   * the hosts as they are: the real service applies a report through its bus, so a controller's next read may not
   * show the report it was just answered for yet.
   */
  public synchronized void readLag(java.time.Duration lag) {
    readLagMillis = lag.toMillis();
    remember();
  }

  private void remember() {
    if (readLagMillis > 0) {
      Map<String, Shown> now = new java.util.HashMap<>();
      hosts.values().forEach(h -> now.put(h.id, new Shown(h.stage, h.status)));
      seen.add(new Seen(System.currentTimeMillis(), now));
    }
  }

  /** What a read shows now: the latest moment at least the lag old (the first one kept when none is). */
  private Seen lagged() {
    if (readLagMillis <= 0 || seen.isEmpty()) {
      return null;
    }
    long until = System.currentTimeMillis() - readLagMillis;
    int shown = 0;
    for (int i = 1; i < seen.size() && seen.get(i).atMillis() <= until; i++) {
      shown = i;
    }
    seen.subList(0, shown).clear(); // the moments before it are never shown again
    return seen.get(0);
  }

  // ---- what happened ----------------------------------------------------------------------------------------

  public synchronized List<Call> calls() {
    return List.copyOf(calls);
  }

  public List<Call> calls(String method, String pathRegex) {
    Pattern p = Pattern.compile(pathRegex);
    return calls().stream().filter(c -> c.method.equals(method) && p.matcher(c.path).find()).toList();
  }

  /** The stages the controller reported for a host, in order, and whether each was accepted. */
  public List<String> stageReports(HostState h) {
    return calls("PUT", "/hosts/" + h.id + "/progress$").stream()
        .map(c -> c.json().path("current_stage").asText() + (c.status == 200 ? "" : " (" + c.status + ")"))
        .toList();
  }

  public synchronized String status() {
    return status;
  }

  public synchronized String finalizingStage() {
    return finalizingStage;
  }

  public synchronized String ingressCert() {
    return ingressCert;
  }

  public synchronized List<byte[]> logUploads() {
    return List.copyOf(logUploads);
  }

  public synchronized JsonNode operator(String name) {
    return operators.get(name).deepCopy();
  }

  public synchronized HostState host(String id) {
    return hosts.get(id);
  }

  // ---- the API ----------------------------------------------------------------------------------------------

  private static final Pattern CLUSTER = Pattern.compile("^/clusters/([^/]+)(/.*)?$");
  private static final Pattern PROGRESS = Pattern.compile("^/infra-envs/([^/]+)/hosts/([^/]+)/progress$");

  private void handle(HttpExchange ex) throws IOException {
    byte[] body = ex.getRequestBody().readAllBytes();
    String path = ex.getRequestURI().getPath();
    String query = ex.getRequestURI().getRawQuery() == null ? "" : ex.getRequestURI().getRawQuery();
    int code;
    byte[] out;
    synchronized (this) {
      Object[] r = route(ex.getRequestMethod(), path, query, ex.getRequestHeaders().getFirst("X-Secret-Key"), body);
      code = (int) r[0];
      out = r[1] == null ? new byte[0] : r[1] instanceof byte[] b ? b : JSON.writeValueAsBytes(r[1]);
      calls.add(new Call(ex.getRequestMethod(), path, query, Map.copyOf(ex.getRequestHeaders()), body, code));
    }
    ex.getResponseHeaders().add("Content-Type", "application/json");
    if (code == 204) {
      ex.sendResponseHeaders(204, -1);
    } else {
      ex.sendResponseHeaders(code, out.length == 0 ? -1 : out.length);
      try (OutputStream os = ex.getResponseBody()) {
        os.write(out);
      }
    }
    ex.close();
  }

  private Object[] route(String method, String fullPath, String query, String secret, byte[] body) throws IOException {
    if (!fullPath.startsWith(BASE)) {
      return err(404, "no such path");
    }
    if (!token.equals(secret)) {
      return err(401, "unauthorized");
    }
    String path = fullPath.substring(BASE.length());
    if (method.equals("POST") && path.equals("/events")) {
      return new Object[] {201, JSON.readTree(body)};
    }
    Matcher m = PROGRESS.matcher(path);
    if (m.matches() && method.equals("PUT")) {
      return hostProgress(m.group(1), m.group(2), JSON.readTree(body));
    }
    m = CLUSTER.matcher(path);
    if (!m.matches() || !m.group(1).equals(clusterId) || deleted) {
      return err(404, "cluster not found");
    }
    String rest = m.group(2) == null ? "" : m.group(2);
    switch (method + " " + rest) {
      case "GET ":
        return new Object[] {200, clusterJson(!query.contains("exclude-hosts=true"))};
      case "GET /hosts":
        // as the service: a host list carries the inventories only when asked for
        return new Object[] {200, hostsJson(query.contains("with-inventory=true"))};
      case "PUT /progress": {
        String stage = JSON.readTree(body).path("finalizing_stage").asText();
        finalizingStage = stage;
        return new Object[] {200, clusterJson(false)};
      }
      case "GET /monitored-operators": {
        ArrayNode a = JSON.createArrayNode();
        operators.values().forEach(o -> a.add(o.deepCopy()));
        return new Object[] {200, a};
      }
      case "PUT /monitored-operators": {
        JsonNode r = JSON.readTree(body);
        ObjectNode op = operators.get(r.path("name").asText());
        if (op == null) {
          return err(404, "no such operator");
        }
        op.put("status", r.path("status").asText());
        op.put("status_info", r.path("status_info").asText());
        op.put("version", r.path("version").asText());
        evaluate();
        return new Object[] {200, null};
      }
      case "POST /uploads/ingress-cert": {
        if (!status.equals("finalizing") && !status.equals("installed")) {
          return err(409, "cluster is " + status);
        }
        ingressCert = JSON.readTree(body).asText();
        evaluate();
        return new Object[] {201, clusterJson(false)};
      }
      case "POST /logs":
        if (!query.contains("logs_type=controller")) {
          return err(400, "logs_type");
        }
        logUploads.add(multipartFile(body));
        return new Object[] {204, null};
      case "PUT /logs-progress":
        return new Object[] {204, null};
      case "POST /actions/complete-installation": {
        JsonNode r = JSON.readTree(body);
        if (!r.path("is_success").asBoolean()) {
          status = "error";
        }
        return new Object[] {202, clusterJson(false)};
      }
      case "GET /downloads/files": {
        Matcher f = Pattern.compile("(?:^|&)file_name=([^&]+)").matcher(query);
        byte[] file = f.find() ? clusterFiles.get(java.net.URLDecoder.decode(f.group(1), StandardCharsets.UTF_8)) : null;
        return file == null ? err(404, "no such file") : new Object[] {200, file};
      }
      case "GET /downloads/credentials":
        return new Object[] {200, kubeconfig};
      default:
        return err(404, "unknown " + method + " " + rest);
    }
  }

  private Object[] hostProgress(String ie, String hostId, JsonNode body) {
    HostState h = hosts.get(hostId);
    if (h == null || !h.infraEnvId.equals(ie) || deleted) {
      return err(404, "host not found");
    }
    HostStage stage = HostStage.fromWire(body.path("current_stage").asText());
    if (stage == null) {
      return err(400, "unknown stage");
    }
    if (stage == HostStage.FAILED) {
      h.status = "error";
      remember();
      return new Object[] {200, null};
    }
    if (!List.of("installing", "installing-in-progress", "installing-pending-user-action").contains(h.status)) {
      return err(409, "host is " + h.status);
    }
    List<HostStage> order = StageOrder.of(asHost(h), controlPlaneCount == 1);
    if (!order.contains(stage)) {
      return err(400, "stage " + stage + " is not a stage of this host's role");
    }
    if (h.stage != null && order.indexOf(stage) < order.indexOf(h.stage)) {
      return err(409, "can't go backwards from " + h.stage + " to " + stage);
    }
    if (stage != h.stage) {
      h.stage = stage;
      h.stageStartedAt = Instant.now();
    }
    if (stage == HostStage.DONE) {
      h.status = "installed";
    }
    evaluate();
    remember();
    return new Object[] {200, null};
  }

  /** The cluster monitor: installing → finalizing → installed. */
  private void evaluate() {
    List<HostState> masters = hosts.values().stream().filter(h -> h.role.equals("master")).toList();
    List<HostState> workers = hosts.values().stream().filter(h -> h.role.equals("worker")).toList();
    if (status.equals("installing")) {
      boolean mastersDone = masters.stream().allMatch(h -> h.status.equals("installed"));
      long workersDone = workers.stream().filter(h -> h.status.equals("installed")).count();
      if (mastersDone && (workers.size() < 2 || workersDone >= 2)) {
        status = "finalizing";
      }
    }
    if (status.equals("finalizing")) {
      boolean hostsDone = hosts.values().stream().allMatch(h -> h.status.equals("installed") || h.status.equals("error"));
      boolean operatorsDone = operators.values().stream().allMatch(o -> o.path("status").asText().equals("available")
          || (o.path("operator_type").asText().equals("olm") && o.path("status").asText().equals("failed")));
      if (hostsDone && ingressCert != null && operatorsDone) {
        status = "installed";
      }
    }
  }

  private Host asHost(HostState h) {
    return new Host(h.id, h.infraEnvId, clusterId, h.status, h.role, h.role, h.bootstrap, h.hostname, null,
        null, null, null);
  }

  private ObjectNode clusterJson(boolean withHosts) {
    ObjectNode c = JSON.createObjectNode();
    c.put("id", clusterId);
    c.put("kind", "Cluster");
    c.put("name", "dry");
    c.put("base_dns_domain", "example.com");
    c.put("openshift_version", "4.18");
    c.put("status", status);
    c.put("status_info", "");
    c.put("control_plane_count", controlPlaneCount);
    c.putObject("platform").put("type", platform);
    ObjectNode p = c.putObject("progress");
    if (finalizingStage != null) {
      p.put("finalizing_stage", finalizingStage);
    }
    p.put("finalizing_stage_timed_out", finalizingStageTimedOut);
    ArrayNode ops = c.putArray("monitored_operators");
    operators.values().forEach(o -> ops.add(o.deepCopy()));
    if (withHosts) {
      c.set("hosts", hostsJson(true));
    }
    return c;
  }

  private ArrayNode hostsJson(boolean withInventory) {
    ArrayNode a = JSON.createArrayNode();
    Seen lagged = lagged();
    for (HostState h : hosts.values()) {
      Shown shown = lagged == null ? null : lagged.hosts().get(h.id);
      String status = shown == null ? h.status : shown.status();
      HostStage stage = shown == null ? h.stage : shown.stage();
      ObjectNode o = a.addObject();
      o.put("id", h.id);
      o.put("infra_env_id", h.infraEnvId);
      o.put("cluster_id", clusterId);
      o.put("kind", "Host");
      o.put("status", status);
      o.put("role", h.role);
      o.put("suggested_role", h.role);
      o.put("bootstrap", h.bootstrap);
      o.put("requested_hostname", h.hostname);
      ObjectNode inv = JSON.createObjectNode();
      inv.put("hostname", h.hostname);
      ObjectNode nic = inv.putArray("interfaces").addObject();
      nic.put("name", "eth0");
      nic.putArray("ipv4_addresses").add(h.ip + "/24");
      nic.putArray("ipv6_addresses");
      if (withInventory) {
        o.put("inventory", inv.toString());
      }
      ObjectNode prog = o.putObject("progress");
      if (stage != null) {
        prog.put("current_stage", stage.wire());
      }
      prog.put("stage_started_at", h.stageStartedAt.toString());
      prog.put("progress_info", "");
      o.put("node_labels", h.nodeLabels);
    }
    return a;
  }

  private static Object[] err(int code, String reason) {
    ObjectNode e = JSON.createObjectNode();
    e.put("code", String.valueOf(code));
    e.put("href", "");
    e.put("id", code);
    e.put("kind", "Error");
    e.put("reason", reason);
    return new Object[] {code, e};
  }

  /** The bytes of the first file part of a multipart/form-data body (field {@code upfile}). */
  static byte[] multipartFile(byte[] body) {
    String text = new String(body, StandardCharsets.ISO_8859_1);
    int nameAt = text.indexOf("name=\"upfile\"");
    if (nameAt < 0) {
      throw new IllegalArgumentException("no upfile part");
    }
    int start = text.indexOf("\r\n\r\n", nameAt) + 4;
    String boundaryLine = text.substring(0, text.indexOf("\r\n"));
    int end = text.indexOf("\r\n" + boundaryLine, start);
    return Arrays.copyOfRange(body, start, end);
  }

  static HostRole role(String r) {
    return HostRole.fromWire(r);
  }
}
