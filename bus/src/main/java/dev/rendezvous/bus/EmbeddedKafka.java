package dev.rendezvous.bus;

import java.io.IOException;
import java.io.PrintStream;
import java.io.OutputStream;
import java.net.BindException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real, in-process, single-node Kafka (KRaft: one process is broker and controller) whose logs live under a
 * directory of ours. The directory is formatted on first start and reused afterwards, so data survives restarts.
 * Ports are free loopback ports picked at each start, so {@link #bootstrapServers()} may differ between runs.
 *
 * <p>Start-up costs 3–8 s cold in a JVM and well under a second warm: tests share one broker per JVM.
 */
public final class EmbeddedKafka implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedKafka.class);
    private static final int NODE_ID = 1;
    private static final String CONTROLLER_LISTENER = "CONTROLLER";
    private static final int START_ATTEMPTS = 3;
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

    private final KafkaRaftServer server;
    private final String bootstrapServers;
    private final Path dataDir;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Thread shutdownHook;

    private EmbeddedKafka(KafkaRaftServer server, String bootstrapServers, Path dataDir) {
        this.server = server;
        this.bootstrapServers = bootstrapServers;
        this.dataDir = dataDir;
        // a JVM stopped by a signal still shuts the broker down cleanly (no log recovery on next start)
        this.shutdownHook = new Thread(this::shutdownServer, "rdv-embedded-kafka-shutdown");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /**
     * Starts a broker whose log directory is {@code dataDir} (created and formatted when it holds no
     * {@code meta.properties}) and returns once it accepts client requests.
     */
    public static EmbeddedKafka start(Path dataDir) throws Exception {
        return start(dataDir, true);
    }

    /**
     * As {@link #start(Path)}; {@code flushEachWrite} makes the broker fsync a partition's log after every append
     * (every produce request), so what a producer with {@code acks=all} was acknowledged survives a machine crash,
     * not only a crash of this process. Off, the page cache holds recent writes until the OS flushes them.
     */
    public static EmbeddedKafka start(Path dataDir, boolean flushEachWrite) throws Exception {
        Path dir = dataDir.toAbsolutePath();
        Files.createDirectories(dir);
        long t0 = System.nanoTime();
        boolean fresh = !Files.exists(dir.resolve("meta.properties"));
        if (fresh) {
            format(dir);
        }
        Exception last = null;
        for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
            int[] ports = LocalPorts.free(2);
            int brokerPort = ports[0];
            int controllerPort = ports[1];
            KafkaRaftServer server = new KafkaRaftServer(new KafkaConfig(config(dir, brokerPort, controllerPort,
                    flushEachWrite)),
                    Time.SYSTEM);
            try {
                server.startup();
            } catch (Exception e) {
                // the free port we picked may have been taken in between: try other ports
                safeShutdown(server);
                last = e;
                if (!isBindFailure(e)) {
                    throw e;
                }
                LOG.warn("embedded Kafka could not bind its ports (attempt {}): {}", attempt, e.toString());
                continue;
            }
            String bootstrap = "127.0.0.1:" + brokerPort;
            EmbeddedKafka kafka = new EmbeddedKafka(server, bootstrap, dir);
            try {
                kafka.awaitBrokerAnswers();
            } catch (Exception e) {
                kafka.close();
                throw e;
            }
            LOG.info("embedded Kafka up at {} on {} ({} dir) in {} ms", bootstrap, dir, fresh ? "new" : "existing",
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
            return kafka;
        }
        throw last;
    }

    /** {@code host:port} of the PLAINTEXT listener on loopback. */
    public String bootstrapServers() {
        return bootstrapServers;
    }

    /** The broker's log directory. */
    public Path dataDir() {
        return dataDir;
    }

    /**
     * Leaves the broker's shutdown at JVM exit to the caller, whose own shutdown hook stops the broker's clients first
     * and then {@link #close()}s it. The JVM runs shutdown hooks at the same time: with this one still registered the
     * broker unloaded its group coordinator while the consumers were leaving their groups, and they logged ERRORs
     * ("not the correct coordinator") on a clean stop.
     */
    public void shutdownByCaller() {
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException jvmShuttingDown) {
            // too late to hand over: the hook runs
        }
    }

    /** Clean shutdown (logs flushed, lock released); idempotent. */
    @Override
    public void close() {
        if (closed.get()) {
            return;
        }
        shutdownServer();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException jvmShuttingDown) {
            // the hook is running or about to: nothing to remove
        }
    }

    private void shutdownServer() {
        if (closed.compareAndSet(false, true)) {
            safeShutdown(server);
            LOG.info("embedded Kafka at {} stopped", bootstrapServers);
        }
    }

    private static void safeShutdown(KafkaRaftServer server) {
        try {
            server.shutdown();
            server.awaitShutdown();
        } catch (RuntimeException e) {
            LOG.warn("embedded Kafka shutdown: {}", e.toString());
        }
    }

    private void awaitBrokerAnswers() throws Exception {
        Map<String, Object> conf = Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) READY_TIMEOUT.toMillis());
        try (Admin admin = Admin.create(conf)) {
            long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
            while (true) {
                long remaining = deadline - System.nanoTime();
                var nodes = admin.describeCluster().nodes().get(Math.max(remaining, 1), TimeUnit.NANOSECONDS);
                if (!nodes.isEmpty()) {
                    return;
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("embedded Kafka at " + bootstrapServers + " lists no broker");
                }
                Thread.sleep(50);
            }
        }
    }

    private static void format(Path dir) throws Exception {
        String clusterId = Uuid.randomUuid().toString();
        new Formatter()
                .setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
                .setNodeId(NODE_ID)
                .setClusterId(clusterId)
                .setDirectories(List.of(dir.toString()))
                .setMetadataLogDirectory(dir.toString())
                .setControllerListenerName(CONTROLLER_LISTENER)
                .run();
        LOG.info("formatted embedded Kafka dir {} (cluster id {})", dir, clusterId);
    }

    private static Properties config(Path dir, int brokerPort, int controllerPort, boolean flushEachWrite) {
        Properties p = new Properties();
        if (flushEachWrite) {
            // a single broker has no replica to fall back on: the disk is the only copy
            p.put("log.flush.interval.messages", "1");
            // each flush of a log flushes its offset and time indexes too (an msync each): with an index entry every
            // 4 KiB (the default) nearly every append left a dirty index page to write; every 64 KiB, about one in
            // twenty does, and a fetch scans at most 64 KiB of batch headers from the entry it finds
            // (docs/benchmarks.md, session 45)
            p.put("log.index.interval.bytes", String.valueOf(64 * 1024));
        }
        p.put("process.roles", "broker,controller");
        p.put("node.id", String.valueOf(NODE_ID));
        p.put("controller.quorum.voters", NODE_ID + "@127.0.0.1:" + controllerPort);
        p.put("listeners", "PLAINTEXT://127.0.0.1:" + brokerPort + "," + CONTROLLER_LISTENER + "://127.0.0.1:"
                + controllerPort);
        p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort);
        p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT," + CONTROLLER_LISTENER + ":PLAINTEXT");
        p.put("controller.listener.names", CONTROLLER_LISTENER);
        p.put("inter.broker.listener.name", "PLAINTEXT");
        p.put("log.dirs", dir.toString());
        p.put("metadata.log.dir", dir.toString());
        // one node: internal topics cannot have more than one replica
        p.put("offsets.topic.replication.factor", "1");
        p.put("offsets.topic.num.partitions", "10");
        p.put("transaction.state.log.replication.factor", "1");
        p.put("transaction.state.log.min.isr", "1");
        p.put("transaction.state.log.num.partitions", "4");
        p.put("share.coordinator.state.topic.replication.factor", "1");
        p.put("share.coordinator.state.topic.min.isr", "1");
        p.put("min.insync.replicas", "1");
        // faster and stricter: no rebalance grace, topics only through TopicSetup
        p.put("group.initial.rebalance.delay.ms", "0");
        p.put("auto.create.topics.enable", "false");
        // after a crash the restarted broker cannot register until the controller has fenced the dead one's session
        // (DUPLICATE_BROKER_REGISTRATION until then): at Kafka's 9 s that was most of a restart. Broker and controller
        // share this JVM, so the old session is always a dead process's; a heartbeat a second, fenced after 4.5 s
        // without one (the default ratio), leaves room for a busy JVM's pauses
        p.put("broker.heartbeat.interval.ms", "1000");
        p.put("broker.session.timeout.ms", "4500");
        // a small footprint: this broker shares a few cores with everything else
        p.put("num.network.threads", "2");
        p.put("num.io.threads", "4");
        p.put("background.threads", "2");
        p.put("num.recovery.threads.per.data.dir", "1");
        p.put("log.cleaner.threads", "1");
        p.put("log.cleaner.dedupe.buffer.size", String.valueOf(16 * 1024 * 1024));
        return p;
    }

    private static boolean isBindFailure(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof BindException) {
                return true;
            }
        }
        return false;
    }
}
