package dev.rendezvous.service.auth;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.service.db.Database;
import dev.rendezvous.service.db.EmbeddedPostgresServer;
import dev.rendezvous.service.db.Migrations;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Deletions another instance made are read by this one: later ones, late-committed ones within the overlap, not expired ones. */
class InfraEnvTokenStatesTest {
  @TempDir Path dir;

  @Test
  void followsDeletionsOfOtherInstances() throws Exception {
    Vertx vertx = Vertx.vertx();
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dir.resolve("pg"), false)) {
      Pool pool = Database.pool(vertx, pg.connectionUri(), 2);
      Migrations.apply(pool).await(60, TimeUnit.SECONDS);
      OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
      UUID before = UUID.randomUUID();
      UUID expired = UUID.randomUUID();
      insert(pool, before, now.minusMinutes(1));
      insert(pool, expired, now.minusDays(31));
      InfraEnvTokenStates.follow(vertx, pool, 100).await(30, TimeUnit.SECONDS);
      assertTrue(InfraEnvTokenStates.isDeleted(before.toString()), "read by the first read, before any agent");
      assertFalse(InfraEnvTokenStates.isDeleted(expired.toString()), "past the 30 days kept");

      UUID later = UUID.randomUUID();
      insert(pool, later, now.plusSeconds(1));
      until(() -> InfraEnvTokenStates.isDeleted(later.toString()));
      // a deleting transaction that committed after the newest deletion read, with an earlier time: inside the overlap
      UUID late = UUID.randomUUID();
      insert(pool, late, now.minusMinutes(3));
      until(() -> InfraEnvTokenStates.isDeleted(late.toString()));
      // the real trigger: an infra-env row deleted
      UUID row = UUID.randomUUID();
      pool.preparedQuery("INSERT INTO infra_envs (id, tenant, name, spec, pull_secret, created_at, updated_at)"
          + " VALUES ($1, 't', 'n', '{}'::jsonb, 'p', now(), now())")
          .execute(Tuple.of(row)).await(10, TimeUnit.SECONDS);
      Thread.sleep(300);
      assertFalse(InfraEnvTokenStates.isDeleted(row.toString()), "a live infra-env");
      pool.preparedQuery("DELETE FROM infra_envs WHERE id = $1").execute(Tuple.of(row)).await(10, TimeUnit.SECONDS);
      until(() -> InfraEnvTokenStates.isDeleted(row.toString()));
      assertFalse(InfraEnvTokenStates.isDeleted(expired.toString()));
      pool.close().await(10, TimeUnit.SECONDS);
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }

  private static void insert(Pool pool, UUID id, OffsetDateTime at) throws Exception {
    pool.preparedQuery("INSERT INTO deleted_infra_envs (id, deleted_at) VALUES ($1, $2)").execute(Tuple.of(id, at))
        .await(10, TimeUnit.SECONDS);
  }

  private static void until(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertTrue(condition.getAsBoolean(), "read within 10 s");
  }
}
