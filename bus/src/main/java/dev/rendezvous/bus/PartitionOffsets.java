package dev.rendezvous.bus;

import dev.rendezvous.bus.ConsumerLanes.Lane;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The partitions a {@link BusConsumer} owns, each with the offset to commit next, and the commits of those offsets.
 * Poll-thread only, except {@link #assignment()} (a volatile snapshot) and {@link #commitCount()}, read by any thread.
 */
final class PartitionOffsets {

    private static final Logger LOG = LoggerFactory.getLogger(BusConsumer.class); // logs as the consumer

    private final BusConsumer.Builder config;
    private final String name;
    private final KafkaConsumer<String, byte[]> consumer;
    private final AtomicLong committed = new AtomicLong();
    /** Snapshot of the partitions currently owned, replaced by the poll thread on every change. */
    private volatile Set<TopicPartition> assignment = Set.of();

    // poll-thread state only
    private final Map<TopicPartition, PartitionState> partitions = new HashMap<>();
    private long lastCommitNanos;

    /** {@code createdNanos}: when the consumer was created (nanoTime), the start of the first commit interval. */
    PartitionOffsets(BusConsumer.Builder config, String name, KafkaConsumer<String, byte[]> consumer,
            long createdNanos) {
        this.config = config;
        this.name = name;
        this.consumer = consumer;
        this.lastCommitNanos = createdNanos;
    }

    /** The partitions currently owned (an immutable snapshot; a new object after every change). */
    Set<TopicPartition> assignment() {
        return assignment;
    }

    /** Successful offset commits so far (group mode). */
    long commitCount() {
        return committed.get();
    }

    PartitionState get(TopicPartition tp) {
        return partitions.get(tp);
    }

    boolean owns(TopicPartition tp) {
        return partitions.containsKey(tp);
    }

    /** The owned partitions' states (a live view). */
    Collection<PartitionState> states() {
        return partitions.values();
    }

    /** The owned partitions (a live view). */
    Set<TopicPartition> owned() {
        return partitions.keySet();
    }

    /** Takes {@code tp} on, its records handled in {@code lane}. */
    void add(TopicPartition tp, Lane lane) {
        partitions.put(tp, new PartitionState(tp, lane));
        assignment = Set.copyOf(partitions.keySet());
    }

    /** Gives {@code tps} up: each owned one is marked revoked and handed to {@code leaveLane}. */
    void remove(Collection<TopicPartition> tps, Consumer<PartitionState> leaveLane) {
        for (TopicPartition tp : tps) {
            PartitionState ps = partitions.remove(tp);
            if (ps == null) {
                continue;
            }
            ps.revoked = true;
            leaveLane.accept(ps);
        }
        assignment = Set.copyOf(partitions.keySet());
    }

    void commitIfDue(boolean sync) {
        if (config.groupId == null) {
            return;
        }
        if (!sync && System.nanoTime() - lastCommitNanos < config.commitInterval.toNanos()) {
            return;
        }
        Map<TopicPartition, OffsetAndMetadata> offsets = takeDirtyOffsets(partitions.values());
        if (offsets.isEmpty()) {
            return;
        }
        lastCommitNanos = System.nanoTime();
        if (sync) {
            commitSync(offsets);
        } else {
            consumer.commitAsync(offsets, (done, error) -> {
                if (error != null) {
                    LOG.warn("bus consumer {}: async commit failed, will retry: {}", name, error.toString());
                    offsets.keySet().forEach(tp -> {
                        PartitionState ps = partitions.get(tp);
                        if (ps != null) {
                            ps.dirty = true;
                        }
                    });
                } else {
                    committed.incrementAndGet();
                }
            });
        }
    }

    Map<TopicPartition, OffsetAndMetadata> takeDirtyOffsets(Collection<PartitionState> states) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (PartitionState ps : states) {
            if (ps.dirty) {
                offsets.put(ps.tp, new OffsetAndMetadata(ps.nextOffset));
                ps.dirty = false;
            }
        }
        return offsets;
    }

    void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets) {
        if (offsets.isEmpty()) {
            return;
        }
        try {
            BusConsumer.retryOnWakeup(() -> {
                consumer.commitSync(offsets, Duration.ofSeconds(10));
                return null;
            });
            committed.incrementAndGet();
        } catch (RuntimeException e) {
            LOG.warn("bus consumer {}: commit of {} failed (records will be handled again): {}", name, offsets,
                    e.toString());
        }
    }

    /** An owned partition: its lane, the offset to commit next, its fetched-but-unhandled records. Poll-thread only. */
    static final class PartitionState {
        final TopicPartition tp;
        final Lane lane;
        long nextOffset;
        boolean dirty;
        boolean paused;
        boolean revoked;
        int buffered;
        long bufferedBytes;
        /** Offset and timestamp of each fetched-but-unhandled record, oldest first. */
        final java.util.ArrayDeque<long[]> pending = new java.util.ArrayDeque<>();
        /** The timestamp of the last record handled (-1: none since the partition was taken on). */
        long lastHandledTimestamp = -1;

        PartitionState(TopicPartition tp, Lane lane) {
            this.tp = tp;
            this.lane = lane;
        }
    }
}
