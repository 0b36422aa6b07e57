package dev.rendezvous.agentbased.site;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rendezvous.agentbased.config.RootDeviceHints;
import dev.rendezvous.agentbased.config.SiteConfig;
import dev.rendezvous.agentbased.config.SiteConfigException;
import dev.rendezvous.agentbased.config.SitePlan;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * On a site's rendezvous host, what upstream's agent-based units do around the service (agent-register-cluster,
 * agent-register-infraenv, apply-host-config, start-cluster-installation), through the REST API like they do:
 * registers the cluster and the infra-env from the site's two files (or finds them after a restart), gives each
 * registering host its hostname, role and installation disk from agent-config.yaml (matched by MAC, the disk by its
 * root device hints), and starts the installation once every expected host is there and the cluster is ready. Its
 * own thread: the calls block, never an event loop.
 */
public final class SiteRegistration implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SiteRegistration.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration PERIOD = Duration.ofSeconds(2);

  private final SitePlan plan;
  private final String apiBase;
  private final String token;
  private final HttpClient http;
  private final Thread thread;
  private volatile boolean stopped;
  private String clusterId;
  private String infraEnvId;
  private String lastWaiting = "";
  private boolean overridesApplied;

  private SiteRegistration(SitePlan plan, String apiBase, String token, javax.net.ssl.SSLContext tls) {
    HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5));
    if (tls != null) {
      b.sslContext(tls);
    }
    this.http = b.build();
    this.plan = plan;
    this.apiBase = apiBase;
    this.token = token;
    this.thread = new Thread(this::loop, "agent-based-site");
    this.thread.setDaemon(true);
  }

  /**
   * Reads {@code siteDir} (install-config.yaml, agent-config.yaml, openshift-version) and starts.
   *
   * @param apiBase e.g. {@code http://127.0.0.1:8090/api/assisted-install/v2}
   * @param token an admin token of the service, or null when auth is off
   */
  public static SiteRegistration start(Path siteDir, String apiBase, String token) throws IOException {
    return start(siteDir, apiBase, token, null);
  }

  /** {@code tls}: how to trust an https {@code apiBase} (the service's own CA); null: the JVM's roots. */
  public static SiteRegistration start(Path siteDir, String apiBase, String token, javax.net.ssl.SSLContext tls)
      throws IOException {
    String version = Files.readString(siteDir.resolve("openshift-version")).strip();
    SitePlan plan;
    try {
      plan = SitePlan.of(SiteConfig.read(siteDir), version);
    } catch (SiteConfigException e) {
      throw new IOException("the site's files in " + siteDir + " are not valid: " + e.getMessage(), e);
    }
    SiteRegistration r = new SiteRegistration(plan, apiBase, token, tls);
    r.thread.start();
    LOG.atInfo().addKeyValue("cluster", plan.clusterName()).addKeyValue("expected_hosts", plan.expectedHosts())
        .log("agent-based site: registering the cluster and waiting for its hosts");
    return r;
  }

  private void loop() {
    while (!stopped) {
      try {
        if (round()) {
          return; // the installation started: what is left is the service's
        }
      } catch (IOException | RuntimeException e) {
        LOG.atWarn().addKeyValue("reason", String.valueOf(e.getMessage())).log("agent-based site: round failed, retrying");
      } catch (InterruptedException e) {
        return;
      }
      try {
        Thread.sleep(PERIOD.toMillis());
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** One pass; true once the installation started. */
  boolean round() throws IOException, InterruptedException {
    if (clusterId == null) {
      clusterId = findOrCreateCluster();
    }
    if (infraEnvId == null) {
      infraEnvId = findOrCreateInfraEnv();
    }
    JsonNode cluster = call("GET", "/clusters/" + clusterId, null, 200);
    String status = cluster.path("status").asText();
    boolean beforeInstall = Set.of("pending-for-input", "insufficient", "ready").contains(status);
    if (!overridesApplied && beforeInstall && plan.installConfigOverrides() != null) {
      // every start, not only at creation: a restart between the POST and this PATCH must not lose them
      call("PATCH", "/clusters/" + clusterId + "/install-config",
          JSON.getNodeFactory().textNode(plan.installConfigOverrides()), 201);
      overridesApplied = true;
    }
    if (!beforeInstall) {
      LOG.atInfo().addKeyValue("cluster_id", clusterId).addKeyValue("status", status)
          .log("agent-based site: the installation is under way");
      return true;
    }
    JsonNode hosts = call("GET", "/infra-envs/" + infraEnvId + "/hosts", null, 200);
    int known = 0;
    List<String> holding = new ArrayList<>();
    for (JsonNode h : hosts) {
      configure(h);
      if ("known".equals(h.path("status").asText())) {
        known++;
      } else {
        holding.add(holding(h));
      }
    }
    if (hosts.size() >= plan.expectedHosts() && known == hosts.size() && "ready".equals(status)) {
      HttpResponse<String> r = send("POST", "/clusters/" + clusterId + "/actions/install", null);
      if (r.statusCode() == 202) {
        LOG.atInfo().addKeyValue("cluster_id", clusterId).addKeyValue("hosts", hosts.size())
            .log("agent-based site: every expected host is known and the cluster ready: installation started");
        return true;
      }
      LOG.atInfo().addKeyValue("status", r.statusCode()).addKeyValue("reason", r.body())
          .log("agent-based site: the installation could not start yet");
      return false;
    }
    String waiting = hosts.size() + "/" + plan.expectedHosts() + " hosts, " + known + " known, cluster " + status
        + (holding.isEmpty() ? "" : "; " + String.join("; ", holding));
    if (!waiting.equals(lastWaiting)) {
      lastWaiting = waiting;
      LOG.atInfo().addKeyValue("cluster_id", clusterId).log("agent-based site: waiting: " + waiting);
    }
    return false;
  }

  /** A host that is not known yet and why: the validations it does not pass yet (the waiting line names them). */
  private static String holding(JsonNode h) {
    String name = h.path("requested_hostname").asText(h.path("id").asText());
    List<String> open = new ArrayList<>();
    try {
      JsonNode info = JSON.readTree(h.path("validations_info").asText("{}"));
      info.fields().forEachRemaining(group -> group.getValue().forEach(v -> {
        String st = v.path("status").asText();
        if (!st.equals("success") && !st.equals("disabled")) {
          open.add(v.path("id").asText() + " " + st);
        }
      }));
    } catch (IOException e) {
      open.add("validations unreadable");
    }
    return name + " " + h.path("status").asText() + (open.isEmpty() ? "" : ": " + String.join(", ", open));
  }

  /** The hostname, role and installation disk agent-config.yaml gives this host, where they differ. */
  private void configure(JsonNode host) throws IOException, InterruptedException {
    JsonNode inventory = inventory(host);
    if (inventory == null) {
      return;
    }
    Set<String> macs = new LinkedHashSet<>();
    for (JsonNode nic : inventory.path("interfaces")) {
      if (!nic.path("mac_address").asText().isEmpty()) {
        macs.add(nic.path("mac_address").asText().toLowerCase(Locale.ROOT));
      }
    }
    Optional<SitePlan.HostPlan> wanted = plan.hostFor(macs);
    if (wanted.isEmpty()) {
      return;
    }
    SitePlan.HostPlan p = wanted.get();
    ObjectNode patch = JSON.createObjectNode();
    if (p.hostname() != null && !p.hostname().equals(host.path("requested_hostname").asText())) {
      patch.put("host_name", p.hostname());
    }
    if (p.role() != null && !p.role().equals(host.path("role").asText())) {
      patch.put("host_role", p.role());
    }
    if (p.hints() != null) {
      Optional<String> disk = RootDeviceHints.choose(p.hints(), inventory);
      if (disk.isPresent() && !disk.get().equals(host.path("installation_disk_id").asText())) {
        patch.putArray("disks_selected_config").addObject().put("id", disk.get()).put("role", "install");
      } else if (disk.isEmpty()) {
        LOG.atWarn().addKeyValue("host_id", host.path("id").asText())
            .log("agent-based site: no disk of this host matches its rootDeviceHints");
      }
    }
    if (!patch.isEmpty()) {
      call("PATCH", "/infra-envs/" + infraEnvId + "/hosts/" + host.path("id").asText(), patch, 201);
      LOG.atInfo().addKeyValue("host_id", host.path("id").asText()).addKeyValue("infra_env_id", infraEnvId)
          .log("agent-based site: host configured from agent-config.yaml: " + patch);
    }
  }

  private static JsonNode inventory(JsonNode host) throws IOException {
    String text = host.path("inventory").asText("");
    return text.isEmpty() ? null : JSON.readTree(text);
  }

  private String findOrCreateCluster() throws IOException, InterruptedException {
    for (JsonNode c : call("GET", "/clusters", null, 200)) {
      if (plan.clusterName().equals(c.path("name").asText())) {
        return c.path("id").asText();
      }
    }
    String id = call("POST", "/clusters", plan.clusterParams(), 201).path("id").asText();
    LOG.atInfo().addKeyValue("cluster_id", id).log("agent-based site: cluster " + plan.clusterName() + " registered");
    return id;
  }

  private String findOrCreateInfraEnv() throws IOException, InterruptedException {
    for (JsonNode e : call("GET", "/infra-envs?cluster_id=" + clusterId, null, 200)) {
      return e.path("id").asText();
    }
    String id = call("POST", "/infra-envs", plan.infraEnvParams(clusterId), 201).path("id").asText();
    LOG.atInfo().addKeyValue("infra_env_id", id).addKeyValue("cluster_id", clusterId)
        .log("agent-based site: infra-env registered");
    return id;
  }

  private JsonNode call(String method, String path, JsonNode body, int expected) throws IOException, InterruptedException {
    HttpResponse<String> r = send(method, path, body);
    if (r.statusCode() != expected && !(expected == 201 && r.statusCode() == 200)) {
      throw new IOException(method + " " + path + " answered " + r.statusCode() + ": " + r.body());
    }
    return r.body().isEmpty() ? JSON.nullNode() : JSON.readTree(r.body());
  }

  private HttpResponse<String> send(String method, String path, JsonNode body) throws IOException, InterruptedException {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(apiBase + path)).timeout(Duration.ofSeconds(30))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(body.toString()));
    if (body != null) {
      b.header("Content-Type", "application/json");
    }
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Override
  public void close() {
    stopped = true;
    thread.interrupt();
  }
}
