package dev.rendezvous.bus;

import dev.rendezvous.bus.PartitionOffsets.PartitionState;
import dev.rendezvous.bus.event.UnknownPayload;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link BusConsumer}'s lanes (the queues whose records are handled one at a time, in order) and their dispatch:
 * batches, the in-flight cap, the poll's timeout. Poll-thread only.
 */
final class ConsumerLanes {

    private static final Logger LOG = LoggerFactory.getLogger(BusConsumer.class); // logs as the consumer

    private final BusConsumer.Builder config;
    private final String name;
    private final BooleanSupplier running;
    private final AtomicLong skipped;
    private final AtomicLong refused;
    private final HandlerAttempts attempts;

    // poll-thread state only
    private final Map<Object, Lane> lanes = new HashMap<>();

    /** {@code running}: false once the consumer closes; {@code attempts} starts the records dispatched. */
    ConsumerLanes(BusConsumer.Builder config, String name, BooleanSupplier running, AtomicLong skipped,
            AtomicLong refused, HandlerAttempts attempts) {
        this.config = config;
        this.name = name;
        this.running = running;
        this.skipped = skipped;
        this.refused = refused;
        this.attempts = attempts;
    }

    /** The lane of a partition taken on (one per partition, or per partition number across topics); counts it in. */
    Lane join(TopicPartition tp) {
        Object laneKey = config.orderAcrossTopics ? (Object) tp.partition() : tp;
        Lane lane = lanes.computeIfAbsent(laneKey, k -> new Lane());
        lane.members++;
        return lane;
    }

    /** Drops a partition given up from its lane (and the lane when it was the last one). */
    void leave(PartitionState ps) {
        Lane lane = ps.lane;
        lane.queue.removeIf(p -> p.ps == ps);
        if (lane.inFlight != null && lane.inFlight.touches(ps)) {
            lane.inFlight = null;
        }
        if (--lane.members == 0) {
            lanes.values().remove(lane);
        }
    }

    void enqueue(ConsumerRecords<String, byte[]> records, PartitionOffsets partitions) {
        for (ConsumerRecord<String, byte[]> record : records) {
            PartitionState ps = partitions.get(new TopicPartition(record.topic(), record.partition()));
            if (ps == null) {
                continue; // revoked between fetch and here: the new owner reads it
            }
            ps.buffered++;
            ps.bufferedBytes += size(record);
            ps.pending.add(new long[] {record.offset(), record.timestamp()});
            ps.lane.queue.add(new Pending(record, ps));
        }
    }

    private static long size(ConsumerRecord<String, byte[]> record) {
        return Math.max(0, record.serializedValueSize()) + Math.max(0, record.serializedKeySize());
    }

    /** Starts the next record of every idle lane (oldest first under the in-flight cap); true when something moved. */
    boolean dispatchIdle() {
        if (config.maxInFlight > 0) {
            return dispatchOldestFirst();
        }
        boolean any = false;
        for (Lane lane : lanes.values()) {
            any |= dispatch(lane);
        }
        return any;
    }

    /**
     * With {@link BusConsumer.Builder#maxInFlight}: starts idle lanes, the one whose next record has waited longest
     * first, while fewer than that many lanes are in flight, or when that record has waited
     * {@link BusConsumer.Builder#maxInFlight}'s bound (a lane held up by a slow batch of another does not wait on it
     * longer). A lane that waits gathers what arrives meanwhile into its next batch. Sets {@link #lingerUntil}: when a
     * held-back lane is due ({@code Long.MAX_VALUE}: none waits).
     */
    private boolean dispatchOldestFirst() {
        boolean any = false;
        while (true) {
            int inFlight = 0;
            Lane oldest = null;
            for (Lane lane : lanes.values()) {
                if (lane.inFlight != null) {
                    inFlight++;
                } else if (!held(lane) && !lane.queue.isEmpty()
                        && (oldest == null || lane.queue.peek().enqueuedAt - oldest.queue.peek().enqueuedAt < 0)) {
                    oldest = lane;
                }
            }
            if (oldest == null) {
                lingerUntil = Long.MAX_VALUE;
                return any;
            }
            long due = oldest.queue.peek().enqueuedAt + config.maxWait.toNanos();
            if (inFlight >= config.maxInFlight && due - System.nanoTime() > 0) {
                lingerUntil = due;
                return any;
            }
            if (!dispatch(oldest)) {
                return any;
            }
            any = true;
        }
    }

    /** When a lane held back by {@link BusConsumer.Builder#maxInFlight} is to be started anyway (nanoTime). */
    private long lingerUntil = Long.MAX_VALUE;

    /** The poll's timeout: shorter when a held-back lane is due before it ends. */
    Duration pollTimeout() {
        if (lingerUntil == Long.MAX_VALUE) {
            return config.pollTimeout;
        }
        long left = TimeUnit.NANOSECONDS.toMillis(lingerUntil - System.nanoTime()) + 1;
        return left >= config.pollTimeout.toMillis() ? config.pollTimeout : Duration.ofMillis(Math.max(1, left));
    }

    /** Starts the lane's next record if the lane is idle; true when something happened. */
    private boolean dispatch(Lane lane) {
        boolean any = false;
        while (running.getAsBoolean() && lane.inFlight == null && !held(lane) && !lane.queue.isEmpty()) {
            Pending p = lane.queue.poll();
            if (p.ps.revoked) {
                continue;
            }
            any = true;
            lane.inFlight = p;
            Readable r = decoded(p);
            if (r == Readable.FROM_THE_FUTURE) {
                hold(lane, p);
                continue;
            }
            if (r == Readable.NO) {
                finish(p);
                continue;
            }
            if (config.batchHandler != null && !p.single) {
                p = batch(lane, p);
                lane.inFlight = p;
            }
            attempts.start(p);
        }
        return any;
    }

    /** The lane's first record with every decodable record queued behind it (up to the batch size), as one. */
    private Pending batch(Lane lane, Pending first) {
        if (lane.queue.isEmpty() || config.maxBatch <= 1) {
            return first;
        }
        List<Pending> members = new ArrayList<>();
        members.add(first);
        long bytes = valueBytes(first);
        while (members.size() < config.maxBatch && bytes < config.maxBatchBytes && !lane.queue.isEmpty()
                && !lane.queue.peek().single) {
            Pending p = lane.queue.poll();
            if (p.ps.revoked) {
                continue;
            }
            Readable r = decoded(p);
            if (r == Readable.FROM_THE_FUTURE) {
                lane.queue.addFirst(p); // the batch ends before it; the lane holds at it next
                break;
            }
            if (r == Readable.NO) {
                finishMember(p);
                continue;
            }
            members.add(p);
            bytes += valueBytes(p);
        }
        if (members.size() == 1) {
            return first;
        }
        Pending group = new Pending(members.get(members.size() - 1).record, first.ps);
        group.members = members;
        group.event = first.event; // what logs name the batch by
        return group;
    }

    private static long valueBytes(Pending p) {
        byte[] v = p.record.value();
        return v == null ? 0 : v.length;
    }

    enum Readable { YES, NO, FROM_THE_FUTURE }

    /**
     * Decodes the record's event (once). {@code NO}, logged at ERROR and counted as skipped, when the record is not an
     * event at all; {@code FROM_THE_FUTURE} when a newer build wrote it: a payload type this build does not know, or a
     * payload version above the one it reads (the caller holds the lane, see {@link #hold}).
     */
    private Readable decoded(Pending p) {
        if (p.event == null) {
            try {
                p.event = BusCodec.decode(p.record.value());
            } catch (RuntimeException e) {
                LOG.error("bus consumer {}: skipping undecodable record at {}@{}: {}", name, p.ps.tp,
                        p.record.offset(), e.getMessage());
                skipped.incrementAndGet();
                return Readable.NO;
            }
        }
        if (p.event.payload() instanceof UnknownPayload
                || p.event.payloadVersion() > p.event.payload().schemaVersion()) {
            return Readable.FROM_THE_FUTURE;
        }
        return Readable.YES;
    }

    /**
     * A record a newer build wrote (rolling upgrade: its instance and this one share the bus). In a consumer group it
     * is not skipped and not committed: its lane waits at it (the records behind it too, in order) until the
     * partition goes to an instance that reads it, as it does when this older instance stops. Said loudly, once per
     * hold: an ERROR line and {@code rdv_bus_records_refused_total}. A fan-out reader (every instance reads every
     * record, nothing is committed) skips it as loudly, as the newer instances read it anyway.
     */
    private void hold(Lane lane, Pending p) {
        refused.incrementAndGet();
        String what = p.event.payload() instanceof UnknownPayload ? "payload type '" + p.event.type() + "'"
                : "version " + p.event.payloadVersion() + " of '" + p.event.type() + "' (this build reads up to "
                + p.event.payload().schemaVersion() + ")";
        if (config.groupId == null) {
            LOG.error("bus consumer {}: skipping event {} at {}@{}: {} was written by a newer build", name,
                    p.event.eventId(), p.ps.tp, p.record.offset(), what);
            skipped.incrementAndGet();
            finish(p);
            return;
        }
        LOG.error("bus consumer {}: holding {} at offset {} (event {}): {} was written by a newer build; the partition "
                + "waits for an instance that reads it (upgrade this one)", name, p.ps.tp, p.record.offset(),
                p.event.eventId(), what);
        lane.inFlight = null;
        lane.queue.addFirst(p);
        lane.heldAt = p;
    }

    /** Whether the lane waits at a record from a newer build (not once its partition has gone elsewhere). */
    private static boolean held(Lane lane) {
        if (lane.heldAt != null && lane.heldAt.ps.revoked) {
            lane.heldAt = null;
        }
        return lane.heldAt != null;
    }

    // static: these touch only the pending's own lane and partition

    /** The record (or every record of the batch) is done with: its offset may be committed, its lane moves on. */
    static void finish(Pending p) {
        if (p.members != null) {
            p.members.forEach(ConsumerLanes::finishMember);
            p.running = false;
            if (p.ps.lane.inFlight == p) {
                p.ps.lane.inFlight = null;
            }
            return;
        }
        finishMember(p);
    }

    /** A failed batch's records go back to the front of their lane, to be handled one at a time. */
    static void split(Pending group) {
        Lane lane = group.ps.lane;
        if (lane.inFlight == group) {
            lane.inFlight = null;
        }
        List<Pending> members = group.members;
        for (int i = members.size() - 1; i >= 0; i--) {
            Pending m = members.get(i);
            m.single = true;
            m.attempts = 0;
            m.running = false;
            if (!m.ps.revoked) {
                lane.queue.addFirst(m);
            }
        }
    }

    private static void finishMember(Pending p) {
        p.running = false;
        PartitionState ps = p.ps;
        ps.buffered--;
        ps.bufferedBytes -= size(p.record);
        ps.nextOffset = p.record.offset() + 1;
        ps.dirty = true;
        while (!ps.pending.isEmpty() && ps.pending.peekFirst()[0] < ps.nextOffset) {
            ps.lastHandledTimestamp = ps.pending.pollFirst()[1];
        }
        if (ps.lane.inFlight == p) {
            ps.lane.inFlight = null;
        }
    }

    // -------------------------------------------------------------------------------------------- state records

    /** The records of one partition (or partition number across topics), handled one at a time. Poll-thread only. */
    static final class Lane {
        final ArrayDeque<Pending> queue = new ArrayDeque<>();
        Pending inFlight;
        /** The record from a newer build the lane waits at, or null. */
        Pending heldAt;
        int members;
    }

    /** A fetched record (or a batch of them) on its way through a lane. Poll-thread only. */
    static final class Pending {
        final ConsumerRecord<String, byte[]> record;
        final PartitionState ps;
        BusEvent event;
        int attempts;
        boolean running;
        /** A batch: its records in order (this pending stands for them all); null for a single record. */
        List<Pending> members;
        /** Handed over alone even in batch mode (its batch failed). */
        boolean single;

        /**
         * When it was fetched (nanoTime): lanes capped by {@link BusConsumer.Builder#maxInFlight} start oldest first.
         */
        final long enqueuedAt = System.nanoTime();

        Pending(ConsumerRecord<String, byte[]> record, PartitionState ps) {
            this.record = record;
            this.ps = ps;
        }

        List<BusEvent> events() {
            List<BusEvent> out = new ArrayList<>(members.size());
            members.forEach(m -> out.add(m.event));
            return out;
        }

        boolean touches(PartitionState state) {
            if (members == null) {
                return ps == state;
            }
            for (Pending m : members) {
                if (m.ps == state) {
                    return true;
                }
            }
            return false;
        }

        boolean revoked() {
            if (members == null) {
                return ps.revoked;
            }
            for (Pending m : members) {
                if (m.ps.revoked) {
                    return true;
                }
            }
            return false;
        }
    }
}
