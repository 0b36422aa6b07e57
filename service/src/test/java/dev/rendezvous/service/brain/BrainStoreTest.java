package dev.rendezvous.service.brain;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rendezvous.service.db.Database;
import dev.rendezvous.service.db.EmbeddedPostgresServer;
import dev.rendezvous.service.db.Migrations;
import dev.rendezvous.service.domain.validation.ValidationResult;
import dev.rendezvous.service.domain.validation.ValidationStatus;
import dev.rendezvous.service.domain.validation.ValidationsInfo;
import dev.rendezvous.service.repo.ClusterRepository;
import dev.rendezvous.service.repo.ClusterRepository.ClusterRow;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.nio.file.Path;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The brain's commits of a cluster row, against a real PostgreSQL. */
class BrainStoreTest {
  @TempDir Path dir;

  /**
   * Most of a site's cluster writes move its status or stage and leave its validations (the row's largest document)
   * as they were: those are not sent again. The proof: a value put into the column behind the brain's back survives a
   * commit that changed the status only, and a commit that changed the validations replaces it.
   */
  @Test
  void aCommitWritesTheClustersValidationsOnlyWhenTheyChanged() throws Exception {
    Vertx vertx = Vertx.vertx();
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dir.resolve("pg"), false)) {
      Pool pool = Database.pool(vertx, pg.connectionUri(), 4);
      await(Migrations.apply(pool));
      UUID id = UUID.randomUUID();
      OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
      await(ClusterRepository.insert(pool, new ClusterRow(id, "t", "c", "4.18", "insufficient", "", now,
          new JsonObject(BrainFixtures.readyClusterSpec()), null, null, null, null, 1, now, now, new JsonObject()),
          "secret"));
      BrainStore store = new BrainStore(pool);

      Loaded loaded = await(store.load(WorkKey.cluster(id)));
      ValidationsInfo first = validations("hosts-count is fine");
      Work w = new Work(loaded, Instant.now());
      w.putCluster(loaded.cluster().context().toBuilder().validationsInfo(first).build());
      assertEquals(BrainStore.Outcome.COMMITTED, await(store.commit(w, List.of())));
      assertEquals(new JsonObject(first.toJson()), document(pool, id), "changed validations are written");

      await(pool.preparedQuery("UPDATE clusters SET validations_info = '{\"marker\": []}' WHERE id = $1")
          .execute(Tuple.of(id)));
      Loaded afterFirst = w.committed();
      Work statusOnly = new Work(afterFirst, Instant.now());
      statusOnly.putCluster(afterFirst.cluster().context().toBuilder().statusInfo("moved on").build());
      assertEquals(BrainStore.Outcome.COMMITTED, await(store.commit(statusOnly, List.of())));
      assertEquals("moved on", column(pool, id, "status_info"));
      assertEquals(new JsonObject("{\"marker\": []}"), document(pool, id),
          "validations equal to the ones loaded are not written");

      Loaded afterStatus = statusOnly.committed();
      ValidationsInfo second = validations("hosts-count changed its message");
      Work changed = new Work(afterStatus, Instant.now());
      changed.putCluster(afterStatus.cluster().context().toBuilder().validationsInfo(second).build());
      assertEquals(BrainStore.Outcome.COMMITTED, await(store.commit(changed, List.of())));
      assertEquals(new JsonObject(second.toJson()), document(pool, id));
      assertEquals("moved on", column(pool, id, "status_info"));
      await(pool.close());
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }

  private static ValidationsInfo validations(String message) {
    return new ValidationsInfo(Map.of("hosts-data", List.of(
        new ValidationResult("sufficient-masters-count", ValidationStatus.SUCCESS, message))));
  }

  private static String column(Pool pool, UUID id, String name) throws Exception {
    Row r = await(pool.preparedQuery("SELECT " + name + "::text FROM clusters WHERE id = $1").execute(Tuple.of(id)))
        .iterator().next();
    return r.getString(0);
  }

  private static JsonObject document(Pool pool, UUID id) throws Exception {
    return new JsonObject(column(pool, id, "validations_info"));
  }

  private static <T> T await(Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
  }
}
