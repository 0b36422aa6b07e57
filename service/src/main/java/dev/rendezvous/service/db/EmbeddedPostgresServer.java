package dev.rendezvous.service.db;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A real PostgreSQL server (zonky's binaries from Maven Central) run as a child process with its
 * data kept in one directory, so it survives restarts. As root, zonky runs the server inside a
 * user namespace (initdb refuses root); where that is impossible start-up fails with what to do.
 */
public final class EmbeddedPostgresServer implements AutoCloseable {
  private final EmbeddedPostgres postgres;
  private volatile boolean closed;

  private EmbeddedPostgresServer(EmbeddedPostgres postgres) {
    this.postgres = postgres;
  }

  /** Blocking: call from a main thread or a worker, never from an event loop. */
  public static EmbeddedPostgresServer start(Path dataDir) throws IOException {
    Files.createDirectories(dataDir.getParent());
    try {
      EmbeddedPostgres pg =
          EmbeddedPostgres.builder()
              .setDataDirectory(dataDir)
              .setCleanDataDirectory(false)
              .setRegisterShutdownHook(false)
              .setPGStartupWait(Duration.ofSeconds(60))
              .setServerConfig("max_connections", "200")
              .setServerConfig("listen_addresses", "127.0.0.1")
              .start();
      return new EmbeddedPostgresServer(pg);
    } catch (IOException | RuntimeException e) {
      if (String.valueOf(e.getMessage()).contains("could not lock")) {
        throw new IOException("the data directory " + dataDir.getParent()
            + " is in use by another running Rendezvous (or its PostgreSQL); stop it first or use another --data-dir", e);
      }
      throw new IOException(
          "could not start the embedded PostgreSQL in "
              + dataDir
              + " ("
              + e.getMessage()
              + "). As root it needs user namespaces (`unshare -U true` must work);"
              + " otherwise run as a normal user or set RDV_DATABASE_URL to an external server.",
          e);
    }
  }

  public int port() {
    return postgres.getPort();
  }

  /** URI for the reactive client, e.g. postgresql://postgres@127.0.0.1:5432/postgres. */
  public String connectionUri() {
    return "postgresql://postgres:postgres@127.0.0.1:" + port() + "/postgres";
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      postgres.close();
    } catch (IOException e) {
      throw new IllegalStateException("embedded PostgreSQL did not stop cleanly", e);
    }
  }
}
