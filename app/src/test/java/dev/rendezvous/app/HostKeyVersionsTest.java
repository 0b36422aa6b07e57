package dev.rendezvous.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Future;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The brain's key versions (V9__host_key_versions.sql): every write to a key's hosts by anyone but the brain's own
 * commit bumps the key, so the brain notices writes behind its back without counting the key's host rows.
 */
class HostKeyVersionsTest {
  private final Rendezvous system = TestSystem.shared();
  private final Api api = TestSystem.admin();

  @Test
  void aHostDeletedBehindTheBrainsBackIsNoticedAndTheClusterIsNoLongerReady() throws Exception {
    List<String> hosts = BrainFlowTest.newHosts(3);
    try (GatewayDouble gw = new GatewayDouble(system.kafkaBootstrap(), Set.copyOf(hosts))) {
      BrainFlowTest.Ready r = BrainFlowTest.readyCluster(api, gw, "key-versions-delete", hosts);
      BrainFlowTest.awaitCluster(api, r.cluster(), "ready");
      UUID cluster = UUID.fromString(r.cluster());
      // another writer (no brain mark), the key's version row locked first so that no commit of the brain's comes
      // between the reads: the brain's cache still holds three hosts
      long[] versions = system.pool().withTransaction(conn -> lockedVersion(conn, cluster)
              .compose(before -> conn.preparedQuery("DELETE FROM hosts WHERE id = $1")
                  .execute(Tuple.of(UUID.fromString(hosts.get(2))))
                  .compose(x -> lockedVersion(conn, cluster))
                  .map(after -> new long[] {before, after})))
          .await(10, TimeUnit.SECONDS);
      assertTrue(versions[0] > 0, "the brain's commits versioned the key");
      assertEquals(versions[0] + 1, versions[1]);

      BrainFlowTest.awaitCluster(api, r.cluster(), "insufficient");
      assertEquals(2, api.get("/clusters/" + r.cluster()).json().getInteger("total_host_count"));
    }
  }

  @Test
  void checkInsAndTheBrainsMarkedWritesMoveNoVersionOtherWritesAndMovesDo() throws Exception {
    List<String> hosts = BrainFlowTest.newHosts(1);
    try (GatewayDouble gw = new GatewayDouble(system.kafkaBootstrap(), Set.copyOf(hosts))) {
      String c = BrainFlowTest.createCluster(api, "key-versions-writes");
      String ie = api.post("/infra-envs", Api.infraEnv("key-versions-writes-ie", c)).json().getString("id");
      gw.register(c, ie, hosts.get(0));
      BrainFlowTest.awaitHosts(api, ie, hosts, "discovering");
      UUID cluster = UUID.fromString(c);
      UUID infraEnv = UUID.fromString(ie);
      Tuple host = Tuple.of(UUID.fromString(hosts.get(0)));
      // one transaction, rolled back: the key's version row locked first (no commit of the brain's comes between)
      List<Long> seen = new ArrayList<>();
      system.pool().withConnection(conn -> conn.begin().compose(tx -> lockedVersion(conn, cluster).map(seen::add)
              .compose(x -> conn.preparedQuery("UPDATE hosts SET checked_in_at = now() WHERE id = $1").execute(host))
              .compose(x -> lockedVersion(conn, cluster)).map(seen::add)
              .compose(x -> conn.query("SELECT set_config('rdv.brain_write', 'on', true)").execute())
              .compose(x -> conn.preparedQuery("UPDATE hosts SET row_version = row_version + 1 WHERE id = $1").execute(host))
              .compose(x -> lockedVersion(conn, cluster)).map(seen::add)
              .compose(x -> conn.query("SELECT set_config('rdv.brain_write', 'off', true)").execute())
              .compose(x -> conn.preparedQuery("UPDATE hosts SET row_version = row_version + 1 WHERE id = $1").execute(host))
              .compose(x -> lockedVersion(conn, cluster)).map(seen::add)
              .compose(x -> conn.query("SELECT set_config('rdv.brain_write', 'on', true)").execute())
              .compose(x -> conn.preparedQuery("UPDATE hosts SET cluster_id = NULL, row_version = row_version + 1"
                  + " WHERE id = $1").execute(host))
              .compose(x -> lockedVersion(conn, cluster)).map(seen::add)
              .compose(x -> conn.preparedQuery("SELECT version FROM unbound_host_versions WHERE infra_env_id = $1")
                  .execute(Tuple.of(infraEnv)))
              .map(rs -> seen.add(rs.size() == 0 ? 0L : rs.iterator().next().getLong(0)))
              .eventually(() -> tx.rollback())))
          .await(10, TimeUnit.SECONDS);
      long v0 = seen.get(0);
      assertTrue(v0 > 0, "the registration's commit versioned the key");
      assertEquals(v0, seen.get(1), "a check-in is no state change");
      assertEquals(v0, seen.get(2), "the brain's commit versions its key itself");
      assertEquals(v0 + 1, seen.get(3), "any other writer's change bumps the key");
      assertEquals(v0 + 2, seen.get(4), "a host leaving the key bumps it, whoever moves it");
      assertEquals(1L, seen.get(5), "and the key it joins");
    }
  }

  /** The cluster key's version, its row locked until the transaction ends. */
  private static Future<Long> lockedVersion(SqlConnection conn, UUID cluster) {
    return conn.preparedQuery("SELECT version FROM cluster_host_versions WHERE cluster_id = $1 FOR UPDATE")
        .execute(Tuple.of(cluster)).map(rs -> rs.size() == 0 ? 0L : rs.iterator().next().getLong(0));
  }
}
