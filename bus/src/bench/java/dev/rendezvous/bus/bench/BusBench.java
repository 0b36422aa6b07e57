package dev.rendezvous.bus.bench;

import dev.rendezvous.bus.BusCodec;
import dev.rendezvous.bus.BusConsumer;
import dev.rendezvous.bus.BusEvent;
import dev.rendezvous.bus.BusProducer;
import dev.rendezvous.bus.EmbeddedKafka;
import dev.rendezvous.bus.TopicSetup;
import dev.rendezvous.bus.event.StepReplyReceived;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Bus throughput against raw kafka-clients in the same process and broker (the baseline):
 * codec, BusProducer vs KafkaProducer with the same settings, BusConsumer vs a bare poll loop.
 * Each measurement runs twice on fresh topics; the second (warm) round is the one that counts.
 * Usage: mvn -B -pl bus -Pbench test-compile exec:java [-Dexec.args=100000]
 */
public final class BusBench {

    private static final int PARTITIONS = 12;

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        Path dir = Files.createTempDirectory("rdv-bus-bench");
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir)) {
            String bootstrap = kafka.bootstrapServers();
            List<BusEvent> events = events(n);
            for (int round = 1; round <= 2; round++) {
                System.out.printf("--- round %d (%s), %d events of ~%d bytes, %d partitions%n", round,
                        round == 1 ? "warm-up" : "measured", n, BusCodec.encode(events.get(0)).length, PARTITIONS);
                codec(events);
                String rawTopic = "bench.raw." + round;
                String busTopic = "bench.bus." + round;
                TopicSetup.ensure(bootstrap, List.of(rawTopic, busTopic), PARTITIONS, (short) 1,
                        Duration.ofSeconds(60));
                double rawProduce = rawProduce(bootstrap, rawTopic, events);
                double busProduce = busProduce(bootstrap, busTopic, events);
                System.out.printf("produce  raw KafkaProducer %,10.0f msg/s | BusProducer %,10.0f msg/s | ratio %.2f%n",
                        rawProduce, busProduce, busProduce / rawProduce);
                double rawConsume = rawConsume(bootstrap, rawTopic, n, false);
                double rawDecode = rawConsume(bootstrap, rawTopic, n, true);
                System.out.printf("consume  raw poll loop %,10.0f msg/s | raw poll loop + BusCodec.decode %,10.0f msg/s%n",
                        rawConsume, rawDecode);
                double busFanOut = busConsume(bootstrap, busTopic, n, null);
                double busGroup = busConsume(bootstrap, busTopic, n, "bench-group-" + round);
                System.out.printf("consume  BusConsumer fan-out %,10.0f msg/s (ratio %.2f vs poll+decode, %.2f vs bare poll)"
                        + " | BusConsumer group %,10.0f msg/s (ratio %.2f vs poll+decode)%n",
                        busFanOut, busFanOut / rawDecode, busFanOut / rawConsume, busGroup, busGroup / rawDecode);
            }
        }
    }

    private static List<BusEvent> events(int n) {
        List<BusEvent> events = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            String cluster = "cluster-" + (i % 500);
            events.add(BusEvent.of(cluster, "infra-" + cluster, "host-" + (i % 3000),
                    new StepReplyReceived("free-network-addresses", "free-network-addresses-" + i, 0,
                            "[{\"network\":\"192.168.122.0/24\",\"free_addresses\":[\"192.168.122.10\"]}]", "")));
        }
        return events;
    }

    private static void codec(List<BusEvent> events) {
        long t0 = System.nanoTime();
        List<byte[]> encoded = new ArrayList<>(events.size());
        for (BusEvent e : events) {
            encoded.add(BusCodec.encode(e));
        }
        long t1 = System.nanoTime();
        for (byte[] b : encoded) {
            BusCodec.decode(b);
        }
        long t2 = System.nanoTime();
        System.out.printf("codec    encode %,10.0f ev/s | decode %,10.0f ev/s%n", rate(events.size(), t1 - t0),
                rate(events.size(), t2 - t1));
    }

    private static double rawProduce(String bootstrap, String topic, List<BusEvent> events) throws Exception {
        List<ProducerRecord<String, byte[]>> records = new ArrayList<>(events.size());
        for (BusEvent e : events) {
            records.add(new ProducerRecord<>(topic, e.partitionKey(), BusCodec.encode(e))); // pre-encoded: pure Kafka
        }
        Map<String, Object> conf = Map.of("bootstrap.servers", bootstrap, "acks", "all", "enable.idempotence", true,
                "linger.ms", 5, "batch.size", 128 * 1024, "compression.type", "lz4");
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(conf, new StringSerializer(),
                new ByteArraySerializer())) {
            long t0 = System.nanoTime();
            List<java.util.concurrent.Future<?>> acks = new ArrayList<>(records.size());
            for (ProducerRecord<String, byte[]> r : records) {
                acks.add(producer.send(r));
            }
            for (java.util.concurrent.Future<?> f : acks) {
                f.get(60, TimeUnit.SECONDS);
            }
            return rate(records.size(), System.nanoTime() - t0);
        }
    }

    private static double busProduce(String bootstrap, String topic, List<BusEvent> events) throws Exception {
        try (BusProducer producer = new BusProducer(bootstrap, "bench")) {
            long t0 = System.nanoTime();
            CompletableFuture<?>[] acks = new CompletableFuture<?>[events.size()];
            for (int i = 0; i < events.size(); i++) {
                acks[i] = producer.publish(topic, events.get(i)); // includes JSON encoding
            }
            CompletableFuture.allOf(acks).get(60, TimeUnit.SECONDS);
            return rate(events.size(), System.nanoTime() - t0);
        }
    }

    private static double rawConsume(String bootstrap, String topic, int n, boolean decode) {
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(Map.of("bootstrap.servers", bootstrap),
                new StringDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> tps = new ArrayList<>();
            for (PartitionInfo p : consumer.partitionsFor(topic)) {
                tps.add(new TopicPartition(topic, p.partition()));
            }
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            long t0 = System.nanoTime();
            int seen = 0;
            while (seen < n) {
                for (var record : consumer.poll(Duration.ofMillis(100))) {
                    if (decode) {
                        BusCodec.decode(record.value());
                    }
                    seen++;
                }
            }
            return rate(n, System.nanoTime() - t0);
        }
    }

    private static double busConsume(String bootstrap, String topic, int n, String group) throws Exception {
        BusConsumer.Builder b = BusConsumer.builder(bootstrap).topics(List.of(topic))
                .startFrom(BusConsumer.StartFrom.EARLIEST)
                .handler(e -> CompletableFuture.completedFuture(null));
        if (group != null) {
            b.groupId(group);
        }
        long t0 = System.nanoTime();
        try (BusConsumer consumer = b.start()) {
            while (consumer.handledCount() < n) {
                Thread.sleep(5);
            }
            return rate(n, System.nanoTime() - t0); // includes start-up (and the group join)
        }
    }

    private static double rate(int n, long nanos) {
        return n / (nanos / 1e9);
    }
}
