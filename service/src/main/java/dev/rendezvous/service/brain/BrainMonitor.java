package dev.rendezvous.service.brain;

import dev.rendezvous.bus.BusConsumer;
import dev.rendezvous.bus.Topics;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The clock-driven half of the brain (upstream's host and cluster monitors): every interval, for each
 * cluster (and infra-env with unbound hosts) whose partition this instance owns, a refresh unit in the key's
 * lane: disconnection, preparation and installation timeouts, role suggestions, and step plans due again.
 * Each tick first compares the database's row versions with the cache and drops what someone else changed
 * (a cluster's settings edited through the REST API of another instance, ...). A new partition assignment
 * empties the cache: rows may have moved on while another instance owned them.
 */
public final class BrainMonitor {
  private static final Logger LOG = LoggerFactory.getLogger(BrainMonitor.class);

  private final Vertx vertx;
  private final Brain brain;
  private final BusConsumer consumer;
  private final String bootstrap;
  private final String topic;
  private volatile int partitions;
  private Set<TopicPartition> lastAssignment;
  private long timer = -1;
  private long interval = 1000;
  private long ticks;
  private boolean ticking;
  /** Every so many passes every owned key is refreshed, resting or not (a safety net, about once a minute). */
  private long fullPassEvery = 12;

  /** {@code topic}: a topic of the consumer whose partition numbers say which keys this instance owns. */
  public BrainMonitor(Vertx vertx, Brain brain, BusConsumer consumer, String bootstrap, String topic) {
    this.vertx = vertx;
    this.brain = brain;
    this.consumer = consumer;
    this.bootstrap = bootstrap;
    this.topic = topic;
  }

  public void start(long intervalMillis) {
    interval = intervalMillis;
    fullPassEvery = Math.max(1, 60_000 / intervalMillis);
    vertx.getOrCreateContext().runOnContext(v -> {
      timer = vertx.setPeriodic(intervalMillis, id -> tick());
      partitionCount(); // known before the first pass: units judge silence by the partition's backlog (BrainConsumer)
    });
  }

  public void stop() {
    if (timer >= 0) {
      vertx.cancelTimer(timer);
    }
  }

  /** One pass; skipped while the previous one still runs. */
  public Future<Integer> tick() {
    if (ticking) {
      return Future.succeededFuture(0);
    }
    ticking = true;
    return partitionCount().compose(count -> {
      Set<TopicPartition> assignment = consumer.assignment();
      if (assignment != lastAssignment) {
        // a later assignment may bring keys others wrote meanwhile; the first one only finds what this instance
        // itself read since it started (emptying then cost a reload of every busy cluster, 5 s after start)
        if (lastAssignment != null) {
          brain.clearCache();
        }
        lastAssignment = assignment;
      }
      Set<Integer> owned = new HashSet<>();
      assignment.stream().filter(tp -> tp.topic().equals(topic)).forEach(tp -> owned.add(tp.partition()));
      if (owned.isEmpty() || count == 0) {
        return Future.succeededFuture(0);
      }
      long mark = brain.writeMark();
      return brain.store().versions().compose(versions -> {
        brain.dropStale(versions, mark);
        // the full pass is spread over the minute, each key in its own slot: all at once, 10,000 sites' keys made
        // a burst of 10,000 units every minute, and what arrived then waited behind it
        long tick = ticks++;
        java.time.Instant now = brain.now();
        List<Future<?>> runs = new ArrayList<>();
        for (WorkKey k : versions.keySet()) {
          if (!owned.contains(Topics.partitionFor(k.partitionKey(), count))) {
            continue;
          }
          boolean full = inFullPass(k, tick, fullPassEvery);
          if ((full && !brain.parked(k)) || brain.needsMonitor(k, now, interval)) {
            runs.add(brain.monitorRefresh(k, full, interval));
          }
        }
        return Future.join(runs).map(v -> runs.size());
      });
    }).onFailure(e -> LOG.atWarn().setCause(e).log("monitor pass failed; retried next interval"))
        .onComplete(ar -> ticking = false);
  }

  /** Whether pass number {@code tick} refreshes {@code key} in full: once in every {@code every} passes, its own. */
  static boolean inFullPass(WorkKey key, long tick, long every) {
    return Math.floorMod(key.hashCode(), every) == tick % every;
  }

  /** The topic's partition count once the first pass asked for it; 0 before. */
  public int knownPartitionCount() {
    return partitions;
  }

  /** The topic's partition count, asked once from the broker (a blocking admin call, on a worker). */
  private Future<Integer> partitionCount() {
    if (partitions > 0) {
      return Future.succeededFuture(partitions);
    }
    return vertx.executeBlocking(() -> {
      try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
        int n = admin.describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS).get(topic)
            .partitions().size();
        partitions = n;
        return n;
      }
    }, false);
  }
}
