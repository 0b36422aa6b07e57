package dev.rendezvous.bus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedKafkaTest {

    @Test
    void ensureCreatesEveryProjectTopicIsIdempotentAndReadyTurnsTrue() throws Exception {
        String bootstrap = SharedKafka.bootstrap();
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            Map<String, TopicDescription> topics = admin.describeTopics(Topics.all()).allTopicNames()
                    .get(10, TimeUnit.SECONDS);
            assertEquals(Set.copyOf(Topics.all()), topics.keySet());
            topics.values().forEach(d -> assertEquals(SharedKafka.PARTITIONS, d.partitions().size(), d.name()));
        }
        // second run: nothing to create, no error, and a different partition count does not alter existing topics
        TopicSetup.ensure(bootstrap, 2, (short) 1, Duration.ofSeconds(20));
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            assertEquals(SharedKafka.PARTITIONS, admin.describeTopics(List.of(Topics.STEPS)).allTopicNames()
                    .get(10, TimeUnit.SECONDS).get(Topics.STEPS).partitions().size());
        }
        assertTrue(TopicSetup.ready(bootstrap, Duration.ofSeconds(5)));
    }

    @Test
    void theEmbeddedBrokerFlushesEveryAppendToDiskByDefault() throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", SharedKafka.bootstrap()))) {
            var broker = new org.apache.kafka.common.config.ConfigResource(
                    org.apache.kafka.common.config.ConfigResource.Type.BROKER, "1");
            var config = admin.describeConfigs(List.of(broker)).all().get(10, TimeUnit.SECONDS).get(broker);
            assertEquals("1", config.get("log.flush.interval.messages").value());
        }
    }

    @Test
    void readyIsFalseQuicklyForADeadAddress() throws Exception {
        int deadPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            deadPort = s.getLocalPort();
        }
        long t0 = System.nanoTime();
        assertFalse(TopicSetup.ready("127.0.0.1:" + deadPort, Duration.ofMillis(800)));
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        assertTrue(ms < 3000, "ready() took " + ms + " ms");
    }

    @Test
    void readyIsFalseWhenProjectTopicsAreMissing(@TempDir Path dir) throws Exception {
        try (EmbeddedKafka empty = EmbeddedKafka.start(dir)) {
            assertFalse(TopicSetup.ready(empty.bootstrapServers(), Duration.ofSeconds(5)));
            TopicSetup.ensure(empty.bootstrapServers(), 1, (short) 1, Duration.ofSeconds(30));
            assertTrue(TopicSetup.ready(empty.bootstrapServers(), Duration.ofSeconds(5)));
        }
    }

    @Test
    void recordsSurviveABrokerRestartOnTheSameDirectory(@TempDir Path dir) throws Exception {
        String topic = "restart.check";
        List<String> written = List.of("one", "two", "three");
        try (EmbeddedKafka first = EmbeddedKafka.start(dir)) {
            TopicSetup.ensure(first.bootstrapServers(), List.of(topic), 1, (short) 1, Duration.ofSeconds(30));
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, first.bootstrapServers(),
                    ProducerConfig.ACKS_CONFIG, "all"), new StringSerializer(), new StringSerializer())) {
                for (String value : written) {
                    producer.send(new ProducerRecord<>(topic, "k", value)).get(10, TimeUnit.SECONDS);
                }
            }
        }
        try (EmbeddedKafka second = EmbeddedKafka.start(dir)) {
            second.close();
            second.close(); // idempotent
        }
        try (EmbeddedKafka third = EmbeddedKafka.start(dir)) {
            assertEquals(written, readAll(third.bootstrapServers(), topic, written.size()));
        }
    }

    private static List<String> readAll(String bootstrap, String topic, int expected) {
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap), new StringDeserializer(),
                new StringDeserializer())) {
            TopicPartition tp = new TopicPartition(topic, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (values.size() < expected && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    values.add(r.value());
                }
            }
        }
        return values;
    }
}
