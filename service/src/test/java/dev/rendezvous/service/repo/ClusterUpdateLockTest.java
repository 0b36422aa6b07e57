package dev.rendezvous.service.repo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.service.db.Database;
import dev.rendezvous.service.db.EmbeddedPostgresServer;
import dev.rendezvous.service.db.Migrations;
import dev.rendezvous.service.repo.ClusterRepository.ClusterRow;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A user's read-modify-write of a cluster (PATCH, install-config) and a brain commit guarded by the row version, at the
 * same moment: the user's write lands and the brain's finds the row changed (it reads again), instead of the user being
 * answered 409 because the brain wrote between the read and the write (seen in CI right after a cluster was created).
 */
class ClusterUpdateLockTest {
  @TempDir Path dir;

  @Test
  void aUsersUpdateHoldsTheRowAgainstABrainCommitInBetween() throws Exception {
    Vertx vertx = Vertx.vertx();
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dir.resolve("pg"), false)) {
      Pool pool = Database.pool(vertx, pg.connectionUri(), 4);
      await(Migrations.apply(pool));
      UUID id = UUID.randomUUID();
      OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
      ClusterRow row = new ClusterRow(id, "t", "c", "4.18", "insufficient", "", now, new JsonObject(), null, null, null,
          null, 1, now, now, new JsonObject());
      await(ClusterRepository.insert(pool, row, "secret"));

      Promise<Void> userHasRead = Promise.promise();
      Promise<Void> brainWent = Promise.promise();
      Future<Boolean> user = pool.withTransaction(tx -> ClusterRepository.getForUpdate(tx, "t", id)
          .compose(read -> {
            userHasRead.complete();
            // the brain's guarded write is sent now; give it time to land if nothing holds it back
            return brainWent.future().compose(v -> vertx.timer(300)).map(t -> read.orElseThrow());
          })
          .compose(c -> ClusterRepository.updateSpec(tx, new ClusterRow(c.id(), c.tenant(), "renamed",
              c.openshiftVersion(), c.status(), c.statusInfo(), c.statusUpdatedAt(), c.spec().copy().put("k", 1),
              c.validationsInfo(), c.progress(), c.installStartedAt(), c.installCompletedAt(), c.rowVersion() + 1,
              c.createdAt(), c.updatedAt(), c.state()), c.rowVersion(), null)));
      Future<Integer> brain = userHasRead.future().compose(v -> {
        Future<Integer> write = pool.preparedQuery("UPDATE clusters SET status_info = 'brain', row_version = row_version + 1"
            + " WHERE id = $1 AND row_version = $2").execute(Tuple.of(id, 1L)).map(rs -> rs.rowCount());
        brainWent.complete();
        return write;
      });

      assertTrue(await(user), "the user's update found the row as it read it");
      assertEquals(0, await(brain), "the brain's write waited, then found a newer version (it reads again)");
      ClusterRow after = await(ClusterRepository.get(pool, "t", id)).orElseThrow();
      assertEquals("renamed", after.name());
      assertEquals(2, after.rowVersion());
      assertFalse("brain".equals(after.statusInfo()));
      await(pool.close());
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }

  private static <T> T await(Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
  }
}
