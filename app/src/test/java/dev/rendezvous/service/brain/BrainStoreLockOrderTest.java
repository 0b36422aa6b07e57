package dev.rendezvous.service.brain;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.rendezvous.app.Rendezvous;
import dev.rendezvous.app.TestSystem;
import io.vertx.core.Future;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Check-ins ({@link BrainStore#touch}) lock host rows in the order a unit's commit writes them (id order), so the two
 * never deadlock: in the 38,000-agent run 20 brain batches failed on "deadlock detected" (retried, nothing lost).
 * Here against the real database; in the brain's package, on the app's test classpath, as it needs the system's.
 */
class BrainStoreLockOrderTest {
  private final Rendezvous system = TestSystem.shared();

  @Test
  void aCheckInBatchWaitsForAWriterThatLocksItsHostsInIdOrderInsteadOfDeadlockingWithIt() throws Exception {
    UUID infraEnv = UUID.randomUUID();
    List<UUID> ids = new ArrayList<>(List.of(UUID.randomUUID(), UUID.randomUUID()));
    ids.sort(BrainStore.HOST_ORDER);
    UUID low = ids.get(0);
    UUID high = ids.get(1);
    system.pool().withTransaction(conn -> conn.preparedQuery("INSERT INTO infra_envs (id, tenant, name, spec, pull_secret,"
            + " row_version, created_at, updated_at) VALUES ($1, 'default', 'lock-order', '{}', '{}', 1, now(), now())")
        .execute(Tuple.of(infraEnv))
        .compose(x -> conn.preparedQuery("INSERT INTO hosts (id, infra_env_id, status, status_info,"
            + " status_updated_at, row_version, registered_at, created_at, updated_at)"
            + " SELECT unnest($1::uuid[]), $2, 'discovering-unbound', '', now(), 1, now(), now(), now()")
            .execute(Tuple.of(new UUID[] {high, low}, infraEnv))))
        .await(10, TimeUnit.SECONDS);

    // (the higher host's row comes first in the table and in the check-ins: whichever way the statement's plan reads
    // them, it meets the higher first unless it locks in id order)
    // a writer holds the lower host, as a commit writing both does first
    SqlConnection writer = system.pool().getConnection().await(10, TimeUnit.SECONDS);
    try {
      writer.query("BEGIN").execute()
          .compose(x -> writer.preparedQuery("UPDATE hosts SET updated_at = now() WHERE id = $1").execute(Tuple.of(low)))
          .await(10, TimeUnit.SECONDS);
      // the check-ins name the higher host first
      Instant at = Instant.now().plusSeconds(3600);
      Future<Set<UUID>> touched = new BrainStore(system.pool()).touch(List.of(
          new BrainStore.CheckIn(high, infraEnv, at, at.getEpochSecond()),
          new BrainStore.CheckIn(low, infraEnv, at, at.getEpochSecond())));
      awaitALockWait();
      // the writer goes on to the higher host: free, unless the check-ins took it out of order (then PostgreSQL finds
      // a deadlock after its deadlock_timeout and fails one of the two)
      writer.preparedQuery("UPDATE hosts SET updated_at = now() WHERE id = $1").execute(Tuple.of(high))
          .compose(x -> writer.query("COMMIT").execute())
          .await(20, TimeUnit.SECONDS);
      assertEquals(Set.of(low, high), touched.await(20, TimeUnit.SECONDS));
    } finally {
      writer.close();
      system.pool().preparedQuery("DELETE FROM infra_envs WHERE id = $1").execute(Tuple.of(infraEnv))
          .await(10, TimeUnit.SECONDS);
    }
  }

  /** Until a statement waits for a row lock (the check-ins, behind the writer). */
  private void awaitALockWait() throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < deadline) {
      long waiting = system.pool().query("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
          + " AND query LIKE '%checked_in_at = t.at%'").execute().map(rs -> rs.iterator().next().getLong(0))
          .await(10, TimeUnit.SECONDS);
      if (waiting > 0) {
        return;
      }
      Thread.sleep(20);
    }
    throw new AssertionError("the check-ins never waited for the writer's lock");
  }
}
