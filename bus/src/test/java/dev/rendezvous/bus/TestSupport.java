package dev.rendezvous.bus;

import dev.rendezvous.bus.event.StepReplyReceived;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

final class TestSupport {
    private TestSupport() {
    }

    /** Polls {@code condition} until true or fails with {@code what} and the last observed state. */
    static void await(Duration timeout, BooleanSupplier condition, Supplier<String> what) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout + " waiting for: " + what.get());
            }
            Thread.sleep(20);
        }
    }

    /** The committed offset of {@code group} on partition 0 of {@code topic}, -1 when none. */
    static long committedOffset(String group, String topic, int partition) {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", SharedKafka.bootstrap()))) {
            Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS);
            OffsetAndMetadata om = offsets.get(new TopicPartition(topic, partition));
            return om == null ? -1 : om.offset();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** A step-reply event for cluster {@code key} whose step id carries a sequence number. */
    static BusEvent reply(String key, int seq) {
        return BusEvent.of(key, "infra-" + key, "host-" + key,
                new StepReplyReceived("inventory", "inventory-" + seq, 0, "{\"seq\":" + seq + "}", null));
    }

    static int seq(BusEvent event) {
        String stepId = ((StepReplyReceived) event.payload()).stepId();
        return Integer.parseInt(stepId.substring(stepId.indexOf('-') + 1));
    }
}
