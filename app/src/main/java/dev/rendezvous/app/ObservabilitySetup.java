package dev.rendezvous.app;

import io.vertx.sqlclient.Pool;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code ./rendezvous observability}: dashboards in one step. Creates (or re-keys) the read-only database role that
 * Grafana's PostgreSQL data source uses (SELECT on the {@code rdv_grafana_events} view, nothing else, read-only
 * transactions), and writes Grafana provisioning (data sources + dashboard provider), the dashboards, and a Prometheus
 * scrape configuration for the given Rendezvous instances.
 */
final class ObservabilitySetup {
  static final List<String> DASHBOARDS = List.of("fleet-overview.json", "install-events.json");

  /** What to write; every address as Grafana and Prometheus will see it. */
  record Options(Path out, String prometheusUrl, List<String> scrapeTargets, String scrapeInterval, String role,
      String password, String databaseHost, String databaseName, boolean scrapeHttps, Path scrapeCa) {}

  private ObservabilitySetup() {}

  /** Parses this command's own flags; the rest (data dir, database URL) are returned in {@code rest}. */
  static Options options(List<String> args, AppConfig config, List<String> rest, String databaseUrl) {
    Path out = config.dataDir().resolve("observability");
    String prometheus = "http://127.0.0.1:9090";
    List<String> targets = new ArrayList<>();
    String role = "rdv_grafana";
    String password = null;
    String dbHost = null;
    String interval = "15s";
    for (String a : args) {
      String v = a.contains("=") ? a.substring(a.indexOf('=') + 1) : "";
      if (a.startsWith("--out=")) {
        out = Path.of(v);
      } else if (a.startsWith("--prometheus-url=")) {
        prometheus = v;
      } else if (a.startsWith("--scrape-target=")) {
        targets.add(v);
      } else if (a.startsWith("--scrape-interval=")) {
        interval = v;
      } else if (a.startsWith("--grafana-db-role=")) {
        role = v;
      } else if (a.startsWith("--grafana-db-password=")) {
        password = v;
      } else if (a.startsWith("--grafana-db-host=")) {
        dbHost = v;
      } else {
        rest.add(a);
      }
    }
    if (!interval.matches("[1-9][0-9]*(ms|s|m)")) {
      throw new IllegalArgumentException("--scrape-interval must be a Prometheus duration such as 15s, got '" + interval + "'");
    }
    if (!role.matches("[a-z_][a-z0-9_]{0,62}")) {
      throw new IllegalArgumentException("--grafana-db-role must be a plain lower-case SQL name, got '" + role + "'");
    }
    if (password != null && !password.matches("[A-Za-z0-9_.~-]{12,128}")) {
      throw new IllegalArgumentException("--grafana-db-password must be 12-128 of A-Z a-z 0-9 _ . ~ -");
    }
    if (password == null) {
      byte[] b = new byte[18];
      new SecureRandom().nextBytes(b);
      password = HexFormat.of().formatHex(b);
    }
    if (targets.isEmpty()) {
      targets.add("127.0.0.1:" + config.apiPort());
    }
    URI db = URI.create(databaseUrl.replaceFirst("^postgres(ql)?://", "http://"));
    if (dbHost == null) {
      dbHost = db.getHost() + ":" + (db.getPort() < 0 ? 5432 : db.getPort());
    }
    String dbName = db.getPath() == null || db.getPath().length() <= 1 ? "postgres" : db.getPath().substring(1);
    // instances serving TLS are scraped over https, trusting their CA (the one --tls=auto made, or --tls-ca)
    Path scrapeCa = !config.tls().enabled() ? null : config.tls().mode() == dev.rendezvous.tls.TlsConfig.Mode.AUTO
        ? config.tls().dir().resolve("ca.pem") : config.tls().caFile();
    return new Options(out.toAbsolutePath().normalize(), prometheus, List.copyOf(targets), interval, role, password,
        dbHost, dbName, config.tls().enabled(), scrapeCa == null ? null : scrapeCa.toAbsolutePath());
  }

  /** The role: created if missing, given this password, SELECT on the view only, read-only by default. */
  static void ensureRole(Pool pool, Options o) throws Exception {
    String r = o.role();
    List<String> sql = List.of(
        "DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '" + r + "') THEN CREATE ROLE " + r
            + " LOGIN; END IF; END $$",
        "ALTER ROLE " + r + " WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD '" + o.password() + "'",
        "ALTER ROLE " + r + " SET default_transaction_read_only = on",
        "DO $$ BEGIN EXECUTE format('GRANT CONNECT ON DATABASE %I TO " + r + "', current_database()); END $$",
        "GRANT USAGE ON SCHEMA public TO " + r,
        "GRANT SELECT ON rdv_grafana_events TO " + r);
    for (String s : sql) {
      pool.query(s).execute().await(30, TimeUnit.SECONDS);
    }
  }

  /** Writes the provisioning tree; returns the files written. */
  static List<Path> write(Options o) throws IOException {
    Path prov = o.out().resolve("grafana/provisioning");
    Path dashboards = o.out().resolve("grafana/dashboards");
    Files.createDirectories(prov.resolve("datasources"));
    Files.createDirectories(prov.resolve("dashboards"));
    Files.createDirectories(dashboards);
    List<Path> written = new ArrayList<>();
    written.add(write(prov.resolve("datasources/rendezvous.yaml"), """
        # Written by ./rendezvous observability. The PostgreSQL role may read the rdv_grafana_events view only.
        apiVersion: 1
        datasources:
          - name: Rendezvous Prometheus
            uid: rdv-prometheus
            type: prometheus
            access: proxy
            url: %s
            jsonData:
              timeInterval: %s
          - name: Rendezvous events
            uid: rdv-postgres
            type: grafana-postgresql-datasource
            url: %s
            user: %s
            jsonData:
              database: %s
              sslmode: disable
              postgresVersion: 1500
            secureJsonData:
              password: %s
        """.formatted(o.prometheusUrl(), o.scrapeInterval(), o.databaseHost(), o.role(), o.databaseName(), o.password())));
    written.add(write(prov.resolve("dashboards/rendezvous.yaml"), """
        apiVersion: 1
        providers:
          - name: rendezvous
            folder: Rendezvous
            type: file
            allowUiUpdates: true
            options:
              path: %s
        """.formatted(dashboards)));
    for (String d : DASHBOARDS) {
      try (InputStream in = ObservabilitySetup.class.getResourceAsStream("/grafana/dashboards/" + d)) {
        if (in == null) {
          throw new IOException("dashboard resource " + d + " is missing from the build");
        }
        Path target = dashboards.resolve(d);
        Files.write(target, in.readAllBytes());
        written.add(target);
      }
    }
    StringBuilder targets = new StringBuilder();
    for (String t : o.scrapeTargets()) {
      targets.append("          - ").append(t).append('\n');
    }
    written.add(write(o.out().resolve("prometheus.yml"), """
        # Written by ./rendezvous observability: scrape every Rendezvous instance's /metrics.
        global:
          scrape_interval: %s
        scrape_configs:
          - job_name: rendezvous
            metrics_path: /metrics
        %s    static_configs:
              - targets:
        %s""".formatted(o.scrapeInterval(), !o.scrapeHttps() ? ""
            : "    scheme: https\n" + (o.scrapeCa() == null ? "" : "    tls_config:\n      ca_file: " + o.scrapeCa() + "\n"),
            targets.toString().indent(4).stripTrailing() + "\n")));
    return written;
  }

  private static Path write(Path p, String text) throws IOException {
    Files.writeString(p, text, StandardCharsets.UTF_8);
    return p;
  }
}
