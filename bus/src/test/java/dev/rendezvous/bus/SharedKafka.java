package dev.rendezvous.bus;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * One real embedded broker per test JVM (a cold start costs seconds), with the project topics created.
 * Stopped by EmbeddedKafka's shutdown hook when the JVM exits.
 */
final class SharedKafka {
    static final int PARTITIONS = 4;

    private static EmbeddedKafka broker;

    private SharedKafka() {
    }

    static synchronized String bootstrap() {
        if (broker == null) {
            try {
                Path dir = Files.createTempDirectory("rdv-bus-test-kafka");
                broker = EmbeddedKafka.start(dir);
                TopicSetup.ensure(broker.bootstrapServers(), PARTITIONS, (short) 1, Duration.ofSeconds(60));
            } catch (Exception e) {
                throw new IllegalStateException("cannot start the shared embedded Kafka", e);
            }
        }
        return broker.bootstrapServers();
    }

    /** A fresh topic for one test, ready to produce to (KAFKA-15591). */
    static String newTopic(String prefix, int partitions) throws Exception {
        String topic = "test." + prefix + "." + System.nanoTime();
        TopicSetup.ensure(bootstrap(), java.util.List.of(topic), partitions, (short) 1, Duration.ofSeconds(30));
        return topic;
    }
}
