package dev.rendezvous.bus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BusConfigTest {

    @Test
    void defaultsAreAnEmbeddedBroker() {
        BusConfig c = BusConfig.from(new String[0], Map.of());
        assertTrue(c.embedded());
        assertEquals(Path.of("data", "kafka"), c.embeddedDataDir());
        assertEquals(12, c.partitions());
        assertEquals(1, c.replication());
    }

    @Test
    void flagsWinOverEnvironment() {
        BusConfig c = BusConfig.from(new String[] {"--kafka-bootstrap=k1:9092,k2:9092", "--kafka-partitions=24"},
                Map.of("RDV_KAFKA_BOOTSTRAP", "env:9092", "RDV_KAFKA_PARTITIONS", "6", "RDV_KAFKA_REPLICATION", "3",
                        "RDV_KAFKA_SETUP_TIMEOUT_SECONDS", "5"));
        assertFalse(c.embedded());
        assertEquals("k1:9092,k2:9092", c.bootstrapServers());
        assertEquals(24, c.partitions());
        assertEquals(3, c.replication());
        assertEquals(Duration.ofSeconds(5), c.setupTimeout());
    }

    @Test
    void badValuesNameTheSettingAndTheReason() {
        IllegalArgumentException notInt = assertThrows(IllegalArgumentException.class,
                () -> BusConfig.from(new String[] {"--kafka-partitions=many"}, Map.of()));
        assertEquals("kafka-partitions must be an integer, got 'many'", notInt.getMessage());
        IllegalArgumentException zero = assertThrows(IllegalArgumentException.class,
                () -> BusConfig.from(new String[0], Map.of("RDV_KAFKA_REPLICATION", "0")));
        assertEquals("kafka-replication must be >= 1, got 0", zero.getMessage());
    }
}
