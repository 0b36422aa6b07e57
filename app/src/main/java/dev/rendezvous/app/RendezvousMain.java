package dev.rendezvous.app;

import dev.rendezvous.service.auth.TokenStore;
import dev.rendezvous.service.db.Database;
import dev.rendezvous.service.db.EmbeddedPostgresServer;
import dev.rendezvous.service.db.Migrations;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Command line: {@code run} starts the system; {@code token create --tenant NAME} issues an API token. */
public final class RendezvousMain {
  private RendezvousMain() {}

  public static void main(String[] argv) {
    // before anything logs: readable lines on a terminal, JSON lines otherwise (RDV_LOG_FORMAT overrides)
    dev.rendezvous.observability.LogFormat.apply();
    List<String> args = new ArrayList<>(Arrays.asList(argv));
    String cmd = args.isEmpty() ? "run" : args.remove(0);
    try {
      switch (cmd) {
        case "run" -> run(AppConfig.from(args, System.getenv()));
        case "token" -> token(args);
        case "agent" -> System.exit(dev.rendezvous.agentbased.cli.AgentCli.run(args,
            System.out, System.err));
        case "observability" -> observability(args);
        case "help", "--help", "-h" -> usage(0);
        default -> {
          System.err.println("unknown command '" + cmd + "'");
          usage(2);
        }
      }
    } catch (IllegalArgumentException e) {
      System.err.println("error: " + e.getMessage());
      System.exit(2);
    } catch (Exception e) {
      Throwable root = e;
      while (root.getCause() != null && root.getMessage() != null && root.getMessage().startsWith(root.getCause().getClass().getName())) {
        root = root.getCause();
      }
      System.err.println("error: " + root.getMessage());
      System.exit(1);
    }
  }

  private static void usage(int code) {
    System.err.println("""
        usage: rendezvous run [--api-port=8090] [--image-port=8080] [--data-dir=./data] [--database-url=postgresql://...]
                              [--kafka-bootstrap=host:9092] [--kafka-partitions=12] [--auth=none] [--public-url=http://host:8090]
                              [--tls=auto | --tls-cert=PEM --tls-key=PEM [--tls-ca=PEM]]   (HTTPS; on for an https public URL)
                              [--kubeconfig=PATH|in-cluster [--kube-namespaces=a,b]]   (custom resources on a hub)
               rendezvous agent create image --dir DIR [--base-iso=PATH]   (one ISO for a disconnected site)
               rendezvous agent wait-for bootstrap-complete|install-complete --dir DIR
               rendezvous token create --tenant NAME [--name LABEL] [--admin] [--data-dir=./data] [--database-url=...]
               rendezvous observability [--out=./data/observability] [--prometheus-url=http://127.0.0.1:9090]
                              [--scrape-target=host:8090 ...] [--scrape-interval=15s] [--grafana-db-host=host:port] [--grafana-db-role=rdv_grafana]
                              [--grafana-db-password=...] [--data-dir=./data] [--database-url=...]
        every flag can also be given as RDV_<FLAG> in the environment (RDV_API_PORT, RDV_DATA_DIR, ...)""");
    System.exit(code);
  }

  private static void run(AppConfig config) throws Exception {
    Rendezvous system = Rendezvous.start(config);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      system.close();
      stopped.countDown();
    }, "rendezvous-shutdown"));
    system.closedByShutdownHook();
    String scheme = config.tls().enabled() ? "https" : "http";
    // a certificate made here names localhost; the operator's names the public URL
    String host = config.tls().mode() == dev.rendezvous.tls.TlsConfig.Mode.FILES
        ? java.net.URI.create(config.service().publicUrl()).getHost() : config.tls().enabled() ? "localhost" : "127.0.0.1";
    String api = scheme + "://" + host + ":" + config.apiPort();
    java.nio.file.Path ca = config.tls().mode() == dev.rendezvous.tls.TlsConfig.Mode.AUTO
        ? config.tls().dir().resolve("ca.pem") : config.tls().caFile();
    String cacert = ca == null ? "" : "--cacert " + ca + " ";
    System.out.printf("""

        Rendezvous is up (started in %.1f s)
          web UI                         %s/
          REST API v2 and agent gateway  %s/api/assisted-install/v2
          image service                  %s://%s:%d
          health, readiness, metrics     %s/health  %s/ready  %s/metrics
          fleet page (live)              %s/fleet
          data directory                 %s
        %s%s%s
        Ctrl-C stops it cleanly.
        %n""", system.startupMillis() / 1000.0, api, api, scheme, host, config.imagePort(), api, api, api, api,
        config.dataDir(),
        !config.tls().enabled() ? "" : "  TLS                            " + (ca == null ? "the operator's certificate ("
            + config.tls().certFile() + ")" : "clients trust " + ca + " (it is in every discovery image)") + "\n",
        config.kube().enabled() ? "  custom resources (kube face)   " + config.kube().kubeconfig() + ", namespaces "
            + (config.kube().namespaces().isEmpty() ? "all" : String.join(",", config.kube().namespaces())) + "\n" : "",
        config.service().authDisabled()
            ? "  auth                           none (RDV_AUTH=none): every request acts as tenant 'default'"
            : "  auth                           Authorization: Bearer <token>; the admin token of tenant 'default' is in\n"
                + "                                 " + system.adminTokenFile() + "\n"
                + "  try                            curl " + cacert + "-H \"Authorization: Bearer $(cat "
                + system.adminTokenFile() + ")\" "
                + api + "/api/assisted-install/v2/clusters");
    stopped.await();
  }

  private static void token(List<String> args) throws Exception {
    if (args.isEmpty() || !args.get(0).equals("create")) {
      usage(2);
    }
    String tenant = null;
    String name = "cli";
    boolean admin = false;
    List<String> rest = new ArrayList<>();
    for (int i = 1; i < args.size(); i++) {
      String a = args.get(i);
      if (a.equals("--tenant") && i + 1 < args.size()) {
        tenant = args.get(++i);
      } else if (a.startsWith("--tenant=")) {
        tenant = a.substring(9);
      } else if (a.equals("--name") && i + 1 < args.size()) {
        name = args.get(++i);
      } else if (a.startsWith("--name=")) {
        name = a.substring(7);
      } else if (a.equals("--admin")) {
        admin = true;
      } else {
        rest.add(a);
      }
    }
    if (tenant == null || !tenant.matches("[a-z0-9][-a-z0-9_.]{0,62}")) {
      throw new IllegalArgumentException("--tenant NAME is required (lower-case letters, digits, '-', '_', '.')");
    }
    AppConfig config = AppConfig.from(rest, System.getenv());
    String tenantName = tenant;
    String label = name;
    boolean isAdmin = admin;
    withDatabase(config, (pool, url) -> {
      String token = new TokenStore(pool).create(tenantName, label, isAdmin).await(30, TimeUnit.SECONDS);
      System.out.println(token);
      System.err.println("token for tenant '" + tenantName + "' created; it is shown only once");
    });
  }

  private static void observability(List<String> args) throws Exception {
    List<String> rest = new ArrayList<>();
    List<String> own = new ArrayList<>();
    for (String a : args) {
      (a.matches("--(out|prometheus-url|scrape-target|scrape-interval|grafana-db-role|grafana-db-password|grafana-db-host)=.*")
          ? own : rest).add(a);
    }
    AppConfig config = AppConfig.from(rest, System.getenv());
    withDatabase(config, (pool, url) -> {
      dev.rendezvous.observability.grafana.GrafanaProvisioning.Options o = ObservabilitySetup.options(own, config,
          new ArrayList<>(), url);
      dev.rendezvous.observability.grafana.GrafanaProvisioning.ensureRole(pool, o);
      List<Path> files = dev.rendezvous.observability.grafana.GrafanaProvisioning.write(o);
      System.out.println("read-only database role '" + o.role() + "' (SELECT on rdv_grafana_events only) is ready");
      files.forEach(f -> System.out.println("wrote " + f));
      System.out.printf("""

          Prometheus:  prometheus --config.file=%s
          Grafana:     GF_PATHS_PROVISIONING=%s grafana-server   (or copy the provisioning folders into yours)
          dashboards:  "Rendezvous: fleet overview" and "Rendezvous: install events", folder Rendezvous
          %n""", o.out().resolve("prometheus.yml"), o.out().resolve("grafana/provisioning"));
    });
  }

  interface DatabaseWork {
    void run(Pool pool, String url) throws Exception;
  }

  /** The configured database (or the embedded one: the running server of this data directory, else started here). */
  private static void withDatabase(AppConfig config, DatabaseWork work) throws Exception {
    EmbeddedPostgresServer started = null;
    String url = config.databaseUrl();
    if (url == null) {
      Path dataDir = config.dataDir().resolve("postgres");
      Integer running = runningPostgresPort(dataDir);
      if (running != null) {
        url = "postgresql://postgres:postgres@127.0.0.1:" + running + "/postgres";
      } else {
        started = EmbeddedPostgresServer.start(dataDir, config.durable());
        url = started.connectionUri();
      }
    }
    Vertx vertx = Vertx.vertx();
    try {
      Pool pool = Database.pool(vertx, url, 1);
      Migrations.apply(pool).await(60, TimeUnit.SECONDS);
      work.run(pool, url);
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
      if (started != null) {
        started.close();
      }
    }
  }

  /** The port of a PostgreSQL already serving this data directory (line 4 of postmaster.pid), if its process lives. */
  static Integer runningPostgresPort(Path dataDir) {
    try {
      List<String> lines = Files.readAllLines(dataDir.resolve("postmaster.pid"));
      long pid = Long.parseLong(lines.get(0).strip());
      if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
        return Integer.parseInt(lines.get(3).strip());
      }
    } catch (Exception e) {
      // no pid file or unreadable: no server running here
    }
    return null;
  }
}
