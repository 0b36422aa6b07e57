package dev.rendezvous.bus;

import dev.rendezvous.bus.PartitionOffsets.PartitionState;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * A {@link BusConsumer}'s back-pressure (pauses partitions holding too many fetched-but-unhandled records, resumes them
 * at half) and backlog measure. Poll-thread only, except the volatile measures, read by any thread.
 */
final class BackPressure {

    private final BusConsumer.Builder config;
    private final KafkaConsumer<String, byte[]> consumer;
    /** Records on the broker not yet handled here (lag of the owned partitions plus fetched-but-unhandled). */
    private volatile long backlog;
    private volatile long bufferedBytes;
    private volatile java.util.Map<Integer, Long> handledThrough = java.util.Map.of();

    BackPressure(BusConsumer.Builder config, KafkaConsumer<String, byte[]> consumer) {
        this.config = config;
        this.consumer = consumer;
    }

    /** See {@link BusConsumer#backlog()}. */
    long backlog() {
        return backlog;
    }

    /** See {@link BusConsumer#handledThrough()}. */
    java.util.Map<Integer, Long> handledThrough() {
        return handledThrough;
    }

    /** See {@link BusConsumer#bufferedBytes()}. */
    long bufferedBytes() {
        return bufferedBytes;
    }

    void measureBacklog(Collection<PartitionState> partitions) {
        long total = 0;
        java.util.Map<Integer, Long> through = new java.util.HashMap<>();
        for (PartitionState ps : partitions) {
            total += ps.buffered;
            java.util.OptionalLong lag = consumer.currentLag(ps.tp); // from fetch metadata, no broker round trip
            if (lag.isPresent()) {
                total += lag.getAsLong();
            }
            // every record written before the oldest unhandled one is handled; with none fetched but some on the broker
            // (or the lag not known yet: no fetch since the partition was taken on), what was handled last (nothing
            // yet: 0, nothing vouched for)
            long[] oldest = ps.pending.peekFirst();
            long t = oldest != null ? oldest[1] - 1
                    : lag.isPresent() && lag.getAsLong() == 0 ? Long.MAX_VALUE : Math.max(0, ps.lastHandledTimestamp);
            through.merge(ps.tp.partition(), t, Math::min);
        }
        backlog = total;
        handledThrough = java.util.Map.copyOf(through);
        long bytes = 0;
        for (PartitionState ps : partitions) {
            bytes += ps.bufferedBytes;
        }
        bufferedBytes = bytes;
    }

    void applyBackPressure(Collection<PartitionState> partitions) {
        List<TopicPartition> pause = new ArrayList<>();
        List<TopicPartition> resume = new ArrayList<>();
        long total = 0;
        for (PartitionState ps : partitions) {
            total += ps.bufferedBytes;
        }
        boolean full = total >= config.maxBufferedBytes;
        boolean roomAgain = total <= config.maxBufferedBytes / 2;
        for (PartitionState ps : partitions) {
            if (!ps.paused && (ps.buffered >= config.maxBufferedPerPartition
                    || ps.bufferedBytes >= config.maxBufferedBytesPerPartition || full && ps.bufferedBytes > 0)) {
                ps.paused = true;
                pause.add(ps.tp);
            } else if (ps.paused && ps.buffered <= config.maxBufferedPerPartition / 2
                    && ps.bufferedBytes <= config.maxBufferedBytesPerPartition / 2 && roomAgain) {
                ps.paused = false;
                resume.add(ps.tp);
            }
        }
        if (!pause.isEmpty()) {
            consumer.pause(pause);
        }
        if (!resume.isEmpty()) {
            consumer.resume(resume);
        }
    }
}
