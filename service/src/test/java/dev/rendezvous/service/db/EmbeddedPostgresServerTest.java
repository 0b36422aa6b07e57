package dev.rendezvous.service.db;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedPostgresServerTest {
  @TempDir Path dir;

  @Test
  void migratesOnceAndKeepsDataAcrossRestart() throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      Path data = dir.resolve("postgres");
      try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(data)) {
        Pool pool = Database.pool(vertx, pg.connectionUri(), 2);
        List<String> first = await(Migrations.apply(pool));
        assertEquals(Migrations.listed(), first);
        assertEquals(List.of(), await(Migrations.apply(pool)), "second run applies nothing");
        await(pool.query("INSERT INTO api_tokens (token_hash, tenant, name) VALUES ('h1', 't', 'n')").execute());
        await(pool.close());
      }
      try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(data)) {
        Pool pool = Database.pool(vertx, pg.connectionUri(), 2);
        assertEquals(List.of(), await(Migrations.apply(pool)));
        var rows = await(pool.query("SELECT tenant FROM api_tokens WHERE token_hash = 'h1'").execute());
        assertEquals(1, rows.size());
        assertEquals("t", rows.iterator().next().getString(0));
        await(pool.close());
      }
      assertTrue(data.resolve("PG_VERSION").toFile().exists());
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }

  private static <T> T await(io.vertx.core.Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }
}
