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

  @Test
  void isDurableByDefaultAndRelaxedOnlyWhenAsked() throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dir.resolve("durable"))) {
        Pool pool = Database.pool(vertx, pg.connectionUri(), 1);
        assertEquals("on", show(pool, "fsync"));
        assertEquals("on", show(pool, "synchronous_commit"));
        assertEquals("on", show(pool, "full_page_writes"));
        assertEquals("0", show(pool, "max_parallel_workers_per_gather"), "no parallel query (short reads, and it failed"
            + " to start its workers at 10,000 sites)");
        await(pool.close());
      }
      try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dir.resolve("relaxed"), false)) {
        Pool pool = Database.pool(vertx, pg.connectionUri(), 1);
        assertEquals("off", show(pool, "fsync"));
        assertEquals("off", show(pool, "synchronous_commit"));
        await(pool.close());
      }
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void aServerWhoseOwnerIsKilledStopsWithItAndAnOrphanIsStoppedAtTheNextStart() throws Exception {
    // the watchdog: the owner killed with -9, its server stops by itself
    Path data = dir.resolve("postgres");
    Owner first = Owner.start(data);
    first.process.destroyForcibly().waitFor();
    assertTrue(ProcessHandle.of(first.postmaster).map(h -> h.onExit().orTimeout(15, TimeUnit.SECONDS).join())
        .map(h -> !h.isAlive()).orElse(true), "the server stopped with its owner");

    // no watchdog either (killed too): the next start finds the orphan, stops it, and starts
    Owner second = Owner.start(data);
    new ProcessBuilder("kill", "-9", Long.toString(second.watchdog)).start().waitFor();
    second.process.destroyForcibly().waitFor();
    assertTrue(ProcessHandle.of(second.postmaster).map(ProcessHandle::isAlive).orElse(false), "a true orphan");
    try (EmbeddedPostgresServer next = EmbeddedPostgresServer.start(data)) {
      assertTrue(ProcessHandle.of(second.postmaster).map(h -> !h.isAlive()).orElse(true), "the orphan was stopped");
      Vertx vertx = Vertx.vertx();
      try {
        Pool pool = Database.pool(vertx, next.connectionUri(), 1);
        assertEquals("on", show(pool, "fsync"));
        await(pool.close());
      } finally {
        vertx.close().await(10, TimeUnit.SECONDS);
      }
    }
  }

  /** A Rendezvous-like owner in a child JVM: it starts the server on a directory and waits to be killed. */
  record Owner(Process process, long postmaster, long watchdog) {
    static Owner start(Path data) throws Exception {
      String java = ProcessHandle.current().info().command().orElse("java");
      Process p = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), OwnerMain.class.getName(),
          data.toString()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
      var out = new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream()));
      for (String line; (line = out.readLine()) != null; ) {
        if (line.startsWith("READY ")) {
          String[] f = line.split(" ");
          return new Owner(p, Long.parseLong(f[1]), Long.parseLong(f[2]));
        }
      }
      throw new IllegalStateException("the owner JVM ended before its server started: " + p.waitFor());
    }
  }

  /** Main of the child JVM. */
  public static final class OwnerMain {
    public static void main(String[] args) throws Exception {
      EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(Path.of(args[0]));
      System.out.println("READY " + pg.postmasterPid().orElseThrow() + " " + pg.watchdogPid().orElseThrow());
      System.out.flush();
      Thread.sleep(Long.MAX_VALUE);
    }
  }

  @Test
  void aDataDirectoryInUseByALiveOwnerIsRefusedNamingTheServer() throws Exception {
    Path data = dir.resolve("postgres");
    try (EmbeddedPostgresServer first = EmbeddedPostgresServer.start(data)) {
      long pid = first.postmasterPid().orElseThrow();
      java.io.IOException e = org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class,
          () -> EmbeddedPostgresServer.start(data));
      assertTrue(e.getMessage().contains("in use by another running Rendezvous"), e.getMessage());
      assertTrue(e.getMessage().contains(Long.toString(pid)), e.getMessage());
      assertTrue(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "the live server is left alone");
    }
  }

  private static String show(Pool pool, String setting) throws Exception {
    return await(pool.query("SHOW " + setting).execute()).iterator().next().getString(0);
  }

  private static <T> T await(io.vertx.core.Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }
}
