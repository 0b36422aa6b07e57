package dev.rendezvous.bus;

import dev.rendezvous.bus.event.UnknownPayload;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes {@link BusEvent}s, keyed by {@link BusEvent#partitionKey()}, with an idempotent {@code acks=all}
 * producer. Thread-safe; share one per process.
 *
 * <p>{@link #publish} never blocks its caller (safe on a Vert.x event loop): {@code KafkaProducer.send} can block
 * on metadata or a full buffer, so sends run on one dedicated thread, which also keeps the publish order of a
 * caller. The returned future completes on a Kafka or producer thread: hop back to your own context before
 * touching context-bound state. Every failure (encoding, broker, timeout, backlog full, closed) completes the
 * future exceptionally; nothing is dropped silently.
 */
public final class BusProducer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(BusProducer.class);
    /** Publishes accepted but not yet handed to Kafka; beyond this, publish fails fast (back-pressure). */
    private static final int MAX_BACKLOG = 100_000;

    private final KafkaProducer<String, byte[]> producer;
    private final ThreadPoolExecutor sender;
    private final String clientId;
    private volatile boolean closed;

    public BusProducer(String bootstrapServers, String clientId) {
        this(bootstrapServers, clientId, Map.of());
    }

    /** With extra producer settings ({@link ProducerConfig} names) overriding the defaults. */
    public BusProducer(String bootstrapServers, String clientId, Map<String, Object> overrides) {
        this.clientId = clientId;
        Map<String, Object> conf = new HashMap<>();
        conf.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        conf.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        conf.put(ProducerConfig.ACKS_CONFIG, "all");
        conf.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        // One request in flight and no linger: a durable broker writes each append to disk before it answers (an
        // fsync per partition per request), and what arrives meanwhile waits in the accumulator and goes in the next
        // request together, so one fsync serves all of it (a group commit). With five in flight and 1 ms of linger,
        // each small batch paid its own fsync, queued behind the others': 100 hosts under 16 connections ~3,450 ->
        // ~3,940 replies/s, the 256-connection rows no slower (docs/benchmarks.md, session 44). An agent's reply is
        // answered only once acked, so a linger is waited out: 5 ms had halved the 16-connection rows (session 39).
        conf.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
        conf.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        conf.put(ProducerConfig.BATCH_SIZE_CONFIG, 128 * 1024);
        conf.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        conf.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 60_000);
        conf.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 15_000);
        conf.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000);
        conf.putAll(overrides);
        this.producer = new KafkaProducer<>(conf, new StringSerializer(), new ByteArraySerializer());
        this.sender = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(MAX_BACKLOG),
                r -> {
                    Thread t = new Thread(r, "rdv-bus-producer-" + clientId);
                    t.setDaemon(true);
                    return t;
                });
    }

    /** Publishes on the topic of the event's payload type ({@link Topics#topicFor(BusEvent)}). */
    public CompletableFuture<RecordMetadata> publish(BusEvent event) {
        try {
            return publish(Topics.topicFor(event), event);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Publishes {@code event} on {@code topic}, keyed by its partition key; completes once the broker acked. */
    public CompletableFuture<RecordMetadata> publish(String topic, BusEvent event) {
        CompletableFuture<RecordMetadata> result = new CompletableFuture<>();
        if (closed) {
            result.completeExceptionally(new IllegalStateException("bus producer " + clientId + " is closed"));
            return result;
        }
        if (event.payload() instanceof UnknownPayload) {
            result.completeExceptionally(new IllegalArgumentException(
                    "refusing to publish event " + event.eventId() + " with unknown payload type " + event.type()));
            return result;
        }
        final byte[] value;
        try {
            value = BusCodec.encode(event);
        } catch (RuntimeException e) {
            result.completeExceptionally(e);
            return result;
        }
        ProducerRecord<String, byte[]> record = new ProducerRecord<>(topic, event.partitionKey(), value);
        try {
            sender.execute(new SendTask(record, event, result));
        } catch (RejectedExecutionException e) {
            result.completeExceptionally(new IllegalStateException(sender.isShutdown()
                    ? "bus producer " + clientId + " is closed"
                    : "bus producer " + clientId + " backlog full (" + MAX_BACKLOG + " events)", e));
        }
        return result;
    }

    /** One queued send; a task still queued when the producer is force-closed fails its future. */
    private final class SendTask implements Runnable {
        final ProducerRecord<String, byte[]> record;
        final BusEvent event;
        final CompletableFuture<RecordMetadata> result;

        SendTask(ProducerRecord<String, byte[]> record, BusEvent event, CompletableFuture<RecordMetadata> result) {
            this.record = record;
            this.event = event;
            this.result = result;
        }

        @Override
        public void run() {
            send(record, event, result);
        }
    }

    private void send(ProducerRecord<String, byte[]> record, BusEvent event, CompletableFuture<RecordMetadata> result) {
        try {
            producer.send(record, (metadata, error) -> {
                if (error != null) {
                    LOG.warn("publish of event {} ({}) to {} failed: {}", event.eventId(), event.type(),
                            record.topic(), error.toString());
                    result.completeExceptionally(error);
                } else {
                    result.complete(metadata);
                }
            });
        } catch (RuntimeException e) {
            LOG.warn("publish of event {} ({}) to {} failed: {}", event.eventId(), event.type(), record.topic(),
                    e.toString());
            result.completeExceptionally(e);
        }
    }

    /** Blocks until everything published so far is acknowledged or failed. Not for an event loop. */
    public void flush() {
        try {
            CompletableFuture.runAsync(() -> { }, sender).get(30, TimeUnit.SECONDS); // queued sends reached Kafka
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RejectedExecutionException | java.util.concurrent.ExecutionException
                | java.util.concurrent.TimeoutException e) {
            LOG.warn("bus producer {}: flush of the backlog: {}", clientId, e.toString());
        }
        producer.flush();
    }

    /** Sends what is queued (bounded by {@code timeout}), then closes; later publishes fail. Idempotent. */
    public void close(Duration timeout) {
        if (closed) {
            return;
        }
        closed = true;
        long deadline = System.nanoTime() + timeout.toNanos();
        sender.shutdown();
        try {
            if (!sender.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.warn("bus producer {}: backlog not drained within {}", clientId, timeout);
                IllegalStateException dropped = new IllegalStateException(
                        "bus producer " + clientId + " closed before this event was sent");
                for (Runnable r : sender.shutdownNow()) {
                    if (r instanceof SendTask task) {
                        task.result.completeExceptionally(dropped);
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        producer.close(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
    }

    @Override
    public void close() {
        close(Duration.ofSeconds(10));
    }
}
