package dev.rendezvous.service.bench;

import dev.rendezvous.bus.BusConsumer;
import dev.rendezvous.bus.BusEvent;
import dev.rendezvous.bus.BusProducer;
import dev.rendezvous.bus.EmbeddedKafka;
import dev.rendezvous.bus.TopicSetup;
import dev.rendezvous.bus.Topics;
import dev.rendezvous.bus.event.BusPayload;
import dev.rendezvous.bus.event.HostRegistered;
import dev.rendezvous.bus.event.StepReplyReceived;
import dev.rendezvous.service.ServiceConfig;
import dev.rendezvous.service.bench.BenchStats.Latencies;
import dev.rendezvous.service.brain.Brain;
import dev.rendezvous.service.brain.BrainFixtures;
import dev.rendezvous.service.consumers.BrainConsumer;
import dev.rendezvous.service.db.Database;
import dev.rendezvous.service.db.EmbeddedPostgresServer;
import dev.rendezvous.service.db.Migrations;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The brain end to end on the embedded Kafka and PostgreSQL: step replies published on the bus, each one a
 * unit of work (load or cache, domain, one guarded transaction with its events and claim, next steps
 * published). Hosts in 3-host clusters unless told otherwise. Prints, per phase, events/s and latencies from publish to commit
 * and (where the plan changes) to the host's next steps seen on the steps topic; then baselines in the same
 * process: the same replies through a no-op handler, and through a handler doing one minimal transaction.
 *
 * <p>Usage: {@code mvn -q -B -pl service -am install -DskipTests && mvn -B -pl service -Pbench test-compile exec:java -Dexec.args="1000 32 [durable|relaxed] [hosts-per-cluster]"}
 * (hosts, partitions, durability, hosts per cluster: 3 unless given).
 */
public final class BrainBench {
  private static final AtomicLong COMMITS = new AtomicLong();
  private static final AtomicLong REPLIES = new AtomicLong();
  private static final AtomicLong UNITS = new AtomicLong();
  private static final AtomicLong UNIT_EVENTS = new AtomicLong();
  private static final Map<String, Long> SENT = new ConcurrentHashMap<>();
  private static final Map<String, Long> AWAITING_STEPS = new ConcurrentHashMap<>();
  private static Latencies toCommit = new Latencies();
  private static Latencies toSteps = new Latencies();

  public static void main(String[] args) throws Exception {
    int hosts = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
    int partitions = args.length > 1 ? Integer.parseInt(args[1]) : 32;
    boolean durable = args.length <= 2 || !args[2].equals("relaxed"); // third argument: durable (default) or relaxed
    int perCluster = args.length > 3 ? Integer.parseInt(args[3]) : 3; // fourth: hosts per cluster
    int clusters = (hosts + perCluster - 1) / perCluster;
    Path dir = Files.createTempDirectory("rdv-brain-bench");
    System.out.printf("brain bench: %,d hosts in %,d clusters of %d, %d partitions, %d cores%n", hosts, clusters,
        perCluster, partitions, Runtime.getRuntime().availableProcessors());
    Vertx vertx = Vertx.vertx();
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dir.resolve("pg"), durable);
        EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"), durable)) {
      String bootstrap = kafka.bootstrapServers();
      TopicSetup.ensure(bootstrap, partitions, (short) 1, Duration.ofSeconds(60));
      Pool pool = Database.pool(vertx, pg.connectionUri(), Math.max(16, partitions));
      Migrations.apply(pool).await(60, TimeUnit.SECONDS);
      List<UUID[]> ids = setup(pool, clusters);
      try (BusProducer producer = new BusProducer(bootstrap, "bench-gateway");
          BusProducer brainProducer = new BusProducer(bootstrap, "bench-brain");
          BusConsumer steps = BusConsumer.fanOut(bootstrap, List.of(Topics.STEPS), BusConsumer.StartFrom.LATEST, e -> {
            Long t0 = AWAITING_STEPS.remove(e.hostId());
            if (t0 != null) {
              toSteps.add(System.nanoTime() - t0);
            }
            return CompletableFuture.completedFuture(null);
          })) {
        steps.started().get(30, TimeUnit.SECONDS);
        Brain brain = new Brain(vertx, pool, brainProducer, ServiceConfig.BrainSettings.defaults().domainConfig(),
            Clock.systemUTC());
        brain.listener(new Brain.Listener() {
          @Override
          public void committed(dev.rendezvous.service.brain.WorkKey key, String eventId, int written, int pushed) {
          }

          @Override
          public void eventsCommitted(dev.rendezvous.service.brain.WorkKey key, List<String> eventIds) {
            UNITS.incrementAndGet();
            UNIT_EVENTS.addAndGet(eventIds.size());
            for (String id : eventIds) { // a batched unit commits several of the bench's events at once
              Long t0 = SENT.remove(id);
              if (t0 != null) {
                COMMITS.incrementAndGet(); // only the bench's own events (not the monitor's passes)
                toCommit.add(System.nanoTime() - t0);
              }
            }
          }
        });
        try (BrainConsumer consumer = new BrainConsumer(brain, vertx, bootstrap, 5000)) {
          consumer.started().get(60, TimeUnit.SECONDS);
          List<Host> all = new ArrayList<>();
          for (UUID[] c : ids) {
            for (int i = 1; i <= perCluster && all.size() < hosts; i++) {
              all.add(new Host(c[0], c[1], UUID.randomUUID(), i));
            }
          }
          phase("registrations (new host rows)", producer, all, h -> new HostRegistered(h.id.toString(),
              h.infraEnv.toString(), h.cluster.toString(), "bench-agent", "websocket"), Topics.HOST_REGISTRATIONS, true);
          double inv = phase("inventory replies (status change, new plan)", producer, all,
              h -> reply("inventory", BrainFixtures.inventory(h.n, 8)), Topics.STEP_REPLIES, true);
          phase("ntp replies (new step result, same plan)", producer, all, h -> reply("ntp-synchronizer",
              BrainFixtures.ntp()), Topics.STEP_REPLIES, false);
          double steady = phase("ntp replies again (nothing changes: claim + checks)", producer, all,
              h -> reply("ntp-synchronizer", BrainFixtures.ntp()), Topics.STEP_REPLIES, false);
          paced("paced ntp replies at half the burst rate", producer, all, Math.max(100, steady / 2), Duration.ofSeconds(5));

          double noop = baseline(bootstrap, "bench-noop", REPLIES.get(), null);
          double tx = baseline(bootstrap, "bench-one-tx", REPLIES.get(), pool);
          System.out.printf("%nbaseline (same step-reply records, same BusConsumer, %d partitions):%n", partitions);
          System.out.printf("  no-op handler             %,10.0f events/s%n", noop);
          System.out.printf("  one-INSERT transaction    %,10.0f events/s%n", tx);
          System.out.printf("ratios: inventory burst / no-op %.3f, / one-tx %.3f; steady / no-op %.3f, / one-tx %.3f%n",
              inv / noop, inv / tx, steady / noop, steady / tx);
        }
      }
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }

  private record Host(UUID cluster, UUID infraEnv, UUID id, int n) {}

  private static StepReplyReceived reply(String type, String output) {
    return new StepReplyReceived(type, type + "-" + Long.toHexString(System.nanoTime()), 0, output, "");
  }

  /** Publishes one event per host as fast as the producer takes them; waits until every one committed. */
  private static double phase(String name, BusProducer producer, List<Host> hosts,
      java.util.function.Function<Host, BusPayload> payload, String topic, boolean expectSteps) throws Exception {
    toCommit = new Latencies();
    toSteps = new Latencies();
    long before = COMMITS.get();
    long units0 = UNITS.get();
    long unitEvents0 = UNIT_EVENTS.get();
    List<BusEvent> events = new ArrayList<>(hosts.size());
    for (Host h : hosts) {
      events.add(BusEvent.of(h.cluster.toString(), h.infraEnv.toString(), h.id.toString(), payload.apply(h)));
    }
    long t0 = System.nanoTime();
    List<CompletableFuture<?>> sends = new ArrayList<>();
    for (BusEvent e : events) {
      long now = System.nanoTime();
      SENT.put(e.eventId(), now);
      if (expectSteps) {
        AWAITING_STEPS.put(e.hostId(), now);
      }
      sends.add(producer.publish(topic, e));
      if (topic.equals(Topics.STEP_REPLIES)) {
        REPLIES.incrementAndGet();
      }
    }
    CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
    await(() -> COMMITS.get() - before >= hosts.size(), Duration.ofMinutes(10));
    double secs = (System.nanoTime() - t0) / 1e9;
    double rate = hosts.size() / secs;
    if (expectSteps) {
      await(() -> AWAITING_STEPS.isEmpty(), Duration.ofSeconds(60));
    }
    long units = UNITS.get() - units0;
    System.out.printf("%n%s: %,d events in %.2f s = %,.0f events/s (%,d units, %.1f events per unit)%n"
        + "  publish -> committed  %s%n", name, hosts.size(), secs, rate, units,
        units == 0 ? 0.0 : (UNIT_EVENTS.get() - unitEvents0) / (double) units, toCommit.summary());
    if (expectSteps) {
      System.out.printf("  publish -> next steps on the steps topic  %s%n", toSteps.summary());
    }
    return rate;
  }

  /** Publishes at a fixed rate for a while: latency without a backlog. */
  private static void paced(String name, BusProducer producer, List<Host> hosts, double rate, Duration length)
      throws Exception {
    toCommit = new Latencies();
    long before = COMMITS.get();
    long count = (long) (rate * length.toSeconds());
    long t0 = System.nanoTime();
    for (long i = 0; i < count; i++) {
      long due = t0 + (long) (i * 1e9 / rate);
      while (System.nanoTime() < due) {
        Thread.onSpinWait();
      }
      Host h = hosts.get((int) (i % hosts.size()));
      BusEvent e = BusEvent.of(h.cluster.toString(), h.infraEnv.toString(), h.id.toString(),
          reply("ntp-synchronizer", BrainFixtures.ntp()));
      SENT.put(e.eventId(), System.nanoTime());
      producer.publish(Topics.STEP_REPLIES, e);
      REPLIES.incrementAndGet();
    }
    await(() -> COMMITS.get() - before >= count, Duration.ofMinutes(5));
    System.out.printf("%n%s (%,.0f events/s for %d s): publish -> committed  %s%n", name, rate, length.toSeconds(),
        toCommit.summary());
  }

  /** The step-reply records already on the topic, read by a new group with a trivial handler. */
  private static double baseline(String bootstrap, String group, long expected, Pool pool) throws Exception {
    AtomicLong seen = new AtomicLong();
    long t0 = System.nanoTime();
    try (BusConsumer c = BusConsumer.builder(bootstrap).groupId(group).topics(List.of(Topics.STEP_REPLIES))
        .orderAcrossTopics().handler(e -> {
          if (pool == null) {
            seen.incrementAndGet();
            return CompletableFuture.completedFuture(null);
          }
          return pool.withTransaction(tx -> tx.preparedQuery("INSERT INTO processed_bus_events (event_id) VALUES ($1)"
                  + " ON CONFLICT DO NOTHING").execute(Tuple.of(group + e.eventId())))
              .onSuccess(r -> seen.incrementAndGet()).<Void>mapEmpty().toCompletionStage();
        }).start()) {
      await(() -> seen.get() >= expected, Duration.ofMinutes(10));
      return seen.get() / ((System.nanoTime() - t0) / 1e9);
    }
  }

  /** Clusters ready in their own settings, one infra-env each. */
  private static List<UUID[]> setup(Pool pool, int clusters) throws Exception {
    OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
    List<Tuple> cs = new ArrayList<>();
    List<Tuple> ies = new ArrayList<>();
    List<UUID[]> ids = new ArrayList<>();
    for (int i = 0; i < clusters; i++) {
      UUID c = UUID.randomUUID();
      UUID ie = UUID.randomUUID();
      ids.add(new UUID[] {c, ie});
      cs.add(Tuple.of(c, "bench", BrainFixtures.CLUSTER_NAME, "4.18", "insufficient", "new", now,
          BrainFixtures.readyClusterSpec(), "{}", now));
      ies.add(Tuple.of(ie, "bench", c, "ie", "{}", "{}", now));
    }
    pool.preparedQuery("INSERT INTO clusters (id, tenant, name, openshift_version, status, status_info, status_updated_at,"
        + " spec, pull_secret, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8::text::jsonb, $9, $10, $10)")
        .executeBatch(cs).await(120, TimeUnit.SECONDS);
    pool.preparedQuery("INSERT INTO infra_envs (id, tenant, cluster_id, name, spec, pull_secret, created_at, updated_at)"
        + " VALUES ($1, $2, $3, $4, $5::text::jsonb, $6, $7, $7)").executeBatch(ies).await(120, TimeUnit.SECONDS);
    return ids;
  }

  private static void await(java.util.function.BooleanSupplier done, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("timed out after " + timeout);
      }
      Thread.sleep(5);
    }
  }
}
