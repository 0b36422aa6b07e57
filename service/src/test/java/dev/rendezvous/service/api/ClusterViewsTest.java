package dev.rendezvous.service.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.service.catalog.ReleaseCatalog;
import dev.rendezvous.service.db.Database;
import dev.rendezvous.service.db.EmbeddedPostgresServer;
import dev.rendezvous.service.db.Migrations;
import dev.rendezvous.service.repo.ClusterRepository;
import dev.rendezvous.service.repo.ClusterRepository.ClusterRow;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A cluster's GET without hosts, kept encoded: it follows its row's version and its hosts' counts, on PostgreSQL. */
class ClusterViewsTest {
  @TempDir Path dir;

  @Test
  void theKeptViewFollowsTheRowAndTheHostCountsAndAGoneClusterIsNotFound() throws Exception {
    Vertx vertx = Vertx.vertx();
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dir.resolve("pg"), false)) {
      Pool pool = Database.pool(vertx, pg.connectionUri(), 4);
      await(Migrations.apply(pool));
      UUID id = UUID.randomUUID();
      UUID infraEnv = UUID.randomUUID();
      OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
      await(ClusterRepository.insert(pool, new ClusterRow(id, "t", "edge-1", "4.18", "insufficient", "", now,
          new JsonObject().put("base_dns_domain", "example.com"), null, null, null, null, 1, now, now, new JsonObject()),
          "secret"));
      await(pool.preparedQuery("INSERT INTO infra_envs (id, tenant, cluster_id, name, spec, pull_secret, created_at,"
          + " updated_at) VALUES ($1, 't', $2, 'ie', '{}', 'secret', now(), now())").execute(Tuple.of(infraEnv, id)));
      ClusterViews views = new ClusterViews(ReleaseCatalog.builtIn());

      JsonObject first = view(views, pool, id);
      assertEquals("edge-1", first.getString("name"));
      assertEquals(0, first.getInteger("total_host_count"));

      // a host comes (the cluster's row untouched): the counts are the view's too
      addHost(pool, infraEnv, id, "known");
      JsonObject counted = view(views, pool, id);
      assertEquals(1, counted.getInteger("total_host_count"));
      assertEquals(1, counted.getInteger("ready_host_count"));
      // the same row and counts: the same view
      assertEquals(counted, view(views, pool, id));

      // a write to the row bumps its version: the view is built again
      await(pool.preparedQuery("UPDATE clusters SET name = 'edge-2', row_version = row_version + 1 WHERE id = $1")
          .execute(Tuple.of(id)));
      assertEquals("edge-2", view(views, pool, id).getString("name"));

      // another tenant's cluster is not found, and neither is one deleted
      ExecutionException other = assertThrows(ExecutionException.class, () -> await(views.one(pool, "u", id)));
      assertTrue(other.getCause() instanceof ApiError e && e.getMessage().contains(id.toString()), other.toString());
      await(pool.preparedQuery("DELETE FROM clusters WHERE id = $1").execute(Tuple.of(id)));
      ExecutionException gone = assertThrows(ExecutionException.class, () -> await(views.one(pool, "t", id)));
      assertTrue(gone.getCause() instanceof ApiError, gone.toString());
      await(pool.close());
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }

  private static JsonObject view(ClusterViews views, Pool pool, UUID id) throws Exception {
    return new JsonObject(await(views.one(pool, "t", id)));
  }

  private static void addHost(Pool pool, UUID infraEnv, UUID cluster, String status) throws Exception {
    await(pool.preparedQuery("INSERT INTO hosts (id, infra_env_id, cluster_id, status, status_info, status_updated_at,"
        + " registered_at, created_at, updated_at) VALUES ($1, $2, $3, $4, '', now(), now(), now(), now())")
        .execute(Tuple.of(UUID.randomUUID(), infraEnv, cluster, status)));
  }

  private static <T> T await(Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
  }
}
