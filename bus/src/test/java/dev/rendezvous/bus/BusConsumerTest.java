package dev.rendezvous.bus;

import static dev.rendezvous.bus.TestSupport.await;
import static dev.rendezvous.bus.TestSupport.committedOffset;
import static dev.rendezvous.bus.TestSupport.reply;
import static dev.rendezvous.bus.TestSupport.seq;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.bus.event.StepReplyReceived;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class BusConsumerTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static BusProducer producer;
    private static ScheduledExecutorService async;

    @BeforeAll
    static void setUp() {
        producer = new BusProducer(SharedKafka.bootstrap(), "consumer-test");
        async = Executors.newScheduledThreadPool(4);
    }

    @AfterAll
    static void tearDown() {
        producer.close();
        async.shutdownNow();
    }

    private static void publishAll(String topic, List<BusEvent> events) throws Exception {
        List<CompletableFuture<?>> acks = new ArrayList<>();
        for (BusEvent e : events) {
            acks.add(producer.publish(topic, e));
        }
        CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
    }

    @Test
    void recordsOfOneKeyAreHandledInOrderOneAtATimeEvenWithAsynchronousHandlers() throws Exception {
        String topic = SharedKafka.newTopic("order", 3);
        int perKey = 150;
        List<String> keys = List.of("cluster-a", "cluster-b", "cluster-c", "cluster-d", "cluster-e");
        List<BusEvent> events = new ArrayList<>();
        for (int i = 0; i < perKey; i++) {
            for (String key : keys) {
                events.add(reply(key, i));
            }
        }
        publishAll(topic, events);

        Map<String, List<Integer>> seen = new ConcurrentHashMap<>();
        Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
        List<String> violations = new CopyOnWriteArrayList<>();
        try (BusConsumer consumer = BusConsumer.builder(SharedKafka.bootstrap()).groupId("order-" + System.nanoTime())
                .topics(List.of(topic)).handler(e -> {
                    String key = e.clusterId();
                    if (inFlight.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet() != 1) {
                        violations.add("two in flight for " + key);
                    }
                    CompletableFuture<Void> done = new CompletableFuture<>();
                    // completes later on another thread, in a random order across partitions
                    async.schedule(() -> {
                        seen.computeIfAbsent(key, k -> Collections.synchronizedList(new ArrayList<>())).add(seq(e));
                        inFlight.get(key).decrementAndGet();
                        done.complete(null);
                    }, ThreadLocalRandom.current().nextInt(200), TimeUnit.MICROSECONDS);
                    return done;
                }).start()) {
            await(WAIT, () -> consumer.handledCount() == events.size(),
                    () -> consumer.handledCount() + " of " + events.size() + " handled");
        }
        assertEquals(List.of(), violations);
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < perKey; i++) {
            expected.add(i);
        }
        for (String key : keys) {
            assertEquals(expected, seen.get(key), key);
        }
    }

    @Test
    void aLaggingHandlersBacklogWaitsOnTheBrokerNotInTheHeapAndNothingIsLost() throws Exception {
        backlogBoundedInBytes(b -> b.maxBufferedBytesPerPartition(1L << 20)); // a partition's bound
        backlogBoundedInBytes(b -> b.maxBufferedBytes(1L << 20)); // all partitions' bound
    }

    private void backlogBoundedInBytes(java.util.function.UnaryOperator<BusConsumer.Builder> bounded) throws Exception {
        String topic = SharedKafka.newTopic("bytes", 2);
        int count = 60;
        List<BusEvent> events = new ArrayList<>();
        java.util.Random random = new java.util.Random(3);
        for (int i = 0; i < count; i++) {
            // ~100 KB each (a large cluster's connectivity replies are bigger still), random so that the producer's
            // compression does not shrink a fetch (the broker's fetch size counts compressed bytes)
            StringBuilder text = new StringBuilder(100_000);
            for (int k = 0; k < 100_000; k++) {
                text.append((char) ('a' + random.nextInt(26)));
            }
            String output = text.toString();
            events.add(BusEvent.of("cluster-big", "infra", "host-" + i,
                    new StepReplyReceived("connectivity-check", "report-" + i, 0, output, null)));
        }
        publishAll(topic, events);
        CompletableFuture<Void> gate = new CompletableFuture<>();
        AtomicInteger handled = new AtomicInteger();
        long bound = 1L << 20;
        long most = 0;
        try (BusConsumer consumer = bounded.apply(BusConsumer.builder(SharedKafka.bootstrap())
                .groupId("bytes-" + System.nanoTime()).topics(List.of(topic)))
                .handler(e -> gate.thenRun(handled::incrementAndGet)).start()) {
            // the first record's handler does not finish: everything fetched meanwhile stays buffered
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
            while (System.nanoTime() < until) {
                most = Math.max(most, consumer.bufferedBytes());
                Thread.sleep(20);
            }
            assertTrue(most > 0, "records were fetched");
            // paused at the bound: at most what one more fetch brought (max.partition.fetch.bytes: 1 MiB compressed)
            assertTrue(most <= bound + (2L << 20), "buffered " + most + " bytes, bound " + bound);
            assertTrue(most < count * 100_000L, "not the whole backlog: " + most);
            gate.complete(null);
            await(WAIT, () -> handled.get() == count, () -> handled.get() + " of " + count + " handled");
        }
        assertEquals(count, handled.get());
    }

    @Test
    void offsetsAreCommittedOnlyAfterTheHandlerCompletesAndAGroupResumesThere() throws Exception {
        String topic = SharedKafka.newTopic("commit", 1);
        String group = "commit-" + System.nanoTime();
        List<BusEvent> events = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            events.add(reply("cluster-x", i));
        }
        publishAll(topic, events);

        CompletableFuture<Void> gate = new CompletableFuture<>();
        List<Integer> firstRun = new CopyOnWriteArrayList<>();
        BusConsumer first = BusConsumer.builder(SharedKafka.bootstrap()).groupId(group).topics(List.of(topic))
                .commitInterval(Duration.ofMillis(50)).closeTimeout(Duration.ofMillis(500))
                .handler(e -> {
                    firstRun.add(seq(e));
                    // record 2 is still "being handled" when this consumer stops
                    return seq(e) < 2 ? CompletableFuture.completedFuture(null) : gate;
                }).start();
        try {
            await(WAIT, () -> committedOffset(group, topic, 0) == 2, () -> "committed offset "
                    + committedOffset(group, topic, 0) + ", handled " + firstRun);
            Thread.sleep(300); // several commit intervals: the commit must not move past the pending record
            assertEquals(2, committedOffset(group, topic, 0));
            assertEquals(List.of(0, 1, 2), firstRun, "record 3 must wait for record 2");
            // and how far the partition is handled through: just before record 2, as its timestamp says
            long record2 = recordTimestamp(topic, 2);
            await(WAIT, () -> Long.valueOf(record2 - 1).equals(first.handledThrough().get(0)),
                    () -> "handled through " + first.handledThrough() + ", record 2 written at " + record2);
        } finally {
            first.close();
        }
        assertTrue(first.stopped().isDone());
        assertEquals(2, committedOffset(group, topic, 0));
        gate.complete(null); // too late: that consumer is gone

        List<Integer> secondRun = new CopyOnWriteArrayList<>();
        try (BusConsumer second = BusConsumer.builder(SharedKafka.bootstrap()).groupId(group).topics(List.of(topic))
                .commitInterval(Duration.ofMillis(50)).handler(e -> {
                    secondRun.add(seq(e));
                    return CompletableFuture.completedFuture(null);
                }).start()) {
            await(WAIT, () -> secondRun.size() >= 3, () -> "second run saw " + secondRun);
            publishAll(topic, List.of(reply("cluster-x", 5)));
            await(WAIT, () -> committedOffset(group, topic, 0) == 6, () -> "committed "
                    + committedOffset(group, topic, 0));
            await(WAIT, () -> Long.valueOf(Long.MAX_VALUE).equals(second.handledThrough().get(0)),
                    () -> "nothing waits, yet handled through " + second.handledThrough());
        }
        assertEquals(List.of(2, 3, 4, 5), secondRun, "resumes at the first record not completed");
    }

    /** The timestamp Kafka holds for the record at {@code offset} of partition 0 (a reader of its own). */
    private static long recordTimestamp(String topic, long offset) {
        try (var reader = new KafkaConsumer<String, byte[]>(Map.of("bootstrap.servers", SharedKafka.bootstrap()),
                new StringDeserializer(), new ByteArrayDeserializer())) {
            var tp = new org.apache.kafka.common.TopicPartition(topic, 0);
            reader.assign(List.of(tp));
            reader.seek(tp, offset);
            for (int i = 0; i < 50; i++) {
                for (var r : reader.poll(Duration.ofMillis(200))) {
                    return r.timestamp();
                }
            }
            throw new AssertionError("no record at offset " + offset + " of " + topic);
        }
    }

    @Test
    void garbageIsSkippedAndLaterRecordsStillArrive() throws Exception {
        skipsGarbage(false);
    }

    /** As above with a batch handler: the records queued behind the first are decoded as the batch is gathered. */
    @Test
    void garbageIsLeftOutOfBatches() throws Exception {
        skipsGarbage(true);
    }

    /** The builder with a handler (or a batch handler, 64 at most) that adds what it is given to {@code got}. */
    private static BusConsumer.Builder collecting(BusConsumer.Builder builder, boolean batches, List<BusEvent> got) {
        return batches ? builder.batchHandler(batch -> {
            got.addAll(batch);
            return CompletableFuture.completedFuture(null);
        }, 64) : builder.handler(e -> {
            got.add(e);
            return CompletableFuture.completedFuture(null);
        });
    }

    /** A record of a payload type this build does not know, as a newer build writes it. */
    private static byte[] fromANewerBuild(String cluster, String id) {
        return ("{\"event_id\":\"" + id + "\",\"occurred_at\":\"2025-01-01T00:00:00Z\",\"cluster_id\":\"" + cluster
                + "\",\"payload_version\":1,\"payload\":{\"type\":\"host_teleported\"}}").getBytes(StandardCharsets.UTF_8);
    }

    /** A known payload type at a version above the one this build reads. */
    private static byte[] newerVersion(BusEvent e) {
        return new String(BusCodec.encode(e), StandardCharsets.UTF_8).replace("\"payload_version\":1", "\"payload_version\":7")
                .getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aRecordOfANewerBuildHoldsItsPartitionUncommittedLoudlyUntilAnotherInstanceTakesIt() throws Exception {
        for (boolean batches : new boolean[] {false, true}) {
            String topic = SharedKafka.newTopic("future", 1);
            String group = "future-" + System.nanoTime();
            BusEvent before = reply("cluster-f", 1);
            BusEvent after = reply("cluster-f", 2);
            try (KafkaProducer<String, byte[]> raw = new KafkaProducer<>(Map.of("bootstrap.servers",
                    SharedKafka.bootstrap()), new StringSerializer(), new ByteArraySerializer())) {
                raw.send(new ProducerRecord<>(topic, "cluster-f", BusCodec.encode(before))).get(10, TimeUnit.SECONDS);
                raw.send(new ProducerRecord<>(topic, "cluster-f", batches ? newerVersion(reply("cluster-f", 9))
                        : fromANewerBuild("cluster-f", "u1"))).get(10, TimeUnit.SECONDS);
                raw.send(new ProducerRecord<>(topic, "cluster-f", BusCodec.encode(after))).get(10, TimeUnit.SECONDS);
            }
            List<BusEvent> got = new CopyOnWriteArrayList<>();
            BusConsumer.Builder builder = collecting(BusConsumer.builder(SharedKafka.bootstrap()).groupId(group)
                    .topics(List.of(topic)).commitInterval(Duration.ofMillis(50)).closeTimeout(Duration.ofSeconds(2)),
                    batches, got);
            try (BusConsumer older = builder.start()) {
                await(WAIT, () -> older.refusedCount() == 1 && committedOffset(group, topic, 0) == 1,
                        () -> "refused " + older.refusedCount() + ", committed " + committedOffset(group, topic, 0));
                Thread.sleep(500); // many polls and commit intervals: it stays held
                assertEquals(List.of(before), got, "nothing past the newer build's record, in order");
                assertEquals(1, committedOffset(group, topic, 0), "not committed past it");
                assertEquals(0, older.skippedCount(), "not skipped");
                assertEquals(1, older.refusedCount(), "said once per hold");
            }
            // the older instance leaves the group: whoever takes the partition next starts at that record
            try (KafkaConsumer<String, byte[]> next = new KafkaConsumer<>(Map.of("bootstrap.servers",
                    SharedKafka.bootstrap(), "group.id", group, "enable.auto.commit", "false"),
                    new StringDeserializer(), new ByteArrayDeserializer())) {
                next.subscribe(List.of(topic));
                List<Long> offsets = new ArrayList<>();
                long deadline = System.nanoTime() + WAIT.toNanos();
                while (offsets.size() < 2 && System.nanoTime() < deadline) {
                    next.poll(Duration.ofMillis(200)).forEach(r -> offsets.add(r.offset()));
                }
                assertEquals(List.of(1L, 2L), offsets);
            }
        }
    }

    @Test
    void aFanOutReaderSkipsARecordOfANewerBuildLoudlyAndReadsOn() throws Exception {
        String topic = SharedKafka.newTopic("future-fanout", 1);
        List<BusEvent> got = new CopyOnWriteArrayList<>();
        try (BusConsumer reader = BusConsumer.fanOut(SharedKafka.bootstrap(), List.of(topic), BusConsumer.StartFrom.EARLIEST,
                e -> {
                    got.add(e);
                    return CompletableFuture.completedFuture(null);
                })) {
            BusEvent after = reply("cluster-h", 2);
            try (KafkaProducer<String, byte[]> raw = new KafkaProducer<>(Map.of("bootstrap.servers",
                    SharedKafka.bootstrap()), new StringSerializer(), new ByteArraySerializer())) {
                raw.send(new ProducerRecord<>(topic, "cluster-h", fromANewerBuild("cluster-h", "u2"))).get(10, TimeUnit.SECONDS);
                raw.send(new ProducerRecord<>(topic, "cluster-h", BusCodec.encode(after))).get(10, TimeUnit.SECONDS);
            }
            await(WAIT, () -> got.size() == 1, () -> "got " + got);
            assertEquals(List.of(after), got);
            assertEquals(1, reader.refusedCount());
        }
    }

    private void skipsGarbage(boolean batches) throws Exception {
        String topic = SharedKafka.newTopic("garbage", 1);
        String group = "garbage-" + System.nanoTime();
        BusEvent before = reply("cluster-g", 1);
        BusEvent after = reply("cluster-g", 2);
        try (KafkaProducer<String, byte[]> raw = new KafkaProducer<>(Map.of("bootstrap.servers",
                SharedKafka.bootstrap()), new StringSerializer(), new ByteArraySerializer())) {
            raw.send(new ProducerRecord<>(topic, "cluster-g", BusCodec.encode(before))).get(10, TimeUnit.SECONDS);
            raw.send(new ProducerRecord<>(topic, "cluster-g", new byte[] {0x00, (byte) 0xff, 'x'}))
                    .get(10, TimeUnit.SECONDS);
            raw.send(new ProducerRecord<>(topic, "cluster-g", (byte[]) null)).get(10, TimeUnit.SECONDS);
            raw.send(new ProducerRecord<>(topic, "cluster-g", BusCodec.encode(after))).get(10, TimeUnit.SECONDS);
        }
        List<BusEvent> got = new CopyOnWriteArrayList<>();
        BusConsumer.Builder builder = collecting(BusConsumer.builder(SharedKafka.bootstrap()).groupId(group)
                .topics(List.of(topic)).commitInterval(Duration.ofMillis(50)), batches, got);
        try (BusConsumer consumer = builder.start()) {
            await(WAIT, () -> got.size() == 2 && committedOffset(group, topic, 0) == 4,
                    () -> "got " + got.size() + ", committed " + committedOffset(group, topic, 0));
            assertEquals(2, consumer.skippedCount());
        }
        assertEquals(List.of(before, after), got);
    }

    @Test
    void failingHandlersAreRetriedABoundedNumberOfTimesThenSkippedInOrder() throws Exception {
        String topic = SharedKafka.newTopic("retry", 1);
        // 0: always throws; 1: fails once, then succeeds; 2: never completes at first, then succeeds; 3: fine
        List<BusEvent> events = List.of(reply("cluster-r", 0), reply("cluster-r", 1), reply("cluster-r", 2),
                reply("cluster-r", 3));
        publishAll(topic, events);
        Map<Integer, AtomicInteger> attempts = new ConcurrentHashMap<>();
        List<String> log = new CopyOnWriteArrayList<>();
        try (BusConsumer consumer = BusConsumer.builder(SharedKafka.bootstrap()).groupId("retry-" + System.nanoTime())
                .topics(List.of(topic)).maxRetries(2).retryBackoff(Duration.ofMillis(20))
                .handlerTimeout(Duration.ofMillis(300)).handler(e -> {
                    int s = seq(e);
                    int attempt = attempts.computeIfAbsent(s, k -> new AtomicInteger()).incrementAndGet();
                    log.add(s + "#" + attempt);
                    switch (s) {
                        case 0:
                            throw new IllegalStateException("poison event");
                        case 1:
                            return attempt == 1 ? CompletableFuture.failedFuture(new RuntimeException("flaky"))
                                    : CompletableFuture.completedFuture(null);
                        case 2:
                            return attempt == 1 ? new CompletableFuture<>() : CompletableFuture.completedFuture(null);
                        default:
                            return CompletableFuture.completedFuture(null);
                    }
                }).start()) {
            await(WAIT, () -> consumer.handledCount() == 3, () -> "attempts " + log);
            assertEquals(1, consumer.skippedCount());
        }
        assertEquals(List.of("0#1", "0#2", "0#3", "1#1", "1#2", "2#1", "2#2", "3#1"), log);
    }

    @Test
    void fanOutConsumersEachReadEverythingFromTheirStartPosition() throws Exception {
        String topic = SharedKafka.newTopic("fanout", 2);
        List<BusEvent> old = List.of(reply("k1", 0), reply("k2", 1), reply("k3", 2));
        publishAll(topic, old);
        Set<String> a = ConcurrentHashMap.newKeySet();
        Set<String> b = ConcurrentHashMap.newKeySet();
        Set<String> all = ConcurrentHashMap.newKeySet();
        try (BusConsumer fromLatestA = BusConsumer.fanOut(SharedKafka.bootstrap(), List.of(topic),
                BusConsumer.StartFrom.LATEST, e -> collect(a, e));
                BusConsumer fromLatestB = BusConsumer.fanOut(SharedKafka.bootstrap(), List.of(topic),
                        BusConsumer.StartFrom.LATEST, e -> collect(b, e));
                BusConsumer fromEarliest = BusConsumer.fanOut(SharedKafka.bootstrap(), List.of(topic),
                        BusConsumer.StartFrom.EARLIEST, e -> collect(all, e))) {
            CompletableFuture.allOf(fromLatestA.started(), fromLatestB.started(), fromEarliest.started())
                    .get(30, TimeUnit.SECONDS);
            List<BusEvent> fresh = List.of(reply("k1", 3), reply("k2", 4), reply("k3", 5), reply("k4", 6));
            publishAll(topic, fresh);
            Set<String> freshIds = ids(fresh);
            await(WAIT, () -> a.size() == 4 && b.size() == 4 && all.size() == 7,
                    () -> "a=" + a.size() + " b=" + b.size() + " all=" + all.size());
            assertEquals(freshIds, a);
            assertEquals(freshIds, b);
            Set<String> everything = ids(old);
            everything.addAll(freshIds);
            assertEquals(everything, all);
        }
    }

    @Test
    void aRebalanceCommitsWhatWasHandledSoNothingIsHandledTwiceAndOrderHolds() throws Exception {
        String topic = SharedKafka.newTopic("rebalance", 4);
        String group = "rebalance-" + System.nanoTime();
        int perKey = 100;
        List<String> keys = keysCoveringEveryPartition(4, 3);
        java.util.concurrent.atomic.AtomicBoolean fast = new java.util.concurrent.atomic.AtomicBoolean();
        List<BusEvent> events = new ArrayList<>();
        for (int i = 0; i < perKey; i++) {
            for (String key : keys) {
                events.add(reply(key, i));
            }
        }
        publishAll(topic, events);
        List<String> handled = Collections.synchronizedList(new ArrayList<>());
        java.util.function.Function<BusEvent, java.util.concurrent.CompletionStage<Void>> slowHandler = e -> {
            CompletableFuture<Void> done = new CompletableFuture<>();
            async.schedule(() -> {
                handled.add(e.clusterId() + "#" + seq(e));
                done.complete(null);
            }, fast.get() ? 200 : 50_000, TimeUnit.MICROSECONDS); // slow until the rebalance is done
            return done;
        };
        try (BusConsumer first = BusConsumer.builder(SharedKafka.bootstrap()).groupId(group).topics(List.of(topic))
                .handler(slowHandler).start()) {
            await(WAIT, () -> handled.size() >= 40, () -> "first consumer handled " + handled.size());
            try (BusConsumer second = BusConsumer.builder(SharedKafka.bootstrap()).groupId(group)
                    .topics(List.of(topic)).handler(slowHandler).start()) {
                second.started().get(30, TimeUnit.SECONDS);
                fast.set(true);
                await(WAIT, () -> handled.size() >= events.size(), () -> handled.size() + " handled");
                assertTrue(second.handledCount() > 0, "the second member got partitions");
                assertTrue(first.commitCount() > 0);
            }
        }
        assertEquals(events.size(), handled.size(), "no record handled twice");
        Map<String, Integer> last = new ConcurrentHashMap<>();
        for (String h : handled) {
            String key = h.substring(0, h.indexOf('#'));
            int s = Integer.parseInt(h.substring(h.indexOf('#') + 1));
            assertEquals(last.getOrDefault(key, -1) + 1, s, "order of " + key);
            last.put(key, s);
        }
        long committed = 0;
        for (int p = 0; p < 4; p++) {
            committed += Math.max(0, committedOffset(group, topic, p));
        }
        assertEquals(events.size(), committed, "every handled record committed");
    }

    @Test
    void orderAcrossTopicsHandlesOneEventOfAKeyAtATimeOverAllTopics() throws Exception {
        String t1 = SharedKafka.newTopic("across1", 2);
        String t2 = SharedKafka.newTopic("across2", 2);
        List<CompletableFuture<?>> acks = new ArrayList<>();
        int total = 0;
        for (int i = 0; i < 60; i++) {
            for (String key : List.of("cluster-p", "cluster-q", "cluster-r")) {
                acks.add(producer.publish(i % 2 == 0 ? t1 : t2, reply(key, i)));
                total++;
            }
        }
        CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
        Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
        List<String> violations = new CopyOnWriteArrayList<>();
        int expected = total;
        try (BusConsumer consumer = BusConsumer.builder(SharedKafka.bootstrap()).groupId("across-" + System.nanoTime())
                .topics(List.of(t1, t2)).orderAcrossTopics().handler(e -> {
                    AtomicInteger n = inFlight.computeIfAbsent(e.clusterId(), k -> new AtomicInteger());
                    if (n.incrementAndGet() != 1) {
                        violations.add("two events of " + e.clusterId() + " in flight");
                    }
                    CompletableFuture<Void> done = new CompletableFuture<>();
                    async.schedule(() -> {
                        n.decrementAndGet();
                        done.complete(null);
                    }, 300, TimeUnit.MICROSECONDS);
                    return done;
                }).start()) {
            await(WAIT, () -> consumer.handledCount() == expected, () -> consumer.handledCount() + " handled");
        }
        assertEquals(List.of(), violations);
    }

    /** {@code perPartition} cluster ids for each of {@code partitions} partitions (Kafka's default partitioner). */
    private static List<String> keysCoveringEveryPartition(int partitions, int perPartition) {
        int[] count = new int[partitions];
        List<String> keys = new ArrayList<>();
        for (int i = 0; keys.size() < partitions * perPartition; i++) {
            String key = "cluster-" + i;
            int p = org.apache.kafka.common.utils.Utils.toPositive(org.apache.kafka.common.utils.Utils.murmur2(
                    key.getBytes(StandardCharsets.UTF_8))) % partitions;
            if (count[p] < perPartition) {
                count[p]++;
                keys.add(key);
            }
        }
        return keys;
    }

    private static CompletableFuture<Void> collect(Set<String> into, BusEvent e) {
        into.add(e.eventId());
        return CompletableFuture.completedFuture(null);
    }

    private static Set<String> ids(List<BusEvent> events) {
        Set<String> ids = ConcurrentHashMap.newKeySet();
        events.forEach(e -> ids.add(e.eventId()));
        return ids;
    }

    @Test
    void batchModeHandsOverWhatWaitsInALaneInOrderAndCommitsIt() throws Exception {
        String topic = SharedKafka.newTopic("batch", 2);
        String group = "batch-" + System.nanoTime();
        List<BusEvent> events = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            events.add(reply(i % 2 == 0 ? "cluster-even" : "cluster-odd", i));
        }
        publishAll(topic, events);
        Map<String, List<Integer>> seen = new ConcurrentHashMap<>();
        List<Integer> sizes = new CopyOnWriteArrayList<>();
        try (BusConsumer consumer = BusConsumer.builder(SharedKafka.bootstrap()).groupId(group).topics(List.of(topic))
                .commitInterval(Duration.ofMillis(50)).batchHandler(batch -> {
                    sizes.add(batch.size());
                    batch.forEach(e -> seen.computeIfAbsent(e.clusterId(), k -> new CopyOnWriteArrayList<>()).add(seq(e)));
                    CompletableFuture<Void> done = new CompletableFuture<>();
                    async.schedule(() -> done.complete(null), 20, TimeUnit.MILLISECONDS);
                    return done;
                }, 64).start()) {
            await(WAIT, () -> consumer.handledCount() == events.size(), () -> consumer.handledCount() + " handled");
            await(WAIT, () -> committedOffset(group, topic, 0) + committedOffset(group, topic, 1) == events.size(),
                    () -> "offsets committed");
        }
        assertTrue(sizes.stream().anyMatch(n -> n > 1), "records waiting together come together: " + sizes);
        assertTrue(sizes.stream().allMatch(n -> n <= 64), "never more than the batch size: " + sizes);
        assertEachInOrder(seen, List.of("cluster-even", "cluster-odd"), 100);
    }

    @Test
    void aBatchEndsOnceItsRecordsReachTheByteBound() throws Exception {
        String topic = SharedKafka.newTopic("batch-bytes", 1);
        String group = "batch-bytes-" + System.nanoTime();
        String output = "{\"report\":\"" + "x".repeat(10_000) + "\"}"; // ~10 KB a record
        List<BusEvent> events = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            events.add(BusEvent.of("cluster-heavy", "infra", "host",
                    new StepReplyReceived("connectivity-check", "report-" + i, 0, output, null)));
        }
        publishAll(topic, events);
        Map<String, List<Integer>> seen = new ConcurrentHashMap<>();
        List<Integer> sizes = new CopyOnWriteArrayList<>();
        try (BusConsumer consumer = BusConsumer.builder(SharedKafka.bootstrap()).groupId(group).topics(List.of(topic))
                .batchHandler(batch -> {
                    sizes.add(batch.size());
                    batch.forEach(e -> seen.computeIfAbsent(e.clusterId(), k -> new CopyOnWriteArrayList<>()).add(seq(e)));
                    CompletableFuture<Void> done = new CompletableFuture<>();
                    async.schedule(() -> done.complete(null), 20, TimeUnit.MILLISECONDS);
                    return done;
                }, 64).maxBatchBytes(50_000).start()) {
            await(WAIT, () -> consumer.handledCount() == events.size(), () -> consumer.handledCount() + " handled");
        }
        assertTrue(sizes.stream().anyMatch(n -> n > 1), "records waiting together still come together: " + sizes);
        assertTrue(sizes.stream().allMatch(n -> n <= 5), "none past 50 KB (the record that reaches it last): " + sizes);
        assertEachInOrder(seen, List.of("cluster-heavy"), 60);
    }

    /** Every key's sequence numbers seen in order, all {@code count} of them. */
    private static void assertEachInOrder(Map<String, List<Integer>> seen, List<String> keys, int count) {
        for (String key : keys) {
            List<Integer> order = seen.get(key);
            List<Integer> sorted = new ArrayList<>(order);
            Collections.sort(sorted);
            assertEquals(sorted, order, key + " in order");
            assertEquals(count, order.size(), key);
        }
    }

    @Test
    void pacedPollsGatherRecordsPublishedApartIntoFewBatches() throws Exception {
        String topic = SharedKafka.newTopic("poll-pacing", 1);
        List<Integer> eager = new CopyOnWriteArrayList<>();
        List<Integer> gathered = new CopyOnWriteArrayList<>();
        try (BusConsumer asSoon = sizes(topic, eager, b -> b); BusConsumer paced = sizes(topic, gathered,
                b -> b.pollPacing(Duration.ofMillis(300)))) {
            await(WAIT, () -> !asSoon.assignment().isEmpty() && !paced.assignment().isEmpty(), () -> "assigned");
            // one record every 10 ms, each acknowledged before the next: 40 records over ~0.4 s
            for (int i = 0; i < 40; i++) {
                producer.publish(topic, reply("cluster-f", i)).get(10, TimeUnit.SECONDS);
                Thread.sleep(10);
            }
            await(WAIT, () -> asSoon.handledCount() == 40 && paced.handledCount() == 40,
                    () -> asSoon.handledCount() + " and " + paced.handledCount() + " handled");
        }
        assertTrue(eager.size() > 15, "Kafka's default answers a fetch per record here: " + eager);
        assertTrue(gathered.size() <= 8, "a poll that returned records waits 300 ms before the next: " + gathered);
    }

    @Test
    void aQuietBusCostsPacedConsumersAFetchPerHalfSecondNotOneEveryFewMillis() throws Exception {
        String topic = SharedKafka.newTopic("quiet", 12);
        List<Integer> ignored = new CopyOnWriteArrayList<>();
        // the broker-side wait the consumers had before (fetch.min.bytes 32 KB, fetch.max.wait.ms 20): on a quiet bus
        // the broker answers every 20 ms with nothing
        try (BusConsumer waiting = sizes(topic, ignored, b -> b.config("fetch.min.bytes", 32 * 1024)
                .config("fetch.max.wait.ms", 20)); BusConsumer paced = sizes(topic, ignored,
                b -> b.pollPacing(Duration.ofMillis(20)))) {
            await(WAIT, () -> !waiting.assignment().isEmpty() && !paced.assignment().isEmpty(), () -> "assigned");
            double waited0 = waiting.fetchCount();
            double paced0 = paced.fetchCount();
            Thread.sleep(3000);
            double waitedFetches = waiting.fetchCount() - waited0;
            double pacedFetches = paced.fetchCount() - paced0;
            assertTrue(waitedFetches >= 40, "a broker-side wait of 20 ms fetches all along: " + waitedFetches);
            assertTrue(pacedFetches <= 10, "a paced consumer's fetch waits up to 500 ms for a record: " + pacedFetches);
            // and a record on the quiet bus still arrives
            producer.publish(topic, reply("cluster-q", 1)).get(10, TimeUnit.SECONDS);
            await(WAIT, () -> paced.handledCount() == 1, () -> paced.handledCount() + " handled");
        }
    }

    /** A consumer of its own group recording the size of each batch it is handed. */
    private static BusConsumer sizes(String topic, List<Integer> sizes,
            java.util.function.UnaryOperator<BusConsumer.Builder> settings) {
        BusConsumer.Builder b = BusConsumer.builder(SharedKafka.bootstrap()).groupId("fetch-" + System.nanoTime())
                .topics(List.of(topic)).batchHandler(batch -> {
                    sizes.add(batch.size());
                    return CompletableFuture.completedFuture(null);
                }, 64);
        return settings.apply(b).start();
    }

    @Test
    void cappedBatchesInFlightGatherLargerBatchesAndKeepEveryLaneInOrder() throws Exception {
        String topic = SharedKafka.newTopic("capped", 4);
        List<String> keys = List.of("site-a", "site-b", "site-c", "site-d", "site-e", "site-f", "site-g", "site-h");
        List<BusEvent> events = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            for (String key : keys) {
                events.add(reply(key, i));
            }
        }
        publishAll(topic, events);
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        List<Integer> sizes = new CopyOnWriteArrayList<>();
        Map<String, List<Integer>> seen = new ConcurrentHashMap<>();
        try (BusConsumer consumer = BusConsumer.builder(SharedKafka.bootstrap()).groupId("capped-" + System.nanoTime())
                .topics(List.of(topic)).maxInFlight(1, Duration.ofSeconds(20)).batchHandler(batch -> {
                    most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                    sizes.add(batch.size());
                    batch.forEach(e -> seen.computeIfAbsent(e.clusterId(), k -> new CopyOnWriteArrayList<>()).add(seq(e)));
                    CompletableFuture<Void> done = new CompletableFuture<>();
                    async.schedule(() -> {
                        inFlight.decrementAndGet();
                        done.complete(null);
                    }, 15, TimeUnit.MILLISECONDS);
                    return done;
                }, 500).start()) {
            await(WAIT, () -> consumer.handledCount() == events.size(), () -> consumer.handledCount() + " handled");
        }
        assertEquals(1, most.get(), "one batch in flight at a time across the four partitions");
        // four lanes, each waiting while another is handled: whole lanes come at once, not record by record
        assertTrue(sizes.size() <= events.size() / 4, "batches: " + sizes);
        assertEachInOrder(seen, keys, 60);
    }

    @Test
    void aLaneHeldBackByTheCapStartsOnceItsRecordWaitedTheBound() throws Exception {
        String topic = SharedKafka.newTopic("capped-wait", 2);
        String slow = "slow-site";
        String other = java.util.stream.IntStream.range(0, 100).mapToObj(i -> "other-site-" + i)
                .filter(k -> Topics.partitionFor(k, 2) != Topics.partitionFor(slow, 2)).findFirst().orElseThrow();
        Map<String, Long> handledAt = new ConcurrentHashMap<>();
        CompletableFuture<Void> slowStarted = new CompletableFuture<>();
        CompletableFuture<Void> releaseSlow = new CompletableFuture<>();
        try (BusConsumer consumer = BusConsumer.builder(SharedKafka.bootstrap()).groupId("capped-wait-" + System.nanoTime())
                .topics(List.of(topic)).maxInFlight(1, Duration.ofMillis(300)).batchHandler(batch -> {
                    handledAt.put(batch.get(0).clusterId(), System.nanoTime());
                    if (batch.get(0).clusterId().equals(slow)) {
                        slowStarted.complete(null);
                        return releaseSlow; // a slow batch: holds the only slot until released
                    }
                    return CompletableFuture.completedFuture(null);
                }, 500).start()) {
            consumer.started().get(30, TimeUnit.SECONDS);
            publishAll(topic, List.of(reply(slow, 0)));
            slowStarted.get(30, TimeUnit.SECONDS);
            long sent = System.nanoTime();
            publishAll(topic, List.of(reply(other, 0)));
            await(WAIT, () -> handledAt.containsKey(other), () -> "the other lane never started");
            long waited = TimeUnit.NANOSECONDS.toMillis(handledAt.get(other) - sent);
            assertTrue(waited >= 250, "held back while the slot is taken, waited " + waited + " ms");
            assertTrue(waited < 5_000, "started once it waited the bound, not when the slow batch ended: " + waited + " ms");
            releaseSlow.complete(null);
            await(WAIT, () -> consumer.handledCount() == 2, () -> consumer.handledCount() + " handled");
        }
    }

    @Test
    void aBatchThatKeepsFailingIsSplitAndOnlyTheBadRecordIsSkipped() throws Exception {
        String topic = SharedKafka.newTopic("batch-split", 1);
        List<BusEvent> events = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            events.add(reply("cluster-s", i));
        }
        publishAll(topic, events);
        List<Integer> handledAlone = new CopyOnWriteArrayList<>();
        try (BusConsumer consumer = BusConsumer.builder(SharedKafka.bootstrap()).groupId("split-" + System.nanoTime())
                .topics(List.of(topic)).maxRetries(1).retryBackoff(Duration.ofMillis(5)).batchHandler(batch -> {
                    if (batch.stream().anyMatch(e -> seq(e) == 7)) {
                        return CompletableFuture.failedFuture(new IllegalStateException("record 7 is poison"));
                    }
                    if (batch.size() == 1) {
                        handledAlone.add(seq(batch.get(0)));
                    }
                    return CompletableFuture.completedFuture(null);
                }, 50).start()) {
            await(WAIT, () -> consumer.handledCount() + consumer.skippedCount() == events.size(),
                    () -> consumer.handledCount() + " handled, " + consumer.skippedCount() + " skipped");
            assertEquals(1, consumer.skippedCount(), "only the poison record is skipped");
            assertEquals(19, consumer.handledCount());
            assertEquals(1, consumer.splitCount(), "one batch held the poison record");
        }
        assertTrue(handledAlone.containsAll(List.of(0, 6, 8)), "the failed batch's records were handled one by one: "
                + handledAlone);
    }
}

