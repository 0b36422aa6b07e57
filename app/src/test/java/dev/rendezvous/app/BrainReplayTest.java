package dev.rendezvous.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.bus.Topics;
import dev.rendezvous.service.consumers.BrainConsumer;
import io.vertx.sqlclient.Row;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * At-least-once delivery means any event may come again: every record of the brain's topics is read back
 * from the earliest offset and published again, byte for byte; the hosts, clusters and events are unchanged.
 */
class BrainReplayTest {
  private static final List<String> TOPICS = List.of(Topics.HOST_REGISTRATIONS, Topics.AGENT_PRESENCE,
      Topics.STEP_REPLIES, Topics.INSTALL_PROGRESS, Topics.CLUSTER_ACTIONS);
  private final Rendezvous system = TestSystem.shared();
  private final Api api = TestSystem.admin();

  @Test
  void replayingWholeTopicsChangesNothing() throws Exception {
    List<String> hosts = BrainFlowTest.newHosts(3);
    BrainFlowTest.Ready r;
    try (GatewayDouble gw = new GatewayDouble(system.kafkaBootstrap(), Set.copyOf(hosts))) {
      r = BrainFlowTest.readyCluster(api, gw, "brain-replay", hosts);
      BrainFlowTest.awaitCluster(api, r.cluster(), "ready");
      api.post("/clusters/" + r.cluster() + "/actions/install", null); // an action on the bus too
      BrainFlowTest.awaitCluster(api, r.cluster(), "preparing-for-installation");
    }
    awaitBrainCaughtUp();
    String before = snapshot(r.cluster());
    int replayed = replayAll();
    assertTrue(replayed >= 3 * 6 + 1, "replayed " + replayed + " records");
    awaitBrainCaughtUp();
    assertEquals(before, snapshot(r.cluster()));
  }

  /**
   * This test's cluster, its hosts and events as rows (minus the outbox flag the relay flips), in a stable order, and
   * the processed-event ledger's size. Other tests' hosts are left out: the shared system's monitor may time one of
   * them out (disconnected after 3 minutes) while the replay runs, which is no replay's doing.
   */
  private String snapshot(String cluster) throws Exception {
    StringBuilder s = new StringBuilder();
    for (String q : new String[] {
        "SELECT id, infra_env_id, cluster_id, status, status_info, status_updated_at, role, suggested_role, bootstrap,"
            + " installation_disk_path, inventory::text, connectivity::text, validations_info::text, progress::text,"
            + " step_results::text, spec::text, state::text, checked_in_at, row_version FROM hosts"
            + " WHERE cluster_id = '" + cluster + "' ORDER BY id, infra_env_id",
        "SELECT id, status, status_info, status_updated_at, validations_info::text, progress::text, install_started_at,"
            + " state::text, row_version FROM clusters WHERE id = '" + cluster + "'",
        "SELECT count(*), max(seq) FROM events WHERE cluster_id = '" + cluster + "'",
        "SELECT count(*) FROM processed_bus_events"}) {
      for (Row row : system.pool().query(q).execute().await(10, TimeUnit.SECONDS)) {
        s.append(row.deepToString()).append('\n');
      }
    }
    return s.toString();
  }

  /** Reads every record of the brain's topics from the beginning and publishes it again unchanged. */
  private int replayAll() throws Exception {
    Map<String, Object> c = new HashMap<>();
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, system.kafkaBootstrap());
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    Map<String, Object> p = new HashMap<>();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, system.kafkaBootstrap());
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
      List<TopicPartition> parts = new ArrayList<>();
      for (String t : TOPICS) {
        consumer.partitionsFor(t).forEach(i -> parts.add(new TopicPartition(t, i.partition())));
      }
      consumer.assign(parts);
      consumer.seekToBeginning(parts);
      Map<TopicPartition, Long> end = consumer.endOffsets(parts);
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (parts.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
        consumer.poll(Duration.ofMillis(200)).forEach(records::add);
        if (System.nanoTime() > deadline) {
          throw new AssertionError("could not read the topics back");
        }
      }
      for (ConsumerRecord<byte[], byte[]> rec : records) {
        producer.send(new ProducerRecord<>(rec.topic(), rec.partition(), rec.key(), rec.value())).get(10, TimeUnit.SECONDS);
      }
    }
    return records.size();
  }

  /** Waits until the brain's group committed offsets at the end of every partition of its topics. */
  private void awaitBrainCaughtUp() throws Exception {
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, system.kafkaBootstrap()))) {
      Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
      admin.describeTopics(TOPICS).allTopicNames().get(10, TimeUnit.SECONDS).forEach((t, d) ->
          d.partitions().forEach(i -> latest.put(new TopicPartition(t, i.partition()), OffsetSpec.latest())));
      Map<TopicPartition, Long> end = new HashMap<>();
      admin.listOffsets(latest).all().get(10, TimeUnit.SECONDS).forEach((tp, info) -> end.put(tp, info.offset()));
      Await.until("the brain consumed and committed everything", BrainFlowTest.PATIENCE, () -> {
        try {
          Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(BrainConsumer.GROUP)
              .partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS);
          return end.entrySet().stream().allMatch(e -> e.getValue() == 0
              || (committed.get(e.getKey()) != null && committed.get(e.getKey()).offset() >= e.getValue())) ? true : null;
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
    }
    Thread.sleep(500); // after-commit work (step publishing) and a monitor pass or two
  }
}
