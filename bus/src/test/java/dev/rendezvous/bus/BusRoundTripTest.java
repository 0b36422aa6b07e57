package dev.rendezvous.bus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.bus.event.BusPayload;
import dev.rendezvous.bus.event.UnknownPayload;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;

class BusRoundTripTest {

    @Test
    void everyPayloadTypeTravelsOnItsTopicKeyedByItsPartitionKey() throws Exception {
        String bootstrap = SharedKafka.bootstrap();
        Map<String, BusEvent> received = new ConcurrentHashMap<>();
        List<BusEvent> sent = new ArrayList<>();
        for (BusPayload payload : SamplePayloads.all()) {
            sent.add(SamplePayloads.eventFor(payload));
        }
        // an unbound host's event is keyed by its infra-env
        sent.add(BusEvent.of(null, SamplePayloads.INFRA_ENV, SamplePayloads.HOST, SamplePayloads.all().get(0)));
        try (BusConsumer consumer = BusConsumer.fanOut(bootstrap, Topics.all(), BusConsumer.StartFrom.LATEST, e -> {
            received.put(e.eventId(), e);
            return CompletableFuture.completedFuture(null);
        }); BusProducer producer = new BusProducer(bootstrap, "roundtrip")) {
            consumer.started().get(30, TimeUnit.SECONDS);
            for (BusEvent event : sent) {
                RecordMetadata md = producer.publish(event).get(30, TimeUnit.SECONDS);
                assertEquals(Topics.topicFor(event), md.topic());
                byte[] key = event.partitionKey().getBytes(StandardCharsets.UTF_8);
                assertEquals(Utils.toPositive(Utils.murmur2(key)) % SharedKafka.PARTITIONS, md.partition(),
                        "partition of " + event.type());
            }
            TestSupport.await(Duration.ofSeconds(30), () -> received.size() >= sent.size(),
                    () -> received.size() + " of " + sent.size() + " received");
            for (BusEvent event : sent) {
                assertEquals(event, received.get(event.eventId()), event.type());
            }
        }
    }

    @Test
    void publishFailuresCompleteTheFutureExceptionally() throws Exception {
        String bootstrap = SharedKafka.bootstrap();
        BusEvent event = SamplePayloads.eventFor(SamplePayloads.all().get(1));
        try (BusProducer producer = new BusProducer(bootstrap, "failing", Map.of("max.block.ms", 1000))) {
            ExecutionException noTopic = assertThrows(ExecutionException.class,
                    () -> producer.publish("no.such.topic." + System.nanoTime(), event).get(20, TimeUnit.SECONDS));
            assertTrue(noTopic.getCause() instanceof org.apache.kafka.common.errors.TimeoutException,
                    noTopic.getCause().toString());
            BusEvent unknown = BusEvent.ofCluster("c", new UnknownPayload("from_the_future"));
            ExecutionException refused = assertThrows(ExecutionException.class,
                    () -> producer.publish(Topics.EVENTS, unknown).get(5, TimeUnit.SECONDS));
            assertInstanceOf(IllegalArgumentException.class, refused.getCause());
            producer.close();
            ExecutionException closed = assertThrows(ExecutionException.class,
                    () -> producer.publish(event).get(5, TimeUnit.SECONDS));
            assertInstanceOf(IllegalStateException.class, closed.getCause());
        }
    }
}
