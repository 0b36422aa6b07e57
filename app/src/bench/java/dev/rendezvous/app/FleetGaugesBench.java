package dev.rendezvous.app;

import dev.rendezvous.service.db.Database;
import dev.rendezvous.service.db.EmbeddedPostgresServer;
import dev.rendezvous.service.db.Migrations;
import dev.rendezvous.observability.metrics.FleetMetrics;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * What one refresh of the fleet gauges ({@link FleetMetrics#COUNTS}, every 15 s) costs the database at fleet size:
 * {@code hosts} rows (default 100,000) in clusters of {@code per-cluster} (default 100), statuses as a fleet mid-way
 * through installing (60 % installed, 20 % installing with a stage, 20 % known), each with a 2 KB inventory, on the
 * durable embedded PostgreSQL. Prints the median and p90 of 30 refreshes on the table as the migrations leave it (the
 * baseline) and, in the same run, with an index on {@code hosts (status)} made for the comparison, with their ratio.
 *
 * <pre>mvn -q -B -o install -DskipTests && mvn -q -B -o -pl app -Pbench test-compile exec:java
 *     -Dbench.main=dev.rendezvous.app.FleetGaugesBench -Dexec.args="100000 100"</pre>
 */
public final class FleetGaugesBench {
  public static void main(String[] args) throws Exception {
    int hosts = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
    int perCluster = args.length > 1 ? Integer.parseInt(args[1]) : 100;
    int clusters = (hosts + perCluster - 1) / perCluster;
    Path dir = Files.createTempDirectory("rdv-gauges-bench");
    Vertx vertx = Vertx.vertx();
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dir.resolve("pg"), true)) {
      Pool pool = Database.pool(vertx, pg.connectionUri(), 8);
      Migrations.apply(pool).await(60, TimeUnit.SECONDS);
      long t0 = System.nanoTime();
      fill(pool, clusters, perCluster);
      pool.query("VACUUM ANALYZE hosts").execute().await(600, TimeUnit.SECONDS);
      pool.query("VACUUM ANALYZE clusters").execute().await(600, TimeUnit.SECONDS);
      String size = pool.query("SELECT pg_size_pretty(pg_total_relation_size('hosts'))").execute()
          .await(60, TimeUnit.SECONDS).iterator().next().getString(0);
      System.out.printf("fleet gauges bench: %,d hosts in %,d clusters, hosts table %s, filled in %.0f s%n", hosts,
          clusters, size, (System.nanoTime() - t0) / 1e9);
      // the table as the migrations leave it (no status index: a status change stays a HOT update), then with a
      // status index made for the comparison and dropped again
      double[] now = time(pool);
      pool.query("CREATE INDEX bench_hosts_status ON hosts (status)").execute().await(600, TimeUnit.SECONDS);
      pool.query("VACUUM ANALYZE hosts").execute().await(600, TimeUnit.SECONDS);
      double[] indexed = time(pool);
      pool.query("DROP INDEX bench_hosts_status").execute().await(60, TimeUnit.SECONDS);
      System.out.printf("  as the migrations leave it (baseline): median %.1f ms, p90 %.1f ms%n", now[0], now[1]);
      System.out.printf("  with an index on hosts (status):       median %.1f ms, p90 %.1f ms  (%.2fx the baseline)%n",
          indexed[0], indexed[1], indexed[0] / now[0]);
      System.out.printf("  per day at one refresh every 15 s: %.1f s of database time%n", now[0] * 5760 / 1000);
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }

  /** Median and p90 of 30 refreshes, after 5 uncounted. */
  private static double[] time(Pool pool) throws Exception {
    double[] ms = new double[30];
    for (int i = -5; i < ms.length; i++) {
      long t = System.nanoTime();
      pool.query(FleetMetrics.COUNTS).execute().await(60, TimeUnit.SECONDS);
      if (i >= 0) {
        ms[i] = (System.nanoTime() - t) / 1e6;
      }
    }
    Arrays.sort(ms);
    return new double[] {ms[ms.length / 2], ms[(int) (ms.length * 0.9)]};
  }

  private static void fill(Pool pool, int clusters, int perCluster) throws Exception {
    OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
    String inventory = "{\"hostname\":\"h\",\"interfaces\":[" + "{\"name\":\"eth0\",\"ipv4_addresses\":[\"10.0.0.1/24\"]},"
        .repeat(30) + "{}],\"filler\":\"" + UUID.randomUUID().toString().repeat(8) + "\"}";
    String[] stages = {"Writing image to disk", "Rebooting", "Joined", "Waiting for control plane"};
    for (int c = 0; c < clusters; c++) {
      UUID cluster = UUID.randomUUID();
      UUID infraEnv = UUID.randomUUID();
      String status = c % 5 < 3 ? "installed" : c % 5 == 3 ? "installing" : "ready";
      pool.preparedQuery("INSERT INTO clusters (id, tenant, name, openshift_version, status, status_info,"
          + " status_updated_at, spec, pull_secret, created_at, updated_at) VALUES ($1, 'bench', 'c', '4.18', $2, '', $3,"
          + " '{}'::jsonb, '{}', $3, $3)").execute(Tuple.of(cluster, status, now)).await(60, TimeUnit.SECONDS);
      pool.preparedQuery("INSERT INTO infra_envs (id, tenant, cluster_id, name, spec, pull_secret, created_at,"
          + " updated_at) VALUES ($1, 'bench', $2, 'ie', '{}'::jsonb, '{}', $3, $3)")
          .execute(Tuple.of(infraEnv, cluster, now)).await(60, TimeUnit.SECONDS);
      List<Tuple> rows = new ArrayList<>();
      for (int h = 0; h < perCluster; h++) {
        String hostStatus = status.equals("installed") ? "installed" : status.equals("installing")
            ? "installing-in-progress" : "known";
        String progress = hostStatus.equals("installing-in-progress")
            ? "{\"current_stage\":\"" + stages[h % stages.length] + "\"}" : "{}";
        rows.add(Tuple.of(UUID.randomUUID(), infraEnv, cluster, hostStatus, now, inventory, progress));
      }
      pool.preparedQuery("INSERT INTO hosts (id, infra_env_id, cluster_id, status, status_info, status_updated_at,"
          + " inventory, progress, registered_at, created_at, updated_at) VALUES ($1, $2, $3, $4, '', $5, $6, $7::jsonb,"
          + " $5, $5, $5)").executeBatch(rows).await(120, TimeUnit.SECONDS);
    }
  }
}
