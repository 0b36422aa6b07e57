package dev.rendezvous.agent.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import dev.rendezvous.agent.AgentConfig;
import dev.rendezvous.agent.AgentSwarm;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.io.PrintStream;
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

  private final Config config;
  private final PrintStream out;
  private final FleetApi api;

  public FleetSwarm(Config config, PrintStream out) {
    this.config = config;
    this.out = out;
    this.api = new FleetApi(config.url(), config.userToken(), out);
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
    api.trust(caPem);
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
      java.util.concurrent.CompletionService<FleetApi.InfraEnv> created =
          new java.util.concurrent.ExecutorCompletionService<>(creators);
      int submitted = 0;
      for (int done = 0; done < config.clusters(); done++) {
        while (submitted < config.clusters() && submitted - done < CREATORS) {
          String name = config.prefix() + "-" + submitted++;
          created.submit(() -> api.createInfraEnv(name + "-ie", api.createCluster(name, config.hostsPerCluster())));
        }
        FleetApi.InfraEnv ie = take(created, following);
        creation.add(ie.clusterId());
        List<String> args = new ArrayList<>(List.of("--url", config.url(), "--infra-env-id", ie.id(), "--dry-run",
            "--swarm", Integer.toString(config.hostsPerCluster())));
        if (ie.caFile() != null) {
          args.addAll(List.of("--cacert", ie.caFile()));
        }
        if (config.transport() != null) {
          args.addAll(List.of("--transport", config.transport()));
        }
        if (workers != null) {
          workers.launch(args, ie.agentToken(), config.hostsPerCluster(), config.bootSpread());
          continue;
        }
        AgentConfig agents = AgentConfig.parse(args.toArray(String[]::new), Map.of("RDV_AGENT_TOKEN", ie.agentToken()));
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
   * A created cluster's infra-env, or what went wrong creating it (the service's answer, as {@link FleetApi} throws
   * it), or what stopped the follower meanwhile.
   */
  private static FleetApi.InfraEnv take(java.util.concurrent.CompletionService<FleetApi.InfraEnv> created,
      java.util.concurrent.Future<Report> following) throws IOException, InterruptedException {
    while (true) {
      java.util.concurrent.Future<FleetApi.InfraEnv> next = created.poll(1, java.util.concurrent.TimeUnit.SECONDS);
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
        List<FleetApi.Listed> listed;
        long listStart = System.nanoTime();
        try {
          listed = api.clusters();
        } catch (java.net.http.HttpTimeoutException e) {
          out.printf("t=%6.1f s  the cluster list took over %d s; asking again%n", seconds(t0),
              FleetApi.REQUEST_TIMEOUT.toSeconds());
          continue; // a busy service is no reason to stop the agents
        } catch (FleetApi.Refused e) {
          if (e.status < 500) {
            throw e;
          }
          // the service's own failure, said on the line (and in its log): the agents go on, the list is asked again
          out.printf("t=%6.1f s  %s; asking again%n", seconds(t0), e.getMessage());
          Thread.sleep(1000);
          continue;
        }
        inError.clear();
        for (FleetApi.Listed c : listed) {
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
          out.printf("t=%6.1f s  %sclusters %s  hosts %s%s%n", seconds(t0), creating, clusters, hosts,
              api.serviceCounts());
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
        for (JsonNode h : api.get("/clusters/" + id + "/hosts")) {
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
      api.post("/clusters/" + id + "/actions/install", null);
      started.put(id, at);
    } catch (java.net.http.HttpTimeoutException e) {
      // the answer is the whole cluster with its hosts (upstream's): big for a big cluster; the request stands
      out.printf("t=%6.1f s  %s: the install answer took over %d s%n", seconds(t0), id,
          FleetApi.REQUEST_TIMEOUT.toSeconds());
      started.put(id, at);
    } catch (FleetApi.Refused r) {
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
        for (JsonNode c : api.get("/clusters")) {
          if (ours.contains(c.path("id").asText())) {
            clusters.merge(c.path("status").asText(), 1, Integer::sum);
          }
        }
      } catch (java.net.http.HttpTimeoutException e) {
        out.printf("t=%6.1f s  the cluster list took over %d s%n", seconds(t0), FleetApi.REQUEST_TIMEOUT.toSeconds());
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

  private static double seconds(long t0) {
    return (System.nanoTime() - t0) / 1e9;
  }
}
