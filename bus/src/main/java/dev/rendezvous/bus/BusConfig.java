package dev.rendezvous.bus;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * How this process reaches the bus. Each setting comes from a flag ({@code --kafka-bootstrap=host:port}), else an
 * environment variable ({@code RDV_KAFKA_BOOTSTRAP}), else the local default:
 *
 * <table>
 *   <caption>settings</caption>
 *   <tr><td>--kafka-bootstrap / RDV_KAFKA_BOOTSTRAP</td><td>external brokers; unset = embedded broker</td></tr>
 *   <tr><td>--kafka-data-dir / RDV_KAFKA_DATA_DIR</td><td>embedded broker's log dir, default {@code data/kafka}</td></tr>
 *   <tr><td>--kafka-partitions / RDV_KAFKA_PARTITIONS</td><td>partitions of created topics, default 12</td></tr>
 *   <tr><td>--kafka-replication / RDV_KAFKA_REPLICATION</td><td>replicas of created topics, default 1 (3 is usual
 *       for external clusters)</td></tr>
 *   <tr><td>--kafka-setup-timeout-seconds / RDV_KAFKA_SETUP_TIMEOUT_SECONDS</td><td>default 60</td></tr>
 * </table>
 */
public record BusConfig(String bootstrapServers, Path embeddedDataDir, int partitions, short replication,
        Duration setupTimeout) {

    /** The flag names this record reads, so a launcher can refuse the ones nobody reads. */
    public static final List<String> FLAGS = List.of("kafka-bootstrap", "kafka-data-dir", "kafka-partitions",
            "kafka-replication", "kafka-setup-timeout-seconds");

    public BusConfig {
        if (partitions < 1) {
            throw new IllegalArgumentException("kafka-partitions must be >= 1, got " + partitions);
        }
        if (replication < 1) {
            throw new IllegalArgumentException("kafka-replication must be >= 1, got " + replication);
        }
        if (bootstrapServers != null && bootstrapServers.isBlank()) {
            bootstrapServers = null;
        }
    }

    /** Local defaults: embedded broker under {@code data/kafka}, 12 partitions, replication 1. */
    public static BusConfig defaults() {
        return new BusConfig(null, Path.of("data", "kafka"), 12, (short) 1, Duration.ofSeconds(60));
    }

    /** The same settings with the embedded broker's directory moved (the launcher keeps it under its data dir). */
    public BusConfig withEmbeddedDataDir(Path dir) {
        return new BusConfig(bootstrapServers, dir, partitions, replication, setupTimeout);
    }

    /** True when no external bootstrap servers are given: the process runs {@link EmbeddedKafka}. */
    public boolean embedded() {
        return bootstrapServers == null;
    }

    /** Reads flags (they win) and {@code RDV_*} variables; unknown flags are left to others. */
    public static BusConfig from(String[] args, Map<String, String> env) {
        BusConfig d = defaults();
        String bootstrap = setting(args, env, "kafka-bootstrap", null);
        Path dir = Path.of(setting(args, env, "kafka-data-dir", d.embeddedDataDir().toString()));
        int partitions = intSetting(args, env, "kafka-partitions", d.partitions());
        int replication = intSetting(args, env, "kafka-replication", d.replication());
        if (replication > Short.MAX_VALUE) {
            throw new IllegalArgumentException("kafka-replication is too large: " + replication);
        }
        int timeout = intSetting(args, env, "kafka-setup-timeout-seconds", (int) d.setupTimeout().toSeconds());
        if (timeout < 1) {
            throw new IllegalArgumentException("kafka-setup-timeout-seconds must be >= 1, got " + timeout);
        }
        return new BusConfig(bootstrap, dir, partitions, (short) replication, Duration.ofSeconds(timeout));
    }

    private static String setting(String[] args, Map<String, String> env, String name, String fallback) {
        String prefix = "--" + name + "=";
        for (String arg : args) {
            if (arg.startsWith(prefix)) {
                return arg.substring(prefix.length());
            }
        }
        String fromEnv = env.get("RDV_" + name.toUpperCase().replace('-', '_'));
        return fromEnv != null ? fromEnv : fallback;
    }

    private static int intSetting(String[] args, Map<String, String> env, String name, int fallback) {
        String value = setting(args, env, name, null);
        if (value == null) {
            return fallback;
        }
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be an integer, got '" + value + "'");
        }
    }
}
