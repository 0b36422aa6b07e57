package dev.rendezvous.agent.fleet;

import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * {@code ./rendezvous swarm --clusters=N --hosts-per-cluster=M [--install] [--url=...]}: drives a fleet of dry-run
 * clusters through a running Rendezvous (see {@link FleetSwarm}). Exit 0 when every cluster got where it was sent.
 */
public final class FleetSwarmMain {
  private FleetSwarmMain() {}

  public static void main(String[] argv) throws Exception {
    Map<String, String> f = new HashMap<>();
    for (String a : argv) {
      if (!a.startsWith("--")) {
        usage("unexpected argument '" + a + "'");
      }
      int eq = a.indexOf('=');
      f.put(eq < 0 ? a.substring(2) : a.substring(2, eq), eq < 0 ? "true" : a.substring(eq + 1));
    }
    for (String k : f.keySet()) {
      if (!java.util.Set.of("url", "token-file", "data-dir", "clusters", "hosts-per-cluster", "install", "prefix", "transport",
          "timeout-seconds", "hold-seconds", "boot-spread-seconds", "cacert", "processes", "help").contains(k)) {
        usage("unknown flag --" + k);
      }
    }
    if (f.containsKey("help")) {
      usage(null);
    }
    String token = System.getenv("RDV_USER_TOKEN");
    // the token `./rendezvous run` wrote in its data dir (--data-dir as given to run)
    Path dataDir = Path.of(f.getOrDefault("data-dir", "data"));
    Path tokenFile = f.containsKey("token-file") ? Path.of(f.get("token-file")) : dataDir.resolve("admin-token");
    if (token == null && Files.exists(tokenFile)) {
      token = Files.readString(tokenFile).strip();
    }
    FleetSwarm.Config config;
    try {
      config = new FleetSwarm.Config(f.getOrDefault("url", "http://127.0.0.1:8090"), token,
          Integer.parseInt(f.getOrDefault("clusters", "3")), Integer.parseInt(f.getOrDefault("hosts-per-cluster", "3")),
          Boolean.parseBoolean(f.getOrDefault("install", "false")), f.getOrDefault("prefix", "swarm"),
          f.get("transport"), Duration.ofSeconds(Long.parseLong(f.getOrDefault("timeout-seconds", "1800"))),
          Duration.ofSeconds(5), Duration.ofSeconds(Long.parseLong(f.getOrDefault("hold-seconds", "0"))),
          Duration.ofMillis((long) (1000 * Double.parseDouble(f.getOrDefault("boot-spread-seconds", "0")))));
    } catch (IllegalArgumentException e) {
      usage(e.getMessage());
      return;
    }
    quietAgents();
    Vertx vertx = Vertx.vertx();
    FleetSwarm.Report report;
    try {
      FleetSwarm swarm = new FleetSwarm(config, System.out);
      if (f.containsKey("processes")) {
        int n;
        try {
          n = Integer.parseInt(f.get("processes"));
        } catch (NumberFormatException e) {
          n = 0;
        }
        if (n < 1) {
          usage("--processes must be a number, 1 or more, got '" + f.get("processes") + "'");
        }
        swarm.processes(n);
      }
      // the swarm's user calls trust the service's CA (--cacert, or the one a local --tls=auto made); the agents
      // take theirs from their discovery Ignition, as booted hosts do
      Path ca = f.containsKey("cacert") ? Path.of(f.get("cacert")) : dataDir.resolve("tls/ca.pem");
      if (config.url().startsWith("https://") && Files.exists(ca)) {
        swarm.trusting(ca);
      } else if (f.containsKey("cacert")) {
        usage("--cacert " + ca + ": no such file, or the url is not https");
      }
      report = swarm.run(vertx);
    } catch (FleetApi.Refused e) {
      // the service said no (a missing or wrong token, a bad flag's value): its answer, not a stack trace
      System.err.println("swarm: " + e.getMessage() + (e.status == 401 ? "\n  the user token comes from "
          + tokenFile + " (./rendezvous run writes it in its --data-dir; give the same --data-dir here),"
          + " --token-file or RDV_USER_TOKEN" : ""));
      System.exit(2);
      return;
    } catch (java.io.IOException e) {
      // the service out of reach for as long as the calls retry: say where, not a stack trace
      System.err.println("swarm: no answer from " + config.url() + " (" + e + ")");
      System.exit(2);
      return;
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().join();
    }
    boolean ok = (config.install() ? report.allInstalled()
        : report.clustersByStatus().getOrDefault("ready", 0) == config.clusters())
        && report.clustersAfterHold().equals(report.clustersByStatus());
    System.exit(ok ? 0 : 1);
  }

  /** Thousands of agents (and their controllers) in one process: their chatter would drown the progress lines. */
  static void quietAgents() {
    for (String logger : new String[] {"dev.rendezvous.agent", "dev.rendezvous.controller"}) {
      ((ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(logger)).setLevel(ch.qos.logback.classic.Level.ERROR);
    }
    // but what goes wrong in a dry-run installation (a refused report, a failed stage) is worth seeing
    ((ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger("dev.rendezvous.agent.installer"))
        .setLevel(ch.qos.logback.classic.Level.WARN);
  }

  private static void usage(String problem) {
    if (problem != null) {
      System.err.println("swarm: " + problem);
    }
    System.err.println("""
        usage: ./rendezvous swarm [--clusters=3] [--hosts-per-cluster=3 (1, 3 or 5+)] [--install] [--url=http://127.0.0.1:8090]
                                  [--data-dir=data (run's, for its token and CA) | --token-file=F | RDV_USER_TOKEN]
                                  [--prefix=swarm] [--transport=ws|poll]
                                  [--timeout-seconds=1800] [--hold-seconds=0] [--boot-spread-seconds=0]
                                  [--cacert=data/tls/ca.pem (an https url's CA, for the swarm's own API calls)]
                                  [--processes=N (default: as many as this machine's open-file limit needs)]
          creates the clusters and their infra-envs through the user API, runs that many dry-run agents per cluster
          in this process, installs each cluster once ready (with --install), and prints progress; with
          --hold-seconds keeps the agents connected that long afterwards (an idle fleet) and fails if a cluster
          leaves its status meanwhile; with --boot-spread-seconds each cluster's hosts boot one after the other
          over that many seconds instead of all at once""");
    System.exit(problem == null ? 0 : 2);
  }
}
