package dev.rendezvous.observability.metrics;

import dev.rendezvous.bus.BusConsumer;
import dev.rendezvous.bus.ConsumerLag;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fleet's state as gauges, refreshed on a timer, never on a scrape: clusters and hosts by status (one grouped
 * count of each table per period, so scrapes cost nothing whatever the fleet's size; no status index, which would
 * cost every status write its HOT update: at 100,000 hosts a refresh reads the table in about 100 ms, an index would
 * make it 22 ms, see FleetGaugesBench), and each consumer group's lag as the broker has it. Every instance reports the same fleet-wide figures; dashboards take max() across instances.
 * Also the bus consumers' handled/retried/skipped counters and the image server's downloads.
 */
public final class FleetMetrics implements AutoCloseable {
  /** The status values each gauge has a series for, from the start (upstream's strings, as the service defines them). */
  public record Statuses(List<String> clusters, List<String> hosts, List<String> stages) {}

  /** Told about each image download: which artifact, the bytes sent, whether it completed. */
  public interface ImageDownloads {
    void downloaded(String artifact, long bytes, boolean complete);
  }

  private static final Logger LOG = LoggerFactory.getLogger(FleetMetrics.class);
  /** The fleet's counts: clusters and hosts by status, installing hosts by stage (one round trip per refresh). */
  public static final String COUNTS = "SELECT 'c' AS kind, status, count(*) AS n FROM clusters GROUP BY status"
      + " UNION ALL SELECT 'h', status, count(*) FROM hosts GROUP BY status"
      + " UNION ALL SELECT 's', progress->>'current_stage', count(*) FROM hosts WHERE status IN"
      + " ('installing', 'installing-in-progress', 'installing-pending-user-action')"
      + " AND progress->>'current_stage' IS NOT NULL GROUP BY 2";

  private final Vertx vertx;
  private final Pool pool;
  private final MeterRegistry registry;
  private final List<String> groups;
  private final ConsumerLag lag;
  private final Map<String, AtomicLong> clusters = new ConcurrentHashMap<>();
  private final Map<String, AtomicLong> hosts = new ConcurrentHashMap<>();
  private final Map<String, AtomicLong> lags = new ConcurrentHashMap<>();
  private final Map<String, AtomicLong> stages = new ConcurrentHashMap<>();
  private long timer = -1;
  private volatile boolean refreshing;
  /** System.nanoTime of the last counts read, 0 before the first. */
  private volatile long countedAt;

  public FleetMetrics(Vertx vertx, Pool pool, String bootstrap, MeterRegistry registry, List<String> groups,
      Statuses statuses) {
    this.vertx = vertx;
    this.pool = pool;
    this.registry = registry;
    this.groups = List.copyOf(groups);
    this.lag = new ConsumerLag(bootstrap);
    for (String s : statuses.clusters()) {
      AtomicLong v = clusters.computeIfAbsent(s, k -> new AtomicLong());
      Gauge.builder("rdv.clusters", v, AtomicLong::get).tag("status", s)
          .description("Clusters by status (fleet-wide; take max across instances)").register(registry);
    }
    for (String s : statuses.hosts()) {
      AtomicLong v = hosts.computeIfAbsent(s, k -> new AtomicLong());
      Gauge.builder("rdv.hosts", v, AtomicLong::get).tag("status", s)
          .description("Hosts by status (fleet-wide; take max across instances)").register(registry);
    }
    for (String s : statuses.stages()) {
      AtomicLong v = stages.computeIfAbsent(s, k -> new AtomicLong());
      Gauge.builder("rdv.hosts.installing", v, AtomicLong::get).tag("stage", s)
          .description("Hosts being installed, by their current install stage (fleet-wide)").register(registry);
    }
    // the counts are read on a timer: a reader (the swarm's last line, a dashboard beside a fresher panel) can say how old
    Gauge.builder("rdv.fleet.counts.age", this, FleetMetrics::countsAgeSeconds).baseUnit("seconds")
        .description("Seconds since rdv_clusters, rdv_hosts and rdv_hosts_installing were counted (-1: not yet)")
        .register(registry);
    for (String g : this.groups) {
      AtomicLong v = lags.computeIfAbsent(g, k -> new AtomicLong());
      Gauge.builder("rdv.bus.consumer.lag", v, AtomicLong::get).tag("group", g).baseUnit("records")
          .description("Records the consumer group has not committed past").register(registry);
    }
  }

  /** Counters of a bus consumer of this instance. */
  public static void busConsumer(MeterRegistry registry, String group, BusConsumer c) {
    FunctionCounter.builder("rdv.bus.events.handled", c, BusConsumer::handledCount).tag("group", group)
        .description("Bus events handled by this instance").register(registry);
    FunctionCounter.builder("rdv.bus.events.retried", c, BusConsumer::retriedCount).tag("group", group)
        .description("Handler attempts that failed and were retried").register(registry);
    FunctionCounter.builder("rdv.bus.events.skipped", c, BusConsumer::skippedCount).tag("group", group)
        .description("Bus events skipped (undecodable, or failed after all retries)").register(registry);
    FunctionCounter.builder("rdv.bus.records.refused", c, BusConsumer::refusedCount).tag("group", group)
        .description("Bus records a newer build wrote that this instance would not read (rolling upgrade: its lane "
            + "waits for an instance that reads them)").register(registry);
    FunctionCounter.builder("rdv.bus.batches.split", c, BusConsumer::splitCount).tag("group", group)
        .description("Batches that failed after their retries and were handled again event by event").register(registry);
  }

  /** Image downloads by artifact, and bytes sent. */
  public static ImageDownloads imageDownloads(MeterRegistry registry) {
    for (String a : List.of("full-iso", "minimal-iso", "pxe-initrd", "kernel", "rootfs", "initrd")) {
      registry.counter("rdv.image.downloads", "artifact", a, "complete", "true");
      registry.counter("rdv.image.downloads", "artifact", a, "complete", "false");
      registry.counter("rdv.image.sent.bytes", "artifact", a);
    }
    return (artifact, bytes, complete) -> {
      String a = artifact.matches("full-iso|minimal-iso|pxe-initrd|kernel|rootfs|initrd") ? artifact : "other";
      registry.counter("rdv.image.downloads", "artifact", a, "complete", Boolean.toString(complete)).increment();
      registry.counter("rdv.image.sent.bytes", "artifact", a).increment(bytes);
    };
  }

  public void start(Duration every) {
    refresh();
    timer = vertx.setPeriodic(every.toMillis(), id -> refresh());
  }

  double countsAgeSeconds() {
    long at = countedAt;
    return at == 0 ? -1 : Math.round((System.nanoTime() - at) / 1e8) / 10.0;
  }

  /** One refresh: the two grouped counts and the lags; a failure keeps the last figures. */
  public void refresh() {
    if (refreshing) {
      return;
    }
    refreshing = true;
    pool.query(COUNTS).execute()
        .onSuccess(rows -> {
          Map<String, Long> c = new java.util.HashMap<>();
          Map<String, Long> h = new java.util.HashMap<>();
          Map<String, Long> st = new java.util.HashMap<>();
          for (Row r : rows) {
            String kind = r.getString("kind");
            ("c".equals(kind) ? c : "h".equals(kind) ? h : st).put(r.getString("status"), r.getLong("n"));
          }
          stages.forEach((s, v) -> v.set(st.getOrDefault(s, 0L)));
          clusters.forEach((s, v) -> v.set(c.getOrDefault(s, 0L)));
          hosts.forEach((s, v) -> v.set(h.getOrDefault(s, 0L)));
          countedAt = System.nanoTime();
        })
        .onFailure(e -> LOG.debug("fleet gauges not refreshed: {}", e.toString()))
        .onComplete(ar -> refreshing = false);
    lag.lags(groups).whenComplete((m, e) -> {
      if (m != null) {
        m.forEach((g, v) -> lags.get(g).set(v));
      }
    });
  }

  @Override
  public void close() {
    if (timer >= 0) {
      vertx.cancelTimer(timer);
    }
    lag.close();
  }
}
