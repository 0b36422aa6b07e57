package dev.rendezvous.service.db;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real PostgreSQL server (zonky's binaries from Maven Central) run as a child process with its
 * data kept in one directory, so it survives restarts. As root, zonky runs the server inside a
 * user namespace (initdb refuses root); where that is impossible start-up fails with what to do.
 *
 * <p>Durable by default: zonky starts the postmaster with {@code -F} (fsync off) and
 * {@code synchronous_commit=off}, test-library settings under which an OS crash can lose committed
 * rows; the later {@code -c} options override both. Relaxed mode keeps zonky's settings for
 * throw-away benchmarks only.
 *
 * <p>The postmaster is a daemon (pg_ctl detaches it), so it would outlive a JVM killed with -9. A
 * watchdog process waits on this JVM's pid and stops the server (fast shutdown) when it dies; a
 * server found still running on the data directory at start, whose owner is gone, is stopped first.
 */
public final class EmbeddedPostgresServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedPostgresServer.class);
  private static final String OWNER_FILE = "rendezvous-owner.pid";
  private static final Duration ORPHAN_STOP_WAIT = Duration.ofSeconds(30);

  private final Path dataDir;
  private final boolean durable;
  private final int port;
  private volatile EmbeddedPostgres postgres;
  private volatile Process watchdog;
  private volatile boolean closed;

  private EmbeddedPostgresServer(EmbeddedPostgres postgres, Path dataDir, boolean durable, Process watchdog) {
    this.postgres = postgres;
    this.dataDir = dataDir;
    this.durable = durable;
    this.port = postgres.getPort();
    this.watchdog = watchdog;
  }

  /** Durable start (fsync, synchronous commit, full page writes). Blocking: never call from an event loop. */
  public static EmbeddedPostgresServer start(Path dataDir) throws IOException {
    return start(dataDir, true);
  }

  /** Blocking: call from a main thread or a worker, never from an event loop. */
  public static EmbeddedPostgresServer start(Path dataDir, boolean durable) throws IOException {
    Files.createDirectories(dataDir.getParent());
    stopOrphan(dataDir);
    EmbeddedPostgres pg;
    try {
      // a port of its own: one picked by the library beside the embedded Kafka's start could be Kafka's too
      pg = builder(dataDir, durable).setPort(dev.rendezvous.bus.LocalPorts.free(1)[0]).start();
    } catch (IOException | RuntimeException e) {
      Optional<Long> holder = livePostmaster(dataDir);
      if (holder.isPresent() || String.valueOf(e.getMessage()).contains("could not lock")) {
        throw new IOException("the data directory " + dataDir.getParent() + " is in use by another running Rendezvous"
            + holder.map(p -> " (its PostgreSQL is pid " + p + ")").orElse("")
            + "; stop it first or use another --data-dir", e);
      }
      throw new IOException("could not start the embedded PostgreSQL in " + dataDir + " (" + e.getMessage()
          + "). As root it needs user namespaces (`unshare -U true` must work);"
          + " otherwise run as a normal user or set RDV_DATABASE_URL to an external server.", e);
    }
    Process watchdog = ownAndWatch(dataDir);
    LOG.info("embedded PostgreSQL on port {} ({}), data {}", pg.getPort(), durable ? "durable: fsync and synchronous commit on"
        : "RELAXED durability: fsync off, a machine crash can lose committed data", dataDir);
    return new EmbeddedPostgresServer(pg, dataDir, durable, watchdog);
  }

  private static EmbeddedPostgres.Builder builder(Path dataDir, boolean durable) {
    EmbeddedPostgres.Builder b = EmbeddedPostgres.builder()
        .setDataDirectory(dataDir)
        .setCleanDataDirectory(false)
        .setRegisterShutdownHook(false)
        .setPGStartupWait(Duration.ofSeconds(60))
        .setServerConfig("max_connections", "200")
        // no parallel query: the service's reads are many and short; at 10,000 sites a list of the clusters planned
        // with parallel workers failed ("parallel worker failed to initialize") and the API answered 500
        .setServerConfig("max_parallel_workers_per_gather", "0")
        .setServerConfig("listen_addresses", "127.0.0.1")
        // the server's own log kept in its data dir, a file per weekday (a week, overwritten): its warnings and errors
        // say what a client error does not (a deadlock's two statements, seen as "deadlock detected" in brain batches)
        .setServerConfig("logging_collector", "on")
        .setServerConfig("log_directory", "log")
        .setServerConfig("log_filename", "postgresql-%a.log")
        .setServerConfig("log_truncate_on_rotation", "on")
        .setServerConfig("log_rotation_age", "1d");
    if (durable) {
      b.setServerConfig("fsync", "on").setServerConfig("synchronous_commit", "on").setServerConfig("full_page_writes", "on");
    }
    return b;
  }

  /** Records this JVM as the server's owner and starts the watchdog on the running postmaster. */
  private static Process ownAndWatch(Path dataDir) throws IOException {
    long self = ProcessHandle.current().pid();
    Files.writeString(dataDir.resolve(OWNER_FILE), Long.toString(self), StandardCharsets.US_ASCII);
    Optional<Long> postmaster = livePostmaster(dataDir);
    if (postmaster.isEmpty()) {
      LOG.warn("embedded PostgreSQL started but {} names no live process: no watchdog", dataDir.resolve("postmaster.pid"));
      return null;
    }
    return startWatchdog(self, postmaster.get(), dataDir);
  }

  /**
   * When the server died under us (killed, crashed), starts it again on the same port and data directory: the
   * pool's connections then reconnect by themselves, and PostgreSQL's crash recovery replays its WAL, so nothing
   * committed is lost. Blocking; returns whether a restart happened. A failed attempt is retried at the next call.
   */
  public synchronized boolean restartIfDead() throws IOException {
    if (closed || livePostmaster(dataDir).isPresent()) {
      return false;
    }
    LOG.warn("the embedded PostgreSQL on port {} is gone: starting it again", port);
    stopWatchdog();
    try {
      postgres.close(); // releases its lock on the data directory; stopping the dead server fails quietly
    } catch (IOException | RuntimeException ignored) {
      // already dead
    }
    postgres = builder(dataDir, durable).setPort(port).start();
    watchdog = ownAndWatch(dataDir);
    LOG.info("embedded PostgreSQL back on port {}", port);
    return true;
  }

  private void stopWatchdog() {
    Process w = watchdog;
    if (w != null) {
      w.descendants().forEach(ProcessHandle::destroy);
      w.destroy();
    }
  }

  /**
   * The watchdog is a shell of its own session, so it outlives this JVM: when our pid is gone and the
   * pid file still names the same postmaster, SIGINT asks it for a fast shutdown (clean, nothing
   * committed lost). {@code tail --pid} polls once a second.
   */
  private static Process startWatchdog(long owner, long postmaster, Path dataDir) {
    String script = "tail --pid=\"$1\" -f /dev/null; "
        + "if [ \"$(head -n 1 \"$3/postmaster.pid\" 2>/dev/null)\" = \"$2\" ]; then kill -INT \"$2\"; fi";
    try {
      ProcessBuilder pb = new ProcessBuilder(List.of("setsid", "sh", "-c", script, "rdv-pg-watchdog",
          Long.toString(owner), Long.toString(postmaster), dataDir.toAbsolutePath().toString()));
      pb.redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD);
      return pb.start();
    } catch (IOException e) {
      LOG.warn("no watchdog for the embedded PostgreSQL ({}): after a hard kill of this process, the next start stops"
          + " the leftover server itself", e.toString());
      return null;
    }
  }

  /**
   * A postmaster still serving {@code dataDir} whose owning Rendezvous is dead (killed before its
   * watchdog could act, or the watchdog was killed too) is stopped, so a restart works by itself.
   * One whose owner lives is left alone: start-up then fails naming it.
   */
  static void stopOrphan(Path dataDir) throws IOException {
    Optional<Long> postmaster = livePostmaster(dataDir);
    if (postmaster.isEmpty()) {
      return;
    }
    Optional<Long> owner = readPid(dataDir.resolve(OWNER_FILE));
    if (owner.isPresent() && ProcessHandle.of(owner.get()).map(ProcessHandle::isAlive).orElse(false)) {
      return;
    }
    long pid = postmaster.get();
    LOG.warn("an embedded PostgreSQL (pid {}) still serves {} though its owner is gone: stopping it", pid, dataDir);
    ProcessHandle handle = ProcessHandle.of(pid).orElse(null);
    if (handle == null) {
      return;
    }
    signal("INT", pid);
    try {
      handle.onExit().get(ORPHAN_STOP_WAIT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      signal("QUIT", pid); // immediate shutdown: crash recovery replays the WAL at the next start
      try {
        handle.onExit().get(10, java.util.concurrent.TimeUnit.SECONDS);
      } catch (Exception again) {
        throw new IOException("a leftover PostgreSQL (pid " + pid + ") on " + dataDir + " does not stop; stop it by hand");
      }
    } catch (Exception e) {
      throw new IOException("waiting for the leftover PostgreSQL (pid " + pid + ") to stop: " + e, e);
    }
  }

  private static void signal(String sig, long pid) throws IOException {
    try {
      new ProcessBuilder("kill", "-" + sig, Long.toString(pid)).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }

  /** The postmaster named by line 1 of {@code postmaster.pid}, if that process lives and is a postgres. */
  static Optional<Long> livePostmaster(Path dataDir) {
    return readPid(dataDir.resolve("postmaster.pid")).filter(pid -> ProcessHandle.of(pid)
        .filter(ProcessHandle::isAlive)
        .map(h -> h.info().command().map(c -> c.contains("postgres")).orElse(true))
        .orElse(false));
  }

  private static Optional<Long> readPid(Path file) {
    try {
      List<String> lines = Files.readAllLines(file, StandardCharsets.US_ASCII);
      return lines.isEmpty() ? Optional.empty() : Optional.of(Long.parseLong(lines.get(0).strip()));
    } catch (IOException | NumberFormatException e) {
      return Optional.empty();
    }
  }

  public int port() {
    return port;
  }

  /** The postmaster's pid while it runs (the crash tests kill it). */
  public Optional<Long> postmasterPid() {
    return livePostmaster(dataDir);
  }

  /** The watchdog's pid, if one runs (tests kill it to leave a true orphan behind). */
  Optional<Long> watchdogPid() {
    Process w = watchdog;
    return w == null ? Optional.empty() : Optional.of(w.pid());
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
    stopWatchdog();
    try {
      postgres.close();
    } catch (IOException e) {
      throw new IllegalStateException("embedded PostgreSQL did not stop cleanly", e);
    }
  }
}
