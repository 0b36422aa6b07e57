package dev.rendezvous.agentbased.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rendezvous.agentbased.config.SiteConfig;
import dev.rendezvous.agentbased.config.SiteConfigException;
import dev.rendezvous.agentbased.config.SitePlan;
import dev.rendezvous.agentbased.image.AgentIgnition;
import dev.rendezvous.service.catalog.ReleaseCatalog;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@code agent wait-for bootstrap-complete|install-complete}: follows a site's installation as openshift-install
 * does. While the rendezvous host runs Rendezvous, from its REST API (hosts found, validations failing, statuses
 * and stages); bootstrap is complete once the rendezvous host, the bootstrap, reached Rebooting (its disk is
 * written and the control plane handed over). That host then boots into the cluster and the service is gone, so
 * the rest is read from the cluster's own API with {@code auth/kubeconfig}: the installation is complete when the
 * ClusterVersion is Available. Exits 0 when done, 1 with the reason when it failed, a host never showed up, or the
 * time ran out.
 */
final class WaitForCommand {
  private static final ObjectMapper JSON = new ObjectMapper();
  /** Connection failures in a row that mean the rendezvous host rebooted, rather than a slow answer. */
  private static final int GONE_AFTER = 3;
  private static final List<String> PAST_BOOTSTRAP = List.of("Rebooting", "Configuring", "Joined", "Done");
  private static final List<String> WRITING_OR_LATER = List.of("Writing image to disk", "Waiting for control plane",
      "Waiting for bootkube", "Waiting for controller", "Rebooting", "Configuring", "Joined", "Done");

  private final PrintStream out;
  private final PrintStream err;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final Map<String, String> seen = new HashMap<>();
  private final Set<String> said = new HashSet<>();
  private ClusterApi clusterApi;

  WaitForCommand(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  int run(boolean installComplete, Flags f) throws IOException {
    Path dir = f.dir();
    SitePlan plan;
    try {
      plan = SitePlan.of(SiteConfig.read(dir), ReleaseCatalog.builtIn().defaultRelease().openshiftVersion());
    } catch (SiteConfigException e) {
      err.println("error: " + e.getMessage());
      return 1;
    }
    Path tokenFile = dir.resolve(CreateImageCommand.ADMIN_TOKEN);
    if (!Files.isRegularFile(tokenFile)) {
      err.println("error: " + tokenFile + " is missing: run agent create image --dir " + dir + " first");
      return 1;
    }
    String token = Files.readString(tokenFile).strip();
    // --rendezvous-url: the site's service elsewhere than rendezvousIP:8090 (through a tunnel, say)
    String api = f.value("rendezvous-url", AgentIgnition.serviceUrl(plan.rendezvousIp())).replaceAll("/+$", "")
        + "/api/assisted-install/v2";
    Duration poll = Duration.ofMillis((long) (number(f, "poll-seconds", "5") * 1000));
    long hostDeadline = System.nanoTime() + (long) (number(f, "host-timeout-minutes", "30") * 60e9);
    long deadline = System.nanoTime() + (long) (number(f, "timeout-minutes", "90") * 60e9);
    info("Waiting for the site's Rendezvous at " + api + " (the host holding " + plan.rendezvousIp() + ")");

    String lastBootstrapStage = null;
    boolean bootstrapped = false;
    int unreachable = 0;
    boolean clusterSeen = false;
    while (!bootstrapped) {
      if (System.nanoTime() > deadline) {
        return fail("bootstrap did not complete in time; last seen: " + seen.getOrDefault("cluster", "no cluster"));
      }
      JsonNode cluster;
      JsonNode hosts;
      try {
        cluster = clusterNamed(api, token, plan.clusterName());
        hosts = cluster == null ? JSON.createArrayNode()
            : get(api + "/clusters/" + cluster.path("id").asText() + "/hosts?with-inventory=true", token);
      } catch (StatusException e) {
        unreachable = 0; // it answers, with an error: not gone
        say("status-" + e.getMessage(), "The site's Rendezvous answers: " + e.getMessage());
        sleep(poll);
        continue;
      } catch (IOException e) {
        unreachable++;
        // gone, not slow: no connection several times in a row once the service had shown the cluster. The stages
        // between two polls may have been missed (the host reboots seconds after it said so; a dry run goes from
        // ready to Rebooting between two polls), so the cluster's own API decides: it serves the ClusterVersion
        // once the control plane is up
        if (unreachable >= GONE_AFTER && clusterSeen) {
          if (lastBootstrapStage != null && WRITING_OR_LATER.contains(lastBootstrapStage) || cluster(f, dir).serves()) {
            info("The rendezvous host is gone (" + describe(e) + "): it rebooted into the cluster");
            bootstrapped = true;
            break;
          }
          say("gone-waiting", "The site's Rendezvous is gone (" + describe(e) + ") and the cluster's API does not"
              + " serve its ClusterVersion yet");
        } else {
          say("unreachable", "The site's Rendezvous does not answer yet (" + describe(e) + ")");
        }
        sleep(poll);
        continue;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return fail("interrupted");
      }
      unreachable = 0;
      if (cluster == null) {
        say("no-cluster", "Waiting for cluster " + plan.clusterName() + " to be registered");
      } else {
        clusterSeen = true;
        String status = cluster.path("status").asText();
        change("cluster", status, "Cluster " + plan.clusterName() + ": " + status + ": "
            + cluster.path("status_info").asText());
        if (status.equals("error") || status.equals("cancelled")) {
          return fail("the installation failed: " + cluster.path("status_info").asText());
        }
        for (JsonNode h : hosts) {
          report(h);
          if (h.path("bootstrap").asBoolean(false)) {
            lastBootstrapStage = h.path("progress").path("current_stage").asText(null);
            if (lastBootstrapStage != null && PAST_BOOTSTRAP.contains(lastBootstrapStage)
                || "installed".equals(h.path("status").asText())) {
              bootstrapped = true;
            }
          }
        }
        if (hosts.size() < plan.expectedHosts() && System.nanoTime() > hostDeadline) {
          return fail(missing(plan, hosts) + " never showed up");
        }
        if (status.equals("installed")) {
          bootstrapped = true;
        }
      }
      if (!bootstrapped) {
        sleep(poll);
      }
    }
    info("Bootstrap is complete");
    if (!installComplete) {
      closeCluster();
      return 0;
    }
    try {
      return waitForClusterVersion(f, dir, poll, deadline);
    } finally {
      closeCluster();
    }
  }

  /** The new cluster's API, through auth/kubeconfig (or --kubeconfig), opened once when first needed. */
  private ClusterApi cluster(Flags f, Path dir) throws IOException {
    if (clusterApi == null) {
      Path kubeconfig = Path.of(f.value("kubeconfig", dir.resolve("auth/kubeconfig").toString()));
      Config config = Config.fromKubeconfig(Files.readString(kubeconfig));
      config.setRequestTimeout(10_000);
      config.setConnectionTimeout(5_000);
      clusterApi = new ClusterApi(kubeconfig, new KubernetesClientBuilder().withConfig(config).build());
    }
    return clusterApi;
  }

  private void closeCluster() {
    if (clusterApi != null) {
      clusterApi.client().close();
    }
  }

  /** The cluster's API and where its kubeconfig came from. */
  private record ClusterApi(Path kubeconfig, KubernetesClient client) {
    /** The ClusterVersion, or null when the API does not serve it (yet). */
    GenericKubernetesResource clusterVersion() {
      try {
        return client.genericKubernetesResources("config.openshift.io/v1", "ClusterVersion").withName("version").get();
      } catch (RuntimeException e) {
        return null;
      }
    }

    boolean serves() {
      return clusterVersion() != null;
    }
  }

  /** The cluster's own API: done when its ClusterVersion is Available (the service on the site is gone by now). */
  private int waitForClusterVersion(Flags f, Path dir, Duration poll, long deadline) throws IOException {
    ClusterApi kube = cluster(f, dir);
    info("Waiting for the cluster's API (" + kube.kubeconfig() + ") to report the installation complete");
    while (System.nanoTime() < deadline) {
      GenericKubernetesResource cv = kube.clusterVersion();
      if (cv == null) {
        say("no-cluster-version", "The cluster's API does not serve its ClusterVersion yet");
      } else {
        String available = condition(cv, "Available");
        change("cluster-version", available, "ClusterVersion: Available=" + available);
        if ("True".equals(available)) {
          Object desired = cv.getAdditionalProperties().get("status") instanceof Map<?, ?> s
              && s.get("desired") instanceof Map<?, ?> d ? d.get("version") : null;
          info("Cluster is installed" + (desired == null ? "" : " (OpenShift " + desired + ")")
              + "; kubeadmin's password is in " + dir.resolve("auth/kubeadmin-password"));
          return 0;
        }
      }
      sleep(poll);
    }
    return fail("the installation did not complete in time: the ClusterVersion is not Available");
  }

  /** The service answered, with an error status. */
  private static final class StatusException extends IOException {
    StatusException(String message) {
      super(message);
    }
  }

  /** A flag's non-negative number, fractions allowed. */
  private static double number(Flags f, String name, String dflt) {
    try {
      double v = Double.parseDouble(f.value(name, dflt));
      if (!(v >= 0)) {
        throw new NumberFormatException();
      }
      return v;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--" + name + " must be a number, got '" + f.value(name, dflt) + "'");
    }
  }

  private static String describe(Exception e) {
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }

  private static String condition(GenericKubernetesResource cv, String type) {
    if (cv == null || !(cv.getAdditionalProperties().get("status") instanceof Map<?, ?> status)) {
      return "Unknown";
    }
    if (status.get("conditions") instanceof List<?> conditions) {
      for (Object o : conditions) {
        if (o instanceof Map<?, ?> c && type.equals(c.get("type"))) {
          return String.valueOf(c.get("status"));
        }
      }
    }
    return "Unknown";
  }

  private void report(JsonNode h) {
    String id = h.path("id").asText();
    String name = h.path("requested_hostname").asText(id);
    change("host-" + id, "registered", "Host " + name + " registered");
    String status = h.path("status").asText();
    change("host-status-" + id, status, "Host " + name + ": " + status);
    if (status.equals("insufficient") || status.equals("pending-for-input")) {
      try {
        JsonNode v = JSON.readTree(h.path("validations_info").asText("{}"));
        for (JsonNode group : v) {
          for (JsonNode check : group) {
            if ("failure".equals(check.path("status").asText())) {
              say(id + check.path("id").asText() + check.path("message").asText(),
                  "Host " + name + ": validation " + check.path("id").asText() + " failing: " + check.path("message").asText());
            }
          }
        }
      } catch (IOException e) {
        // no validations yet
      }
    }
    JsonNode progress = h.path("progress");
    String stage = progress.path("current_stage").asText("");
    if (!stage.isEmpty()) {
      change("host-stage-" + id, stage, "Host " + name + ": " + stage
          + (progress.path("progress_info").asText("").isEmpty() ? "" : " " + progress.path("progress_info").asText()));
    }
  }

  private static String missing(SitePlan plan, JsonNode hosts) {
    Set<String> registered = new HashSet<>();
    for (JsonNode h : hosts) {
      try {
        for (JsonNode nic : JSON.readTree(h.path("inventory").asText("{}")).path("interfaces")) {
          registered.add(nic.path("mac_address").asText().toLowerCase(Locale.ROOT));
        }
      } catch (IOException e) {
        // not reported yet
      }
    }
    StringBuilder s = new StringBuilder();
    for (SitePlan.HostPlan p : plan.hosts()) {
      if (p.macAddresses().stream().noneMatch(registered::contains)) {
        s.append(s.length() == 0 ? "" : ", ").append(p.hostname() != null ? p.hostname() : "host " + p.index())
            .append(" (").append(String.join(" ", p.macAddresses())).append(')');
      }
    }
    int count = plan.expectedHosts() - hosts.size();
    return s.length() > 0 ? s.toString() : count + " of the " + plan.expectedHosts() + " expected hosts";
  }

  private JsonNode clusterNamed(String api, String token, String name) throws IOException, InterruptedException {
    for (JsonNode c : get(api + "/clusters", token)) {
      if (name.equals(c.path("name").asText())) {
        return c;
      }
    }
    return null;
  }

  private JsonNode get(String url, String token) throws IOException, InterruptedException {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(15))
        .header("Authorization", "Bearer " + token).GET().build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new StatusException("GET " + url + " answered " + r.statusCode() + ": " + r.body());
    }
    return JSON.readTree(r.body());
  }

  private void change(String key, String value, String line) {
    if (!value.equals(seen.put(key, value))) {
      info(line);
    }
  }

  private void say(String key, String line) {
    if (said.add(key)) {
      info(line);
    }
  }

  private void info(String line) {
    out.println("INFO " + line);
    out.flush();
  }

  private int fail(String reason) {
    err.println("ERROR " + reason);
    return 1;
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
