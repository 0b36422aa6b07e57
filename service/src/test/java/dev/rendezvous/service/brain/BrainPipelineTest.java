package dev.rendezvous.service.brain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.bus.BusEvent;
import dev.rendezvous.bus.BusProducer;
import dev.rendezvous.bus.EmbeddedKafka;
import dev.rendezvous.bus.TopicSetup;
import dev.rendezvous.bus.event.HostRegistered;
import dev.rendezvous.bus.event.StepReplyReceived;
import dev.rendezvous.service.ServiceConfig;
import dev.rendezvous.service.db.Database;
import dev.rendezvous.service.db.EmbeddedPostgresServer;
import dev.rendezvous.service.db.Migrations;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Many events of one cluster in one batch run as several units, each prepared while the one before it commits
 * ({@code UnitRunner.pipelined}). What they leave is what one unit after the other leaves: every host ends with its last
 * reply, every event is claimed; and a unit that goes stale (another writer bumped the key) drops what was prepared on
 * it, the rest running again on what the database holds.
 */
class BrainPipelineTest {
  private static final int HOSTS = 128;

  @TempDir Path dir;
  private Vertx vertx;
  private EmbeddedPostgresServer pg;
  private EmbeddedKafka kafka;
  private BusProducer producer;
  private Pool pool;
  private Brain brain;
  private final AtomicInteger units = new AtomicInteger();
  /** Plans pushed by the units committed so far. */
  private final AtomicInteger pushed = new AtomicInteger();
  private UUID cluster;
  private UUID infraEnv;
  private final List<UUID> hosts = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
    pg = EmbeddedPostgresServer.start(dir.resolve("pg"), false);
    kafka = EmbeddedKafka.start(dir.resolve("kafka"), false);
    TopicSetup.ensure(kafka.bootstrapServers(), 2, (short) 1, Duration.ofSeconds(60));
    producer = new BusProducer(kafka.bootstrapServers(), "pipeline-test");
    pool = Database.pool(vertx, pg.connectionUri(), 8);
    Migrations.apply(pool).await(60, TimeUnit.SECONDS);
    cluster = UUID.randomUUID();
    infraEnv = UUID.randomUUID();
    BrainFixtures.insertClusterWithInfraEnv(pool, cluster, BrainFixtures.CLUSTER_NAME, infraEnv)
        .await(30, TimeUnit.SECONDS);
    brain = new Brain(vertx, pool, producer, ServiceConfig.BrainSettings.defaults().domainConfig(), Clock.systemUTC());
    brain.listener(new Brain.Listener() {
      @Override
      public void committed(WorkKey key, String eventId, int hostsWritten, int stepsPushed) {
        pushed.addAndGet(stepsPushed);
      }

      @Override
      public void eventsCommitted(WorkKey key, List<String> eventIds) {
        units.incrementAndGet();
      }
    });
    List<BusEvent> registrations = new ArrayList<>();
    for (int i = 0; i < HOSTS; i++) {
      UUID h = UUID.randomUUID();
      hosts.add(h);
      registrations.add(event(h, new HostRegistered(h.toString(), infraEnv.toString(), cluster.toString(), "test",
          "websocket")));
    }
    brain.handleBatch(registrations).await(60, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() throws Exception {
    if (pool != null) {
      pool.close().await(10, TimeUnit.SECONDS);
    }
    if (producer != null) {
      producer.close();
    }
    vertx.close().await(10, TimeUnit.SECONDS);
    if (kafka != null) {
      kafka.close();
    }
    if (pg != null) {
      pg.close();
    }
  }

  @Test
  void manyRepliesOfOneClusterRunAsPipelinedUnitsAndEachHostKeepsItsLast() throws Exception {
    // every host's first reply, then a second one of the first 32: their two replies in the first and the last unit
    List<BusEvent> burst = new ArrayList<>();
    Map<Integer, Integer> last = new HashMap<>();
    for (int i = 0; i < HOSTS; i++) {
      burst.add(reply(i, 0, last));
    }
    for (int i = 0; i < 32; i++) {
      burst.add(reply(i, 1, last));
    }
    int before = units.get();
    double parsedBefore = brain.outputsParsedAhead();
    brain.handleBatch(burst).await(60, TimeUnit.SECONDS);

    assertEquals(UnitRunner.PIPELINE_CHUNKS, units.get() - before, "the batch ran as pipelined units");
    assertEquals(burst.size(), brain.outputsParsedAhead() - parsedBefore, "their inventories parsed off the lane");
    assertEquals(UnitRunner.PIPELINE_CHUNKS, transactionsClaiming(burst));
    assertLastRepliesStored(burst, last);
  }

  @Test
  void aBatchWhoseHostsHaveManyEventsEachRunsAsOneUnit() throws Exception {
    // split over units, a host's events would be written and refreshed once per unit instead of once
    List<BusEvent> burst = new ArrayList<>();
    Map<Integer, Integer> last = new HashMap<>();
    for (int r = 0; r < 5; r++) {
      for (int i = 0; i < 32; i++) {
        burst.add(reply(i, r, last));
      }
    }
    int before = units.get();
    double parsedBefore = brain.outputsParsedAhead();
    brain.handleBatch(burst).await(60, TimeUnit.SECONDS);

    assertEquals(1, units.get() - before);
    assertEquals(burst.size(), brain.outputsParsedAhead() - parsedBefore, "their inventories parsed off the lane");
    assertLastRepliesStored(burst, last);
  }

  @Test
  void whenAUnitDoesNotCommitNoneBehindItDoesAndTheRestRunOnWhatTheDatabaseHolds() throws Exception {
    // the hosts known first (their status, the cluster's validations settled): later units change host rows only
    List<BusEvent> first = new ArrayList<>();
    Map<Integer, Integer> last = new HashMap<>();
    for (int i = 0; i < HOSTS; i++) {
      first.add(reply(i, 0, last));
    }
    brain.handleBatch(first).await(60, TimeUnit.SECONDS);
    // each unit a set of hosts of its own, so row versions alone would not stop the second unit: it expects the key's
    // version the first leaves, which another writer's bump makes
    List<BusEvent> burst = new ArrayList<>();
    for (int i = 0; i < HOSTS; i++) {
      burst.add(reply(i, 1, last));
    }
    // another writer (a host deleted through the API, say) moves the key's version and commits only once the brain's
    // units are sent: the first waits for its lock and then finds itself stale, the others are queued behind it
    SqlConnection other = pool.getConnection().await(30, TimeUnit.SECONDS);
    other.query("BEGIN").execute().await(30, TimeUnit.SECONDS);
    other.preparedQuery("UPDATE cluster_host_versions SET version = version + 1 WHERE cluster_id = $1")
        .execute(Tuple.of(cluster)).await(30, TimeUnit.SECONDS);
    int before = units.get();
    io.vertx.core.Future<Void> handled = brain.handleBatch(burst);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (pool.query("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'").execute()
        .await(30, TimeUnit.SECONDS).iterator().next().getLong(0) == 0) {
      assertTrue(System.nanoTime() < deadline, "the first unit waits for the other writer");
      Thread.sleep(20);
    }
    Thread.sleep(1000); // the units behind it are prepared and sent meanwhile (milliseconds each)
    other.query("COMMIT").execute().await(30, TimeUnit.SECONDS);
    other.close().await(30, TimeUnit.SECONDS);
    handled.await(60, TimeUnit.SECONDS);

    assertEquals(1, units.get() - before, "no pipelined unit committed; the rest ran as one unit, read again");
    assertEquals(1, transactionsClaiming(burst), "the units behind the stale one committed nothing");
    assertLastRepliesStored(burst, last);
  }

  @Test
  void aRefreshAfterASettingsChangeReadsTheClusterRowAgainAndKeepsHostsNobodyWrote() throws Exception {
    WorkKey key = everyHostReportedOnce();
    // a host row changed without moving the key's version (as only the brain's own writes do): what a read would see
    SqlConnection c = pool.getConnection().await(30, TimeUnit.SECONDS);
    c.query("BEGIN").execute().await(30, TimeUnit.SECONDS);
    c.query("SET LOCAL rdv.brain_write = 'on'").execute().await(30, TimeUnit.SECONDS);
    c.preparedQuery("UPDATE hosts SET requested_hostname = 'unseen' WHERE id = $1").execute(Tuple.of(hosts.get(0)))
        .await(30, TimeUnit.SECONDS);
    c.query("COMMIT").execute().await(30, TimeUnit.SECONDS);
    c.close().await(30, TimeUnit.SECONDS);
    // a user's change to the cluster's row (the REST API moves its row version), then the API's refresh
    long rowVersion = pool.preparedQuery("UPDATE clusters SET name = 'renamed', row_version = row_version + 1"
        + " WHERE id = $1 RETURNING row_version").execute(Tuple.of(cluster)).await(30, TimeUnit.SECONDS)
        .iterator().next().getLong(0);
    brain.refresh(key).await(30, TimeUnit.SECONDS);

    assertEquals("renamed", brain.inspect(key, w -> w.cluster().name()).await(30, TimeUnit.SECONDS),
        "the row as the user left it");
    assertTrue(brain.inspect(key, w -> w.clusterRecord().rowVersion()).await(30, TimeUnit.SECONDS) >= rowVersion);
    assertEquals(null, brain.cachedHost(key, hosts.get(0)).orElseThrow().requestedHostname(),
        "the hosts kept, not read (and their reports parsed) again");

    // someone else wrote a host meanwhile (its key's version moves): everything is read again, that write included
    pool.preparedQuery("UPDATE hosts SET requested_hostname = 'set-by-hand', row_version = row_version + 1 WHERE id = $1")
        .execute(Tuple.of(hosts.get(1))).await(30, TimeUnit.SECONDS);
    brain.refresh(key).await(30, TimeUnit.SECONDS);
    assertEquals("set-by-hand", brain.cachedHost(key, hosts.get(1)).orElseThrow().requestedHostname());
    assertEquals("unseen", brain.cachedHost(key, hosts.get(0)).orElseThrow().requestedHostname());
  }

  @Test
  void aSettingsChangeThatMovesAStepsArgumentsPushesTheHostsNewPlansAtOnceAndOnlyOnce() throws Exception {
    WorkKey key = everyHostReportedOnce();
    List<UUID> planned = brain.inspect(key, w -> w.hostIds().stream()
        .filter(h -> w.host(h).status() == dev.rendezvous.service.domain.host.HostStatus.INSUFFICIENT
            || w.host(h).status() == dev.rendezvous.service.domain.host.HostStatus.PENDING_FOR_INPUT
            || w.host(h).status() == dev.rendezvous.service.domain.host.HostStatus.KNOWN)
        .toList()).await(30, TimeUnit.SECONDS);
    assertEquals(HOSTS, planned.size(), "every host past discovery: its plan has the NTP step");
    // the user sets an NTP source (the REST API moves the row's version, then refreshes): no host's own state moves,
    // but every host's ntp-synchronizer step now carries the source
    // the passes the replies scheduled have run: a full refresh within 5 s, a targets pass within 10 s, a host's
    // targets retried 2 s after its push (with a 2 s quiet window CI once counted 96 of their pushes with the 128)
    awaitNoPushesFor(Duration.ofSeconds(12));
    pushed.set(0);
    pool.preparedQuery("UPDATE clusters SET spec = spec || '{\"additional_ntp_source\": \"ntp.example.com\"}'::jsonb,"
        + " row_version = row_version + 1 WHERE id = $1").execute(Tuple.of(cluster)).await(30, TimeUnit.SECONDS);
    brain.settingsChanged(key).await(30, TimeUnit.SECONDS);
    assertEquals(HOSTS, pushed.get(), "each host's new plan pushed now, not at its next due plan a minute later");
    // a refresh that changes no plan pushes nothing (an agent would loop on its steps)
    pushed.set(0);
    brain.settingsChanged(key).await(30, TimeUnit.SECONDS);
    assertEquals(0, pushed.get(), "no plan moved, none pushed");
  }

  /** Every host's first inventory reply, handled; the cluster's key. */
  private WorkKey everyHostReportedOnce() throws Exception {
    List<BusEvent> first = new ArrayList<>();
    Map<Integer, Integer> last = new HashMap<>();
    for (int i = 0; i < HOSTS; i++) {
      first.add(reply(i, 0, last));
    }
    brain.handleBatch(first).await(60, TimeUnit.SECONDS);
    return WorkKey.cluster(cluster);
  }

  /** Until no unit pushed a plan for {@code quiet} (the timers' passes done), 60 s at most. */
  private void awaitNoPushesFor(Duration quiet) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    int seen = pushed.get();
    long since = System.nanoTime();
    while (System.nanoTime() - since < quiet.toNanos()) {
      assertTrue(System.nanoTime() < deadline, "the brain kept pushing plans for a minute");
      Thread.sleep(100);
      if (pushed.get() != seen) {
        seen = pushed.get();
        since = System.nanoTime();
      }
    }
  }

  /** Host {@code host}'s inventory reply number {@code r} (its name says which), noted as its last in {@code last}. */
  private BusEvent reply(int host, int r, Map<Integer, Integer> last) {
    last.put(host, r);
    String inventory = new JsonObject(BrainFixtures.inventory(host, 8)).put("hostname", name(host, r)).encode();
    return event(hosts.get(host), new StepReplyReceived("inventory", "inventory-" + r, 0, inventory, ""));
  }

  private void assertLastRepliesStored(List<BusEvent> burst, Map<Integer, Integer> last) throws Exception {
    Map<UUID, String> names = new HashMap<>();
    for (Row r : pool.preparedQuery("SELECT id, inventory FROM hosts WHERE cluster_id = $1").execute(Tuple.of(cluster))
        .await(30, TimeUnit.SECONDS)) {
      if (r.getString(1) != null) {
        names.put(r.getUUID(0), new JsonObject(r.getString(1)).getString("hostname"));
      }
    }
    last.forEach((i, r) -> assertEquals(name(i, r), names.get(hosts.get(i)), "host " + i + " keeps its last reply"));
    String[] ids = burst.stream().map(BusEvent::eventId).toArray(String[]::new);
    long claimed = pool.preparedQuery("SELECT count(*) FROM processed_bus_events WHERE event_id = ANY($1)")
        .execute(Tuple.of(ids)).await(30, TimeUnit.SECONDS).iterator().next().getLong(0);
    assertEquals(ids.length, claimed, "every event claimed once");
  }

  /** How many transactions claimed the events (the inserting transaction of each ledger row). */
  private long transactionsClaiming(List<BusEvent> events) throws Exception {
    String[] ids = events.stream().map(BusEvent::eventId).toArray(String[]::new);
    return pool.preparedQuery("SELECT count(DISTINCT xmin::text) FROM processed_bus_events WHERE event_id = ANY($1)")
        .execute(Tuple.of(ids)).await(30, TimeUnit.SECONDS).iterator().next().getLong(0);
  }

  private static String name(int host, int reply) {
    return "host-" + host + "-reply-" + reply;
  }

  private BusEvent event(UUID host, dev.rendezvous.bus.event.BusPayload payload) {
    return BusEvent.of(cluster.toString(), infraEnv.toString(), host.toString(), payload);
  }
}
