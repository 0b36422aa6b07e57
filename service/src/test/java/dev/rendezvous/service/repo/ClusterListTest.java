package dev.rendezvous.service.repo;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rendezvous.service.db.Database;
import dev.rendezvous.service.db.EmbeddedPostgresServer;
import dev.rendezvous.service.db.Migrations;
import dev.rendezvous.service.repo.ClusterRepository.ClusterRow;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cluster list reads the documents as text, each row parsed when its view is made: each row as the single read
 * (the client's own decoding of the jsonb columns) gives it, in the list's order, the tenant's only.
 */
class ClusterListTest {
  @TempDir Path dir;

  @Test
  void theListIsEachRowAsReadAloneOldestFirstThenByIdAndTheTenantsOnly() throws Exception {
    Vertx vertx = Vertx.vertx();
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dir.resolve("pg"), false)) {
      Pool pool = Database.pool(vertx, pg.connectionUri(), 4);
      await(Migrations.apply(pool));
      OffsetDateTime start = OffsetDateTime.now(ZoneOffset.UTC);
      // made newest first, so that the table's order is not the list's
      List<UUID> oldestFirst = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        oldestFirst.add(0, insert(pool, "t", start.minusSeconds(i), i));
      }
      // made at the same instant: by id
      List<UUID> sameInstant = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        sameInstant.add(insert(pool, "u", start, i));
      }
      sameInstant.sort(Comparator.comparing(UUID::toString)); // PostgreSQL orders uuids by their bytes

      assertEquals(single(pool, "t", oldestFirst), parsed(ClusterRepository.list(pool, "t")));
      assertEquals(single(pool, "u", sameInstant), parsed(ClusterRepository.list(pool, "u")));
      assertEquals(List.of(), parsed(ClusterRepository.list(pool, "none")));
      await(pool.close());
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }

  /**
   * A cluster whose validations are an object (with non-ASCII text and quotes), an array, or none yet (as a new
   * cluster's: no validations, no progress), with a state.
   */
  private static UUID insert(Pool pool, String tenant, OffsetDateTime created, int i) throws Exception {
    UUID id = UUID.randomUUID();
    await(ClusterRepository.insert(pool, new ClusterRow(id, tenant, "c" + i, "4.18", "insufficient", "why " + i,
        created, new JsonObject().put("base_dns_domain", "example.com")
            .put("api_vips", new JsonArray().add("10.0.0." + i)), null, null, null, null, 1, created, created),
        "secret"));
    Object validations = i % 3 == 0 ? new JsonObject().put("network", new JsonArray().add(
        new JsonObject().put("id", "api-vips-defined").put("status", "success").put("message", "ünïcode \"quoted\"")))
        : i % 3 == 1 ? new JsonArray().add(i) : null;
    await(pool.preparedQuery("UPDATE clusters SET validations_info = $2, progress = $3, state = $4,"
            + " install_started_at = $5 WHERE id = $1")
        .execute(Tuple.of(id, validations, validations == null ? null : new JsonObject().put("total_percentage", i),
            new JsonObject().put("n", i).put("nested", new JsonObject().put("ok", true)), created)));
    return id;
  }

  private static List<ClusterRow> single(Pool pool, String tenant, List<UUID> ids) throws Exception {
    List<ClusterRow> out = new ArrayList<>();
    for (UUID id : ids) {
      out.add(await(ClusterRepository.get(pool, tenant, id)).orElseThrow());
    }
    return out;
  }

  private static List<ClusterRow> parsed(Future<List<ClusterRepository.UnparsedRow>> rows) throws Exception {
    return await(rows).stream().map(ClusterRepository.UnparsedRow::parse).toList();
  }

  private static <T> T await(Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
  }
}
