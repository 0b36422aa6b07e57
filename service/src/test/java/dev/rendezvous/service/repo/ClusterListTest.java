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
  void theListIsEachRowAsReadAloneOldestFirstAndTheTenantsOnly() throws Exception {
    Vertx vertx = Vertx.vertx();
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dir.resolve("pg"), false)) {
      Pool pool = Database.pool(vertx, pg.connectionUri(), 4);
      await(Migrations.apply(pool));
      OffsetDateTime start = OffsetDateTime.now(ZoneOffset.UTC);
      List<UUID> inOrder = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        inOrder.add(insert(pool, "t", start.plusSeconds(i), i));
      }
      List<UUID> outOfOrder = List.of(insert(pool, "u", start.plusSeconds(2), 1),
          insert(pool, "u", start.plusSeconds(1), 2));

      assertEquals(single(pool, "t", inOrder), parsed(ClusterRepository.list(pool, "t")));
      assertEquals(single(pool, "u", List.of(outOfOrder.get(1), outOfOrder.get(0))),
          parsed(ClusterRepository.list(pool, "u")));
      assertEquals(List.of(), parsed(ClusterRepository.list(pool, "none")));
      await(pool.close());
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }

  /** A cluster whose documents are all set, of each JSON kind a validations document may be stored as. */
  private static UUID insert(Pool pool, String tenant, OffsetDateTime created, int i) throws Exception {
    UUID id = UUID.randomUUID();
    await(ClusterRepository.insert(pool, new ClusterRow(id, tenant, "c" + i, "4.18", "insufficient", "why " + i,
        created, new JsonObject().put("base_dns_domain", "example.com")
            .put("api_vips", new JsonArray().add("10.0.0." + i)), null, null, null, null, 1, created, created),
        "secret"));
    Object validations = i % 2 == 0 ? new JsonObject().put("network", new JsonArray().add(
        new JsonObject().put("id", "api-vips-defined").put("status", "success").put("message", "ünïcode \"quoted\"")))
        : new JsonArray().add(i);
    await(pool.preparedQuery("UPDATE clusters SET validations_info = $2, progress = $3, state = $4,"
            + " install_started_at = $5 WHERE id = $1")
        .execute(Tuple.of(id, validations, new JsonObject().put("total_percentage", i),
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
