package dev.rendezvous.observability.grafana;

import io.vertx.sqlclient.Pool;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Dashboards in one step ({@code ./rendezvous observability}): the read-only database role Grafana's PostgreSQL data
 * source uses (SELECT on the {@code rdv_grafana_events} view, nothing else, read-only transactions), Grafana
 * provisioning (data sources + dashboard provider), the dashboards, and a Prometheus scrape configuration for the
 * given Rendezvous instances.
 */
public final class GrafanaProvisioning {
  public static final List<String> DASHBOARDS = List.of("fleet-overview.json", "install-events.json");

  /** What to write; every address as Grafana and Prometheus will see it. */
  public record Options(Path out, String prometheusUrl, List<String> scrapeTargets, String scrapeInterval, String role,
      String password, String databaseHost, String databaseName, boolean scrapeHttps, Path scrapeCa) {}

  private GrafanaProvisioning() {}

  /** The role: created if missing, given this password, SELECT on the view only, read-only by default. */
  public static void ensureRole(Pool pool, Options o) throws Exception {
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
  public static List<Path> write(Options o) throws IOException {
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
      try (InputStream in = GrafanaProvisioning.class.getResourceAsStream("/grafana/dashboards/" + d)) {
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
