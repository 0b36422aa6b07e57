package dev.rendezvous.agent.fleet;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rendezvous.agent.AgentConfig;
import dev.rendezvous.agent.AgentSwarm;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A fleet of dry-run clusters driven through the user API as a user would: N clusters (single node when a cluster
 * has one host, else three masters and the rest workers), each with an infra-env whose agent token a swarm of M
 * dry-run agents uses; with {@code install}, each cluster is installed as soon as it is ready, while the rest are still
 * being created. Progress is printed as clusters and hosts by status; the report says how long each milestone took.
 *
 * <p>Blocking (user API calls with the JDK client): run it from a main thread, never an event loop. The agents
 * themselves run on the given Vert.x.
 */
public final class FleetSwarm {
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
  /** Clusters created at once (each: the cluster, its infra-env and its discovery Ignition, one after the other). */
  static final int CREATORS = 8;
  /** What to drive. */
  public record Config(String url, String userToken, int clusters, int hostsPerCluster, boolean install,
      String prefix, String transport, Duration timeout, Duration reportEvery, Duration hold, Duration bootSpread) {
    public Config(String url, String userToken, int clusters, int hostsPerCluster, boolean install, String prefix,
        String transport, Duration timeout, Duration reportEvery) {
      this(url, userToken, clusters, hostsPerCluster, install, prefix, transport, timeout, reportEvery, Duration.ZERO);
    }

    public Config(String url, String userToken, int clusters, int hostsPerCluster, boolean install, String prefix,
        String transport, Duration timeout, Duration reportEvery, Duration hold) {
      this(url, userToken, clusters, hostsPerCluster, install, prefix, transport, timeout, reportEvery, hold,
          Duration.ZERO);
    }

    public Config {
      if (hold.isNegative()) {
        throw new IllegalArgumentException("hold-seconds must be 0 or more, got " + hold.toSeconds());
      }
      if (bootSpread.isNegative()) {
        throw new IllegalArgumentException("boot-spread-seconds must be 0 or more, got " + bootSpread.toSeconds());
      }
      if (clusters < 1) {
        throw new IllegalArgumentException("clusters must be at least 1, got " + clusters);
      }
      // upstream's shapes: one node, three masters, or three masters and at least two workers (one worker is refused)
      if (hostsPerCluster < 1 || hostsPerCluster == 2 || hostsPerCluster == 4) {
        throw new IllegalArgumentException("hosts-per-cluster must be 1 (single node), 3 (three masters) or 5 and more"
            + " (three masters, the rest workers), got " + hostsPerCluster);
      }
      if (!prefix.matches("[a-z][-a-z0-9]{0,30}")) {
        throw new IllegalArgumentException("prefix must be lower-case letters, digits and '-', got '" + prefix + "'");
      }
    }
  }

  /** How it went: when each milestone was reached (seconds from the start, -1 if not), and the final counts. */
  public record Report(double allRegisteredSeconds, double allReadySeconds, double allDoneSeconds,
      Map<String, Integer> clustersByStatus, List<String> clusterIds, List<Double> installSeconds,
      Map<String, Integer> clustersAfterHold) {
    public boolean allInstalled() {
      return clustersByStatus.getOrDefault("installed", 0) == clusterIds.size();
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String PULL_SECRET = "{\"auths\":{\"cloud.openshift.com\":{\"auth\":\"ZHJ5OnJ1bg==\",\"email\":\"dry@run\"}}}";
  private final Config config;
  private HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
  private final PrintStream out;
  /** Agents trust only what their discovery Ignition gives them: the service's CA, kept here one file per infra-env. */
  private java.nio.file.Path caDir;

  public FleetSwarm(Config config, PrintStream out) {
    this.config = config;
    this.out = out;
  }

  /** 0: as many processes as this machine's open-file limit needs (one when it is enough). */
  private int processes;

  /** The agents run in {@code n} worker processes ({@link SwarmProcesses}), or in this one when {@code n} is 1. */
  public FleetSwarm processes(int n) {
    this.processes = n;
    return this;
  }

  /**
   * The swarm's own calls to the API (as a user) trust this CA as well as the JVM's roots, as {@code curl --cacert}
   * would; the agents still take theirs from their Ignition only.
   */
  public FleetSwarm trusting(java.nio.file.Path caPem) {
    this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10))
        .sslContext(dev.rendezvous.controller.service.HttpClients.sslContext(
            new dev.rendezvous.controller.service.HttpClients.Tls(false, java.util.Optional.of(caPem))))
        .build();
    return this;
  }

  public Report run(Vertx vertx) throws IOException, InterruptedException {
    long t0 = System.nanoTime();
    List<AgentSwarm> swarms = new ArrayList<>();
    dev.rendezvous.agent.AgentRuntime shared = null; // one for every site run in this process
    long limit = SwarmProcesses.openFilesLimit();
    int n = processes > 0 ? processes : SwarmProcesses.needed(config.clusters(), config.hostsPerCluster(), limit);
    SwarmProcesses workers = n > 1 ? SwarmProcesses.start(n) : null;
    if (workers != null) {
      out.printf("fleet: the agents run in %d processes (%s)%n", n, processes > 0 ? "--processes"
          : "an open-file limit of " + limit + " per process");
    }
    java.util.concurrent.ExecutorService creators = java.util.concurrent.Executors.newFixedThreadPool(CREATORS);
    // the follower starts with the first cluster, as a fleet's sites are installed as they turn ready: waiting for the
    // whole fleet to be created first left 10,000 sites ready for minutes, their periodic checks costing all along
    java.util.concurrent.ExecutorService follower = java.util.concurrent.Executors.newSingleThreadExecutor();
    Creation creation = new Creation();
    try {
      java.util.concurrent.Future<Report> following = follower.submit(() -> follow(t0, creation));
      // created CREATORS at a time (a fleet's clusters come from many hands), launched here one by one as they come
      java.util.concurrent.CompletionService<String[]> created =
          new java.util.concurrent.ExecutorCompletionService<>(creators);
      int submitted = 0;
      for (int done = 0; done < config.clusters(); done++) {
        while (submitted < config.clusters() && submitted - done < CREATORS) {
          String name = config.prefix() + "-" + submitted++;
          created.submit(() -> {
            String id = createCluster(name);
            String[] infraEnv = createInfraEnv(name + "-ie", id);
            return new String[] {id, infraEnv[0], infraEnv[1], infraEnv[2]};
          });
        }
        String[] c = take(created, following);
        String clusterId = c[0];
        String[] ie = {c[1], c[2], c[3]};
        creation.add(clusterId);
        List<String> args = new ArrayList<>(List.of("--url", config.url(), "--infra-env-id", ie[0], "--dry-run",
            "--swarm", Integer.toString(config.hostsPerCluster())));
        if (ie[2] != null) {
          args.addAll(List.of("--cacert", ie[2]));
        }
        if (config.transport() != null) {
          args.addAll(List.of("--transport", config.transport()));
        }
        if (workers != null) {
          workers.launch(args, ie[1], config.hostsPerCluster(), config.bootSpread());
          continue;
        }
        AgentConfig agents = AgentConfig.parse(args.toArray(String[]::new), Map.of("RDV_AGENT_TOKEN", ie[1]));
        if (shared == null) {
          shared = dev.rendezvous.agent.AgentRuntime.create(vertx, agents, config.clusters() * config.hostsPerCluster());
        }
        swarms.add(AgentSwarm.start(vertx, shared, agents, config.hostsPerCluster(), config.bootSpread()));
      }
      creation.finish();
      out.printf("fleet: %d clusters x %d hosts created at %s (%.1f s)%n", config.clusters(), config.hostsPerCluster(),
          config.url(), seconds(t0));
      Report r = outcome(following);
      return config.hold().isZero() ? r : hold(t0, r);
    } finally {
      creators.shutdownNow();
      follower.shutdownNow();
      for (AgentSwarm s : swarms) {
        s.stop().toCompletionStage().toCompletableFuture().join();
      }
      if (shared != null) {
        shared.close().toCompletionStage().toCompletableFuture().join();
      }
      if (workers != null) {
        workers.close();
      }
    }
  }

  /**
   * The clusters created so far, shared by the creating thread and the follower: the follower counts only these, and
   * its deadline starts once all are created (creating 10,000 took 5 to 6 minutes). Only the creating thread adds.
   */
  private static final class Creation {
    private final Set<String> ids = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final List<String> inOrder = new ArrayList<>(); // the creating thread's, published by finish()
    private volatile List<String> all; // in creation order, once every cluster is created
    private volatile long finishedNanos;

    void add(String id) {
      ids.add(id);
      inOrder.add(id);
    }

    void finish() {
      finishedNanos = System.nanoTime();
      all = List.copyOf(inOrder);
    }

    boolean ours(String id) {
      return ids.contains(id);
    }

    int created() {
      return ids.size();
    }

    /** Null while clusters are still being created. */
    List<String> all() {
      return all;
    }
  }

  /** The follower's report, or what stopped it (an install refused, the service's answer). */
  private static Report outcome(java.util.concurrent.Future<Report> following) throws IOException, InterruptedException {
    try {
      return following.get();
    } catch (java.util.concurrent.ExecutionException e) {
      throw rethrown(e);
    }
  }

  private static IOException rethrown(java.util.concurrent.ExecutionException e) throws InterruptedException {
    if (e.getCause() instanceof IOException io) {
      return io;
    }
    if (e.getCause() instanceof InterruptedException ie) {
      throw ie;
    }
    throw new IllegalStateException(e.getCause());
  }

  /**
   * A created cluster, or what went wrong creating it (the service's answer, as {@link #send} throws it), or what
   * stopped the follower meanwhile.
   */
  private static String[] take(java.util.concurrent.CompletionService<String[]> created,
      java.util.concurrent.Future<Report> following) throws IOException, InterruptedException {
    while (true) {
      java.util.concurrent.Future<String[]> next = created.poll(1, java.util.concurrent.TimeUnit.SECONDS);
      if (next == null) {
        if (following.isDone()) {
          outcome(following); // throws what stopped it
          throw new IllegalStateException("the follower ended before every cluster was created");
        }
        continue;
      }
      try {
        return next.get();
      } catch (java.util.concurrent.ExecutionException e) {
        throw rethrown(e);
      }
    }
  }

  private Report follow(long t0, Creation creation) throws IOException, InterruptedException {
    Set<String> installRequested = java.util.concurrent.ConcurrentHashMap.newKeySet();
    Map<String, Long> installStarted = new java.util.concurrent.ConcurrentHashMap<>();
    // install requests go out beside the progress lines, INSTALLS_IN_FLIGHT at a time (the first pass of a big fleet
    // finds thousands ready: asked in the loop, no line was printed for minutes)
    java.util.concurrent.ExecutorService installers = java.util.concurrent.Executors.newFixedThreadPool(
        INSTALLS_IN_FLIGHT);
    List<IOException> installFailures = new java.util.concurrent.CopyOnWriteArrayList<>();
    Map<String, Double> installTook = new LinkedHashMap<>();
    double registered = -1;
    double ready = -1;
    double done = -1;
    long deadline = Long.MAX_VALUE; // set once every cluster is created
    long nextReport = 0;
    Map<String, Integer> clusters = new TreeMap<>();
    Set<String> inError = new HashSet<>(); // of the last list
    try {
      while (System.nanoTime() < deadline) {
        // read before the list: every cluster the list could miss was created after it
        List<String> all = creation.all();
        if (all != null && deadline == Long.MAX_VALUE) {
          deadline = creation.finishedNanos + config.timeout().toNanos();
        }
        clusters.clear();
        Map<String, Integer> hosts = new TreeMap<>();
        List<String> toInstall = new ArrayList<>();
        int hostCount = 0;
        int readyOrBeyond = 0;
        // counts, not hosts: with_hosts=true carries every host's inventory and connectivity (for one 1,000-host
        // cluster hundreds of MB per poll), which loaded the service more than the agents did
        List<Listed> listed;
        long listStart = System.nanoTime();
        try {
          listed = send(HttpRequest.newBuilder(api("/clusters")).GET(), FleetSwarm::readListing);
        } catch (java.net.http.HttpTimeoutException e) {
          out.printf("t=%6.1f s  the cluster list took over %d s; asking again%n", seconds(t0), REQUEST_TIMEOUT.toSeconds());
          continue; // a busy service is no reason to stop the agents
        } catch (Refused e) {
          if (e.status < 500) {
            throw e;
          }
          // the service's own failure, said on the line (and in its log): the agents go on, the list is asked again
          out.printf("t=%6.1f s  %s; asking again%n", seconds(t0), e.getMessage());
          Thread.sleep(1000);
          continue;
        }
        inError.clear();
        for (Listed c : listed) {
          String id = c.id();
          if (!creation.ours(id)) {
            continue;
          }
          String status = c.status();
          clusters.merge(status, 1, Integer::sum);
          if (status.equals("error")) {
            inError.add(id);
          }
          int total = c.totalHosts();
          int known = c.readyHosts();
          hosts.merge("registered", total, Integer::sum);
          hosts.merge("known", known, Integer::sum);
          hostCount += total;
          if (!Set.of("insufficient", "pending-for-input", "adding-hosts").contains(status)) {
            readyOrBeyond++;
          }
          if (config.install() && status.equals("ready") && installRequested.add(id)) {
            toInstall.add(id);
          }
          if ((status.equals("installed") || status.equals("error")) && installStarted.containsKey(id)
              && !installTook.containsKey(id)) {
            installTook.put(id, (System.nanoTime() - installStarted.get(id)) / 1e9);
          }
        }
        for (String id : toInstall) {
          installers.submit(() -> install(id, installRequested, installStarted, installFailures, t0));
        }
        if (!installFailures.isEmpty()) {
          throw installFailures.get(0);
        }
        if (registered < 0 && hostCount == config.clusters() * config.hostsPerCluster()) {
          registered = seconds(t0);
        }
        if (ready < 0 && readyOrBeyond == config.clusters()) {
          ready = seconds(t0);
        }
        int finished = config.install() ? clusters.getOrDefault("installed", 0) + clusters.getOrDefault("error", 0)
            : clusters.getOrDefault("ready", 0);
        boolean over = all != null && finished == config.clusters();
        if (System.nanoTime() >= nextReport || over) {
          String creating = all != null ? "" : String.format("created %,d of %,d  ", creation.created(), config.clusters());
          out.printf("t=%6.1f s  %sclusters %s  hosts %s%s%n", seconds(t0), creating, clusters, hosts, serviceCounts());
          nextReport = System.nanoTime() + config.reportEvery().toNanos();
        }
        if (over) {
          done = seconds(t0);
          break;
        }
        // a list costs the service (and this process) in proportion to the fleet: 10,000 clusters are ~75 MB, and
        // listing again at once kept both busy with little news; so the pause grows with what the list took, and the
        // list takes at most a fifth of the time (at 2 times, a list read faster was only asked more often). A site
        // found ready waits up to a second more for its install request. At most 30 s: a list of 10,000 clusters on
        // a saturated machine took ~20 s, and the progress lines came 100 s apart.
        Thread.sleep(Math.max(1000, Math.min(30_000, 4 * (System.nanoTime() - listStart) / 1_000_000)));
      }
    } finally {
      installers.shutdownNow();
    }
    List<Double> took = new ArrayList<>(installTook.values());
    took.sort(Double::compare);
    // set: the loop ends once every cluster is created (done, or the deadline that starts then)
    Report r = new Report(registered, ready, done, Map.copyOf(clusters), creation.all(), List.copyOf(took),
        Map.copyOf(clusters));
    out.printf("fleet: all hosts registered %s, all clusters ready %s, %s %s%n", at(registered), at(ready),
        config.install() ? "all installed or failed" : "all ready", at(done));
    if (!took.isEmpty()) {
      out.printf("fleet: install duration per cluster p50 %.1f s, max %.1f s (%d clusters)%n",
          took.get(took.size() / 2), took.get(took.size() - 1), took.size());
    }
    if (!inError.isEmpty()) {
      out.println(SwarmFailures.summary(failedHosts(inError)));
    }
    return r;
  }

  /**
   * The hosts of the clusters that ended in {@code error}, with their reasons (the list says only "cluster has hosts
   * in error"): one read per such cluster, once, at the end. A read that fails leaves that cluster without hosts.
   */
  private Map<String, List<SwarmFailures.FailedHost>> failedHosts(Set<String> ids) throws InterruptedException {
    Map<String, List<SwarmFailures.FailedHost>> failed = new TreeMap<>();
    for (String id : ids) {
      List<SwarmFailures.FailedHost> hosts = new ArrayList<>();
      try {
        for (JsonNode h : get("/clusters/" + id + "/hosts")) {
          hosts.add(new SwarmFailures.FailedHost(h.path("status").asText(""), h.path("status_info").asText("")));
        }
      } catch (IOException e) {
        hosts.add(new SwarmFailures.FailedHost("error", "its hosts could not be read: " + e.getMessage()));
      }
      failed.put(id, hosts);
    }
    return failed;
  }

  /** Install requests in flight at once: one after the other, 6,000 sites turning ready took ten minutes a pass. */
  static final int INSTALLS_IN_FLIGHT = 16;

  /**
   * Asks a cluster that turned ready to install; records when (in {@code started}), or forgets it (in
   * {@code requested}) when it was no longer ready by then, to ask again once it is.
   */
  private void install(String id, Set<String> requested, Map<String, Long> started, List<IOException> failures,
      long t0) {
    long at = System.nanoTime();
    try {
      post("/clusters/" + id + "/actions/install", null);
      started.put(id, at);
    } catch (java.net.http.HttpTimeoutException e) {
      // the answer is the whole cluster with its hosts (upstream's): big for a big cluster; the request stands
      out.printf("t=%6.1f s  %s: the install answer took over %d s%n", seconds(t0), id, REQUEST_TIMEOUT.toSeconds());
      started.put(id, at);
    } catch (Refused r) {
      if (r.status != 409) {
        failures.add(r);
        return;
      }
      // no longer ready between the list and the request (a host went away; across an upgrade, a rule new in the
      // replacement waiting on its hosts' next answers): wait for ready again, as a controller requeues
      out.printf("t=%6.1f s  %s: install refused, the cluster is no longer ready; waiting for it again%n",
          seconds(t0), id);
      requested.remove(id);
    } catch (IOException e) {
      failures.add(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // the swarm is stopping
    }
  }

  /**
   * Keeps the agents connected once the goal is reached (an idle fleet: they answer each plan the service pushes
   * again, every minute or so), reports the clusters as it goes, and says whether any left the status it had.
   */
  private Report hold(long t0, Report r) throws IOException, InterruptedException {
    Set<String> ours = new HashSet<>(r.clusterIds());
    long end = System.nanoTime() + config.hold().toNanos();
    out.printf("fleet: holding the agents connected for %d s%n", config.hold().toSeconds());
    Map<String, Integer> clusters = new TreeMap<>();
    while (true) {
      long left = end - System.nanoTime();
      Thread.sleep(Math.max(0, Math.min(left / 1_000_000, config.reportEvery().toMillis())));
      clusters.clear();
      try {
        for (JsonNode c : get("/clusters")) {
          if (ours.contains(c.path("id").asText())) {
            clusters.merge(c.path("status").asText(), 1, Integer::sum);
          }
        }
      } catch (java.net.http.HttpTimeoutException e) {
        out.printf("t=%6.1f s  the cluster list took over %d s%n", seconds(t0), REQUEST_TIMEOUT.toSeconds());
        continue;
      }
      out.printf("t=%6.1f s  held: clusters %s%n", seconds(t0), clusters);
      if (System.nanoTime() >= end) {
        break;
      }
    }
    out.printf("fleet: after %d s held, clusters %s (%s)%n", config.hold().toSeconds(), clusters,
        clusters.equals(r.clustersByStatus()) ? "as they were" : "were " + r.clustersByStatus());
    return new Report(r.allRegisteredSeconds(), r.allReadySeconds(), r.allDoneSeconds(), r.clustersByStatus(),
        r.clusterIds(), r.installSeconds(), Map.copyOf(clusters));
  }

  private static String at(double s) {
    return s < 0 ? "not reached" : String.format("at %.1f s", s);
  }

  private String createCluster(String name) throws IOException, InterruptedException {
    ObjectNode c = JSON.createObjectNode().put("name", name).put("openshift_version", "4.18")
        .put("base_dns_domain", "example.com").put("pull_secret", PULL_SECRET);
    if (config.hostsPerCluster() == 1) {
      c.put("high_availability_mode", "None");
    } else {
      // dry-run hosts live in 10.200.0.0/16 from .10 up; the VIPs sit at the top of that network
      c.putArray("api_vips").addObject().put("ip", "10.200.255.1");
      c.putArray("ingress_vips").addObject().put("ip", "10.200.255.2");
    }
    if (config.hostsPerCluster() > 512) {
      // the default cluster network (10.128.0.0/14, a /23 per host) holds 512 hosts; upstream refuses more
      c.putArray("cluster_networks").addObject().put("cidr", "10.128.0.0/14").put("host_prefix", 24);
    }
    return post("/clusters", c).path("id").asText();
  }

  /**
   * Its id, the agent token its discovery image carries and the file of the service's CA it carries (null: none):
   * read, as a booted host would find them, from the {@code agent.env} file and the CA file of the infra-env's
   * discovery Ignition.
   */
  private synchronized java.nio.file.Path caDir() throws IOException {
    if (caDir == null) {
      caDir = java.nio.file.Files.createTempDirectory("rdv-swarm-ca-");
      caDir.toFile().deleteOnExit();
    }
    return caDir;
  }

  private String[] createInfraEnv(String name, String clusterId) throws IOException, InterruptedException {
    JsonNode ie = post("/infra-envs", JSON.createObjectNode().put("name", name).put("cluster_id", clusterId)
        .put("pull_secret", PULL_SECRET));
    String id = ie.path("id").asText();
    JsonNode ignition = getAgain("/infra-envs/" + id + "/downloads/files?file_name=discovery.ign");
    String token = null;
    String ca = null;
    for (JsonNode f : ignition.path("storage").path("files")) {
      String path = f.path("path").asText();
      if (path.equals("/etc/rendezvous/agent.env")) {
        for (String line : contents(f).split("\n")) {
          if (line.startsWith("RDV_AGENT_TOKEN=")) {
            token = line.substring("RDV_AGENT_TOKEN=".length()).strip();
          }
        }
      } else if (path.equals("/etc/assisted-service/service-ca-cert.crt")) {
        java.nio.file.Path file = caDir().resolve(id + ".pem");
        java.nio.file.Files.writeString(file, contents(f));
        file.toFile().deleteOnExit();
        ca = file.toString();
      }
    }
    if (token != null) {
      return new String[] {id, token, ca};
    }
    throw new IOException("infra-env " + id + ": its discovery Ignition carries no RDV_AGENT_TOKEN in agent.env");
  }

  /** An Ignition file's contents ({@code data:} URL, base64 or percent-escaped). */
  private static String contents(JsonNode file) {
    String source = file.path("contents").path("source").asText();
    String data = source.substring(source.indexOf(',') + 1);
    return source.substring(0, source.indexOf(',')).endsWith(";base64")
        ? new String(java.util.Base64.getDecoder().decode(data), StandardCharsets.UTF_8)
        : java.net.URLDecoder.decode(data.replace("+", "%2B"), StandardCharsets.UTF_8);
  }

  /**
   * The service's own count of hosts by status and of installing hosts by stage (its fleet gauges on /metrics,
   * refreshed every 15 s, all clusters of the service), so an installation's progress shows where a person looks;
   * empty when the service does not answer it.
   */
  String serviceCounts() {
    try {
      // only the two families it reads (a whole scrape is hundreds; a service without the filter sends them all)
      HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(config.url().replaceAll("/+$", "")
              + "/metrics?name%5B%5D=rdv_hosts&name%5B%5D=rdv_hosts_installing"))
          .timeout(REQUEST_TIMEOUT).GET();
      if (config.userToken() != null) {
        b.header("Authorization", "Bearer " + config.userToken());
      }
      HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 200) {
        return "";
      }
      Map<String, Long> statuses = ServiceGauges.byLabel(r.body(), "rdv_hosts", "status");
      Map<String, Long> stages = ServiceGauges.byLabel(r.body(), "rdv_hosts_installing", "stage");
      return "  service hosts " + statuses + (stages.isEmpty() ? "" : "  stages " + stages);
    } catch (IOException e) {
      return "";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "";
    }
  }

  private JsonNode get(String path) throws IOException, InterruptedException {
    return send(HttpRequest.newBuilder(api(path)).GET());
  }

  /**
   * A read that may be asked again when its answer is late (a saturated machine: the swarm's own event loops were seen
   * blocked for 4 s while 38,000 agents started), instead of ending the whole swarm on one slow answer.
   */
  private JsonNode getAgain(String path) throws IOException, InterruptedException {
    for (int attempt = 1; ; attempt++) {
      try {
        return get(path);
      } catch (java.net.http.HttpTimeoutException e) {
        if (attempt >= 5) {
          throw e;
        }
        out.printf("GET %s took over %d s; asking again%n", path.replaceAll("\\?.*", ""), REQUEST_TIMEOUT.toSeconds());
      }
    }
  }

  private JsonNode post(String path, JsonNode body) throws IOException, InterruptedException {
    HttpRequest.Builder b = HttpRequest.newBuilder(api(path));
    if (body == null) {
      b.POST(HttpRequest.BodyPublishers.noBody());
    } else {
      b.header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body.toString()));
    }
    return send(b);
  }

  private URI api(String path) {
    return URI.create(config.url().replaceAll("/+$", "") + "/api/assisted-install/v2" + path);
  }

  private JsonNode send(HttpRequest.Builder b) throws IOException, InterruptedException {
    return send(b, in -> {
      byte[] body = in.readAllBytes();
      return body.length == 0 ? JSON.createObjectNode() : JSON.readTree(body);
    });
  }

  /** How a successful answer's body is read. */
  @FunctionalInterface
  interface BodyReader<T> {
    T read(InputStream body) throws IOException;
  }

  /** A cluster of the list, as far as the swarm follows it. */
  record Listed(String id, String status, int totalHosts, int readyHosts) {}

  /**
   * The cluster list's fields the swarm follows, read as the answer streams in: 10,000 clusters are ~75 MB, and
   * building the whole tree of each list (then dropping all but four fields) was a fifth of the swarm's CPU.
   */
  static List<Listed> readListing(InputStream body) throws IOException {
    try (JsonParser p = JSON.getFactory().createParser(body)) {
      if (p.nextToken() != JsonToken.START_ARRAY) {
        throw new IOException("the cluster list is not a JSON array");
      }
      List<Listed> listed = new ArrayList<>();
      while (p.nextToken() == JsonToken.START_OBJECT) {
        String id = "";
        String status = "";
        int total = 0;
        int ready = 0;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String field = p.currentName();
          p.nextToken();
          switch (field) {
            case "id" -> id = p.getValueAsString("");
            case "status" -> status = p.getValueAsString("");
            case "total_host_count" -> total = p.getValueAsInt();
            case "ready_host_count" -> ready = p.getValueAsInt();
            default -> p.skipChildren(); // nested documents (hosts, networks) say "status" and "id" too
          }
        }
        listed.add(new Listed(id, status, total, ready));
      }
      return listed;
    }
  }

  private <T> T send(HttpRequest.Builder b, BodyReader<T> reader) throws IOException, InterruptedException {
    if (config.userToken() != null) {
      b.header("Authorization", "Bearer " + config.userToken());
    }
    HttpRequest req = b.timeout(REQUEST_TIMEOUT).build();
    for (int attempt = 1; ; attempt++) {
      try {
        HttpResponse<InputStream> r = http.send(req, HttpResponse.BodyHandlers.ofInputStream());
        try (InputStream body = r.body()) {
          if (r.statusCode() == 503 && attempt < 10) { // the service asks to come back (database restarting, bus busy)
            Thread.sleep(1000L * r.headers().firstValue("Retry-After").map(Long::parseLong).orElse(1L));
            continue;
          }
          if (r.statusCode() >= 300) {
            throw new Refused(r.statusCode(), req.method() + " " + req.uri().getPath() + " answered " + r.statusCode()
                + ": " + new String(body.readAllBytes(), StandardCharsets.UTF_8));
          }
          return reader.read(body);
        }
      } catch (Refused | java.net.http.HttpTimeoutException e) {
        throw e; // the callers decide (a busy service)
      } catch (IOException e) {
        // the instance restarting (an upgrade, a crash), also while its answer streamed in: come back for a minute, as
        // its agents do
        if (attempt >= 60) {
          throw e;
        }
        if (attempt == 1) {
          out.printf("%s %s: %s; trying again for a minute%n", req.method(), req.uri().getPath(), e.getMessage());
        }
        Thread.sleep(1000);
      }
    }
  }

  private static double seconds(long t0) {
    return (System.nanoTime() - t0) / 1e9;
  }

  /** The service answered, and not with success. */
  static final class Refused extends IOException {
    final int status;

    Refused(int status, String message) {
      super(message);
      this.status = status;
    }
  }
}
