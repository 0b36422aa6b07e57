package dev.rendezvous.bus;

import dev.rendezvous.bus.PartitionOffsets.PartitionState;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A group-mode {@link BusConsumer}'s partitions coming and going: a revoked partition's handlers are awaited and its
 * offsets committed before it goes. Poll-thread only (Kafka calls it from within poll and close).
 */
final class ConsumerRebalance implements ConsumerRebalanceListener {

    private static final Logger LOG = LoggerFactory.getLogger(BusConsumer.class); // logs as the consumer

    private final BusConsumer.Builder config;
    private final String name;
    private final KafkaConsumer<String, byte[]> consumer;
    private final PartitionOffsets partitions;
    private final ConsumerLanes lanes;
    private final HandlerAttempts attempts;
    private final CompletableFuture<Void> started;

    ConsumerRebalance(BusConsumer.Builder config, String name, KafkaConsumer<String, byte[]> consumer,
            PartitionOffsets partitions, ConsumerLanes lanes, HandlerAttempts attempts,
            CompletableFuture<Void> started) {
        this.config = config;
        this.name = name;
        this.consumer = consumer;
        this.partitions = partitions;
        this.lanes = lanes;
        this.attempts = attempts;
        this.started = started;
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> revoked) {
        List<PartitionState> states = new ArrayList<>();
        for (TopicPartition tp : revoked) {
            PartitionState ps = partitions.get(tp);
            if (ps != null) {
                states.add(ps);
            }
        }
        if (states.isEmpty()) {
            return;
        }
        attempts.awaitInFlight(states, config.revokeTimeout);
        partitions.commitSync(partitions.takeDirtyOffsets(states));
        partitions.remove(revoked, lanes::leave);
        LOG.info("bus consumer {}: revoked {}", name, revoked);
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> lost) {
        partitions.remove(lost, lanes::leave); // another member owns them already: committing would be wrong
        LOG.warn("bus consumer {}: lost {}", name, lost);
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> assigned) {
        for (TopicPartition tp : assigned) {
            if (!partitions.owns(tp)) {
                partitions.add(tp, lanes.join(tp));
            }
            BusConsumer.retryOnWakeup(() -> consumer.position(tp));
        }
        LOG.debug("bus consumer {}: assigned {}", name, assigned);
        started.complete(null);
    }
}
