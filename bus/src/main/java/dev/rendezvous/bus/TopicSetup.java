package dev.rendezvous.bus;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Creates the project's topics and tells whether the bus is usable. */
public final class TopicSetup {
    /** How long every project topic keeps records (a replay window; the brain's ledger keeps ids a day longer). */
    public static final Duration RETENTION = Duration.ofDays(7);


    private static final Logger LOG = LoggerFactory.getLogger(TopicSetup.class);

    private TopicSetup() {
    }

    /**
     * Creates every missing topic of {@link Topics#all()} with {@code partitions} partitions and
     * {@code replication} replicas, then waits until {@code listOffsets(latest)} answers for every partition of
     * every project topic: producing to a topic whose partitions are not fully up can lose records (KAFKA-15591).
     * Existing topics are left as they are. Idempotent; safe to run from several instances at once.
     *
     * @throws TimeoutException when the broker or the partitions are not ready within {@code timeout}
     */
    public static void ensure(String bootstrapServers, int partitions, short replication, Duration timeout)
            throws Exception {
        ensure(bootstrapServers, Topics.all(), partitions, replication, timeout);
    }

    /** {@link #ensure(String, int, short, Duration)} for an explicit topic list. */
    public static void ensure(String bootstrapServers, List<String> topics, int partitions, short replication,
            Duration timeout) throws Exception {
        if (partitions < 1 || replication < 1) {
            throw new IllegalArgumentException("partitions and replication must be >= 1, got " + partitions + " and "
                    + replication);
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        try (Admin admin = admin(bootstrapServers, timeout)) {
            Set<String> existing = admin.listTopics().names().get(remaining(deadline), TimeUnit.NANOSECONDS);
            List<NewTopic> missing = new ArrayList<>();
            for (String topic : topics) {
                if (!existing.contains(topic)) {
                    missing.add(new NewTopic(topic, partitions, replication)
                            .configs(Map.of("retention.ms", Long.toString(RETENTION.toMillis()))));
                }
            }
            if (!missing.isEmpty()) {
                var results = admin.createTopics(missing).values();
                for (var entry : results.entrySet()) {
                    try {
                        entry.getValue().get(remaining(deadline), TimeUnit.NANOSECONDS);
                        LOG.debug("created topic {} ({} partitions, replication {})", entry.getKey(), partitions,
                                replication);
                    } catch (ExecutionException e) {
                        if (!(e.getCause() instanceof TopicExistsException)) {
                            throw e;
                        }
                        // another instance created it meanwhile: fine
                    }
                }
            }
            awaitPartitionsAnswer(admin, topics, deadline);
        }
    }

    /**
     * True when the broker answers and every project topic exists, within {@code timeout}; false otherwise.
     * Never throws and never waits much longer than {@code timeout}.
     */
    public static boolean ready(String bootstrapServers, Duration timeout) {
        Admin admin = null;
        try {
            admin = admin(bootstrapServers, timeout);
            Set<String> names = admin.listTopics(new ListTopicsOptions().timeoutMs(millis(timeout)))
                    .names().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return names.containsAll(Topics.all());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (Exception e) {
            LOG.debug("bus not ready at {}: {}", bootstrapServers, e.toString());
            return false;
        } finally {
            if (admin != null) {
                admin.close(Duration.ofMillis(100));
            }
        }
    }

    private static void awaitPartitionsAnswer(Admin admin, List<String> topics, long deadline) throws Exception {
        while (true) {
            try {
                Map<String, TopicDescription> descriptions = admin.describeTopics(topics).allTopicNames()
                        .get(remaining(deadline), TimeUnit.NANOSECONDS);
                Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
                descriptions.forEach((topic, description) -> description.partitions().forEach(
                        p -> latest.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest())));
                admin.listOffsets(latest).all().get(remaining(deadline), TimeUnit.NANOSECONDS);
                return;
            } catch (ExecutionException e) {
                // partitions without a leader yet answer with a retriable error: ask again until the deadline
                if (System.nanoTime() >= deadline) {
                    throw new TimeoutException("topic partitions not ready: " + e.getCause());
                }
                LOG.debug("waiting for partitions of {}: {}", topics, e.getCause().toString());
                Thread.sleep(50);
            }
        }
    }

    private static Admin admin(String bootstrapServers, Duration timeout) {
        int ms = millis(timeout);
        return Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                AdminClientConfig.CLIENT_ID_CONFIG, "rdv-topic-setup",
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, ms,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, ms,
                // a dead address must not keep retrying in the background after we gave up
                AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 1000));
    }

    private static long remaining(long deadline) throws TimeoutException {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            throw new TimeoutException("bus setup timed out");
        }
        return left;
    }

    private static int millis(Duration d) {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, d.toMillis()));
    }
}
