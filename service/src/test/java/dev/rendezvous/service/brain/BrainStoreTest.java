package dev.rendezvous.service.brain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.service.db.Database;
import dev.rendezvous.service.db.EmbeddedPostgresServer;
import dev.rendezvous.service.db.Migrations;
import dev.rendezvous.service.domain.host.HostProgress;
import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.host.HostStage;
import dev.rendezvous.service.domain.host.HostStatus;
import dev.rendezvous.service.domain.host.Inventory;
import dev.rendezvous.service.domain.planning.StepOutputs;
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

/** The brain's commits of cluster and host rows, against a real PostgreSQL. */
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

  /**
   * A host's documents go to PostgreSQL as their UTF-8 bytes, read back there as text: what a later read (the REST
   * view, a restart's load) finds is the text the brain wrote, characters outside ASCII included, in the text columns
   * and in the JSONB ones alike.
   */
  @Test
  void aHostsDocumentsAreStoredAsTheBrainWroteThemWhateverTheirCharacters() throws Exception {
    Vertx vertx = Vertx.vertx();
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dir.resolve("pg"), false)) {
      Pool pool = Database.pool(vertx, pg.connectionUri(), 4);
      await(Migrations.apply(pool));
      UUID cluster = UUID.randomUUID();
      UUID infraEnv = UUID.randomUUID();
      await(BrainFixtures.insertClusterWithInfraEnv(pool, cluster, "c", infraEnv));
      BrainStore store = new BrainStore(pool);
      UUID host = UUID.randomUUID();

      Loaded loaded = await(store.load(WorkKey.cluster(cluster)));
      Work first = new Work(loaded, Instant.now());
      first.insert(HostSnapshot.builder(host, infraEnv).clusterId(cluster).status(HostStatus.DISCOVERING)
          .statusUpdatedAt(Instant.now()).checkedInAt(Instant.now()).registeredAt(Instant.now())
          .inventory(inventory("plain-ascii")).build());
      assertEquals(BrainStore.Outcome.COMMITTED, await(store.commit(first, List.of())));

      // the update writes only what changed: these documents, through the bytes
      String name = "nœud-größe-東京-\uD834\uDD1E";
      Loaded after = first.committed();
      Work second = new Work(after, Instant.now());
      second.put(second.host(host).toBuilder().inventory(inventory(name))
          .validationsInfo(new ValidationsInfo(Map.of("hardware", List.of(
              new ValidationResult("has-cpu-cores-for-role", ValidationStatus.FAILURE, "cœurs: 2 « 4 »")))))
          .progress(new HostProgress(HostStage.INSTALLING, "écrit à 42 %", Instant.now(), Instant.now(), 42))
          .build());
      assertEquals(BrainStore.Outcome.COMMITTED, await(store.commit(second, List.of())));

      Row r = await(pool.preparedQuery("SELECT inventory, validations_info, progress::text FROM hosts WHERE id = $1")
          .execute(Tuple.of(host))).iterator().next();
      assertEquals(name, new JsonObject(r.getString(0)).getString("hostname"), r.getString(0));
      assertTrue(r.getString(1).contains("cœurs: 2 « 4 »"), r.getString(1));
      assertEquals("écrit à 42 %", new JsonObject(r.getString(2)).getString("progress_info"), r.getString(2));
      // and loaded again, as after a restart
      HostSnapshot reloaded = await(new BrainStore(pool).load(WorkKey.cluster(cluster))).hosts().get(host).snapshot();
      assertEquals(name, reloaded.inventory().hostname());
      await(pool.close());
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }

  /**
   * A unit writes only the documents that changed: the cache tells them by tokens, not by their text, so a document
   * whose content is the same must be carried, never made again. The proof: markers put into the columns behind the
   * brain's back survive a unit that renamed the hosts (a new inventory each) and changed their status info, where the
   * inventory, progress, step results and state stayed the same; the renamed inventories are written.
   */
  @Test
  void aUnitWritesOnlyTheDocumentsThatChanged() throws Exception {
    Vertx vertx = Vertx.vertx();
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dir.resolve("pg"), false)) {
      Pool pool = Database.pool(vertx, pg.connectionUri(), 4);
      await(Migrations.apply(pool));
      UUID cluster = UUID.randomUUID();
      UUID infraEnv = UUID.randomUUID();
      await(BrainFixtures.insertClusterWithInfraEnv(pool, cluster, "c", infraEnv));
      BrainStore store = new BrainStore(pool);
      List<UUID> hosts = new java.util.ArrayList<>();
      Work first = new Work(await(store.load(WorkKey.cluster(cluster))), Instant.now());
      for (int i = 0; i < 12; i++) {
        UUID host = UUID.randomUUID();
        hosts.add(host);
        first.insert(HostSnapshot.builder(host, infraEnv).clusterId(cluster).status(HostStatus.DISCOVERING)
            .statusUpdatedAt(Instant.now()).checkedInAt(Instant.now()).registeredAt(Instant.now())
            .progress(new HostProgress(HostStage.INSTALLING, "a progress text long enough to be kept as a token",
                Instant.now(), Instant.now(), 10))
            .ntpSources(StepOutputs.ntp(BrainFixtures.ntp()).ntpSources())
            .inventory(inventory("host-" + i)).build());
      }
      assertEquals(BrainStore.Outcome.COMMITTED, await(store.commit(first, List.of())));
      Loaded after = first.committed();
      UUID unchanged = hosts.get(0);
      await(pool.preparedQuery("UPDATE hosts SET inventory = '{\"marker\": true}' WHERE id = $1")
          .execute(Tuple.of(unchanged)));
      await(pool.query("UPDATE hosts SET progress = '{\"marker\": true}', step_results = '{\"marker\": true}',"
          + " state = '{\"marker\": true}'").execute());

      Work second = new Work(after, Instant.now());
      for (UUID host : hosts) {
        HostSnapshot h = second.host(host);
        second.put(h.toBuilder().inventory(host.equals(unchanged) ? h.inventory() : inventory("renamed-" + host))
            .statusInfo("moved on").build());
      }
      assertEquals(12, second.writes().size());
      assertEquals(BrainStore.Outcome.COMMITTED, await(store.commit(second, List.of())));
      Loaded cached = second.committed();

      for (UUID host : hosts) {
        Row r = await(pool.preparedQuery("SELECT inventory, progress::text, step_results::text, state::text,"
            + " status_info FROM hosts WHERE id = $1").execute(Tuple.of(host))).iterator().next();
        JsonObject inventory = new JsonObject(r.getString(0));
        if (host.equals(unchanged)) {
          assertEquals(true, inventory.getBoolean("marker"), "an unchanged inventory is not written again");
        } else {
          assertEquals("renamed-" + host, inventory.getString("hostname"));
        }
        for (int column = 1; column <= 3; column++) {
          assertEquals(new JsonObject("{\"marker\": true}"), new JsonObject(r.getString(column)),
              "column " + column + " held the same and was not written again");
        }
        assertEquals("moved on", r.getString(4));
        assertEquals(StoredHost.BY_TOKEN, cached.stored().get(host).inventory(), "the cache keeps tokens");
      }
      await(pool.close());
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }

  private static Inventory inventory(String hostname) {
    return StepOutputs.inventory(new JsonObject(BrainFixtures.inventory(1, 8)).put("hostname", hostname).encode());
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
