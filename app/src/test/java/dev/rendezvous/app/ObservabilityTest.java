package dev.rendezvous.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.rendezvous.agent.fleet.FleetSwarm;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 12's proof, on real parts: the provisioning `./rendezvous observability` writes is checked by promtool; a
 * real Prometheus (Debian's package) scrapes a real Rendezvous while dry-run clusters are discovered and installed;
 * every PromQL expression of every panel of the fleet dashboard then answers at least one series of plausible
 * values; every SQL query of the events dashboard runs as the read-only role (which can read nothing else). And the
 * fleet page, open in headless Chromium during the installs, shows the states and new events without a reload.
 */
@ExtendWith(NetnsExclusive.Shared.class)
class ObservabilityTest {
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  @TempDir Path dir;

  @Test
  void dashboardsAnswerFromARealPrometheusAndTheFleetPageFollowsLive() throws Exception {
    for (String tool : List.of("prometheus", "promtool", "chromium")) {
      if (!Files.isExecutable(Path.of("/usr/bin", tool))) {
        fail(tool + " is not installed: run scripts/install-test-tools (Debian packages prometheus, chromium)");
      }
    }
    try (Rendezvous system = TestSystem.start(dir.resolve("data"), Map.of())) {
      int api = system.config().apiPort();
      String token = Files.readString(system.adminTokenFile()).strip();
      int promPort = TestSystem.freePort();
      String dbUrl = system.embeddedPostgres().orElseThrow().connectionUri();
      dev.rendezvous.observability.grafana.GrafanaProvisioning.Options o = ObservabilitySetup.options(List.of("--out=" + dir.resolve("obs"),
          "--prometheus-url=http://127.0.0.1:" + promPort, "--scrape-target=127.0.0.1:" + api, "--scrape-interval=1s"),
          system.config(), new ArrayList<>(), dbUrl);
      dev.rendezvous.observability.grafana.GrafanaProvisioning.ensureRole(system.pool(), o);
      dev.rendezvous.observability.grafana.GrafanaProvisioning.write(o);
      Path promConfig = o.out().resolve("prometheus.yml");
      Process check = new ProcessBuilder("promtool", "check", "config", promConfig.toString()).redirectErrorStream(true).start();
      String checked = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertEquals(0, check.waitFor(), "promtool accepts the generated scrape configuration: " + checked);
      String datasources = Files.readString(o.out().resolve("grafana/provisioning/datasources/rendezvous.yaml"));
      assertTrue(datasources.contains("uid: rdv-prometheus") && datasources.contains("uid: rdv-postgres")
          && datasources.contains("user: rdv_grafana"), datasources);

      Process prometheus = new ProcessBuilder("prometheus", "--config.file=" + promConfig,
          "--storage.tsdb.path=" + dir.resolve("tsdb"), "--web.listen-address=127.0.0.1:" + promPort)
          .redirectErrorStream(true).redirectOutput(dir.resolve("prometheus.log").toFile()).start();
      try {
        Await.until("Prometheus scraping Rendezvous", Duration.ofSeconds(60),
            () -> !query(promPort, "up{job=\"rendezvous\"} == 1").isEmpty());

        // the fleet page is open while clusters are discovered and installed
        Path shot = Path.of("target", "fleet-page.png").toAbsolutePath();
        try (HeadlessChromium page = new HeadlessChromium("http://127.0.0.1:" + api + "/fleet#token=" + token,
            dir.resolve("chromium-profile"))) {
          Await.until("the page following the event stream", Duration.ofSeconds(30),
              () -> evalQuietly(page, "document.getElementById('state').textContent").equals("live"));
          page.eval("window.rdvLoadedOnce = 'yes'"); // gone if the page reloads
          FleetSwarm.Report ha = swarm(api, token, "obs-ha", 1, 3);
          FleetSwarm.Report sno = swarm(api, token, "obs-sno", 1, 1);
          assertTrue(ha.allInstalled() && sno.allInstalled(), "both clusters installed");
          Await.until("both clusters shown installed", Duration.ofSeconds(30), () -> "2".equals(evalQuietly(page,
              "String(document.querySelectorAll('#clusters td.status.installed').length)")));
          Object events = page.eval("document.querySelectorAll('#events div').length");
          assertTrue(((Number) events).intValue() >= 20, "live events on the page: " + events);
          assertEquals("yes", page.eval("window.rdvLoadedOnce"), "no reload happened");
          Object installedCount = page.eval(
              "document.querySelector('#cluster-counts [data-status=installed] b').textContent");
          assertEquals("2", installedCount);
          page.screenshot(shot);
          assertTrue(Files.size(shot) > 10_000, "a screenshot was saved at " + shot);
        }

        // Prometheus has the installs once the counters and the 15 s fleet gauges were scraped
        Await.until("the installs in Prometheus", Duration.ofSeconds(60), () ->
            sum(query(promPort, "sum(rdv_installations_finished_total{result=\"installed\"})")) >= 2
                && sum(query(promPort, "max(rdv_clusters{status=\"installed\"})")) >= 2);
        JsonObject fleet = new JsonObject(Files.readString(o.out().resolve("grafana/dashboards/fleet-overview.json")));
        int expressions = 0;
        List<String> failures = new ArrayList<>();
        for (Object p : fleet.getJsonArray("panels")) {
          JsonObject panel = (JsonObject) p;
          for (Object t : panel.getJsonArray("targets", new JsonArray())) {
            String raw = ((JsonObject) t).getString("expr");
            String expr = raw.replace("$__rate_interval", "5m").replace("$__range", "1h");
            expressions++;
            // a distribution of rare events (an install, a host becoming known) must not vanish from its panel a
            // minute after the last one: asked 5 minutes on, with Grafana's rate window for a 15 s scrape (1m). Step
            // delivery latency is a continuous flow and keeps its own short window.
            if (raw.contains("histogram_quantile") && !panel.getString("title").equals("Step delivery latency p99")) {
              String later = raw.replace("$__rate_interval", "1m").replace("$__range", "1h");
              if (query(promPort, later, java.time.Instant.now().plusSeconds(300)).isEmpty()) {
                failures.add(panel.getString("title") + ": empty 5 minutes after the last observation: " + later);
              }
            }
            JsonArray result = query(promPort, expr);
            if (result.isEmpty()) {
              failures.add(panel.getString("title") + ": no series for " + expr);
              continue;
            }
            for (Object s : result) {
              String v = ((JsonObject) s).getJsonArray("value").getString(1);
              double d = Double.parseDouble(v);
              if (Double.isNaN(d) || Double.isInfinite(d) || d < 0) {
                failures.add(panel.getString("title") + ": implausible " + v + " for " + expr + " " + s);
              }
            }
          }
        }
        assertTrue(failures.isEmpty(), failures.size() + " of " + expressions + " panel queries failed:\n"
            + String.join("\n", failures));
        assertTrue(expressions >= 15, expressions + " expressions");
      } finally {
        prometheus.destroy();
        prometheus.waitFor(10, TimeUnit.SECONDS);
      }

      // the events dashboard's SQL, as Grafana runs it: the read-only role, macros expanded
      String roleUrl = dbUrl.replaceFirst("//[^@]*@", "//" + o.role() + ":" + o.password() + "@");
      Vertx vertx = Vertx.vertx();
      try {
        Pool grafana = dev.rendezvous.service.db.Database.pool(vertx, roleUrl, 1);
        JsonObject events = new JsonObject(Files.readString(o.out().resolve("grafana/dashboards/install-events.json")));
        int queries = 0;
        for (Object p : events.getJsonArray("panels")) {
          JsonObject panel = (JsonObject) p;
          for (Object t : panel.getJsonArray("targets")) {
            String sql = grafanaMacros(((JsonObject) t).getString("rawSql"));
            queries++;
            var rows = grafana.query(sql).execute().await(30, TimeUnit.SECONDS);
            if (!panel.getString("title").contains("errors")) {
              assertTrue(rows.size() > 0, panel.getString("title") + " has rows: " + sql);
            }
          }
        }
        for (Object v : events.getJsonObject("templating").getJsonArray("list")) {
          String q = ((JsonObject) v).getString("query");
          if (q.startsWith("SELECT")) {
            var names = grafana.query(q).execute().await(30, TimeUnit.SECONDS);
            assertTrue(names.size() >= 2, "cluster names for the filter");
          }
        }
        assertEquals(4, queries);
        // and the role can read nothing else, and write nothing
        for (String forbidden : List.of("SELECT * FROM clusters", "SELECT * FROM api_tokens",
            "DELETE FROM events", "CREATE TABLE x (a int)")) {
          try {
            grafana.query(forbidden).execute().await(30, TimeUnit.SECONDS);
            fail("the read-only role ran: " + forbidden);
          } catch (Exception refused) {
            assertTrue(String.valueOf(refused.getMessage()).matches("(?s).*(permission denied|read-only).*"),
                forbidden + ": " + refused.getMessage());
          }
        }
      } finally {
        vertx.close().await(10, TimeUnit.SECONDS);
      }
    }
  }

  private static String grafanaMacros(String sql) {
    return sql.replace("$__timeFilter(event_time)", "event_time BETWEEN now() - interval '1 hour' AND now()")
        .replace("$__timeGroupAlias(event_time, '1m')", "date_trunc('minute', event_time) AS \"time\"")
        .replace("'${cluster:regex}'", "'.*'")
        .replace("${severity:sqlstring}", "'info','warning','error','critical'")
        .replace("${category:sqlstring}", "'user','metrics'");
  }

  private static String evalQuietly(HeadlessChromium page, String js) {
    try {
      return String.valueOf(page.eval(js));
    } catch (Exception e) {
      return "";
    }
  }

  private static FleetSwarm.Report swarm(int api, String token, String prefix, int clusters, int hosts) throws Exception {
    return Swarms.run(api, token, prefix, clusters, hosts, true);
  }

  static JsonArray query(int port, String promql) {
    return query(port, promql, null);
  }

  /** An instant query, evaluated at {@code at} (null: now). */
  private static JsonArray query(int port, String promql, java.time.Instant at) {
    try {
      HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
          + "/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8)
          + (at == null ? "" : "&time=" + at.getEpochSecond()))).timeout(Duration.ofSeconds(10))
          .build(), HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() == 503) {
        return new JsonArray(); // Prometheus answers "Service Unavailable" in plain text until its TSDB is open
      }
      JsonObject body = new JsonObject(r.body());
      if (!"success".equals(body.getString("status"))) {
        throw new IllegalStateException(promql + ": " + body);
      }
      return body.getJsonObject("data").getJsonArray("result");
    } catch (java.io.IOException | InterruptedException e) {
      return new JsonArray();
    }
  }

  private static double sum(JsonArray result) {
    double s = 0;
    for (Object o : result) {
      s += Double.parseDouble(((JsonObject) o).getJsonArray("value").getString(1));
    }
    return s;
  }
}
