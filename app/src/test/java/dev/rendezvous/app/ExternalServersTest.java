package dev.rendezvous.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.rendezvous.bus.EmbeddedKafka;
import dev.rendezvous.service.db.EmbeddedPostgresServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With RDV_DATABASE_URL / RDV_KAFKA_BOOTSTRAP set, the program uses those servers and starts none of
 * its own. Here the "external" servers are real ones started beside it, in other directories.
 */
class ExternalServersTest {
  @TempDir Path servers;
  @TempDir Path dataDir;

  @Test
  void usesConfiguredServersAndStartsNoneOfItsOwn() throws Exception {
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(servers.resolve("pg"));
        EmbeddedKafka kafka = EmbeddedKafka.start(servers.resolve("kafka"));
        Rendezvous system = TestSystem.start(dataDir, Map.of(
            "database-url", pg.connectionUri(),
            "kafka-bootstrap", kafka.bootstrapServers()))) {
      Api api = new Api(system.config().apiPort(), Files.readString(system.adminTokenFile()).strip());
      assertEquals(201, api.post("/clusters", Api.cluster("external")).status());
      assertEquals(200, api.get("/ready").status());
      assertFalse(Files.exists(dataDir.resolve("postgres")), "no embedded PostgreSQL was started");
      assertFalse(Files.exists(dataDir.resolve("kafka")), "no embedded Kafka was started");
      assertEquals(kafka.bootstrapServers(), system.kafkaBootstrap());
    }
  }
}
