package dev.rendezvous.service.db;

import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Applies the versioned SQL files listed in db/migration/index.txt, in order, each once. All of it
 * runs in one transaction under an advisory lock, so two instances starting together cannot both
 * migrate and a failure leaves the schema as it was.
 */
public final class Migrations {
  private static final long LOCK_KEY = 0x52445631L; // "RDV1"
  private static final String DIR = "db/migration/";

  private Migrations() {}

  /** Returns the names of the migrations applied by this call. */
  public static Future<List<String>> apply(Pool pool) {
    List<String> files = listed();
    return pool.withTransaction(
        conn ->
            conn.query("SELECT pg_advisory_xact_lock(" + LOCK_KEY + ")")
                .execute()
                .compose(
                    r ->
                        conn.query(
                                // created only when missing, without IF NOT EXISTS's notice on every start
                                "DO $$ BEGIN IF to_regclass('schema_migrations') IS NULL THEN"
                                    + " CREATE TABLE schema_migrations (name TEXT PRIMARY KEY,"
                                    + " applied_at TIMESTAMPTZ NOT NULL DEFAULT now()); END IF; END $$")
                            .execute())
                .compose(r -> conn.query("SELECT name FROM schema_migrations").execute())
                .compose(
                    rows -> {
                      Set<String> done = new HashSet<>();
                      for (Row row : rows) {
                        done.add(row.getString(0));
                      }
                      List<String> pending = new ArrayList<>();
                      for (String f : files) {
                        if (!done.contains(f)) {
                          pending.add(f);
                        }
                      }
                      return applyEach(conn, pending, 0).map(v -> pending);
                    }));
  }

  private static Future<Void> applyEach(SqlConnection conn, List<String> pending, int i) {
    if (i == pending.size()) {
      return Future.succeededFuture();
    }
    String name = pending.get(i);
    return conn.query(read(DIR + name))
        .execute()
        .compose(
            r ->
                conn.preparedQuery("INSERT INTO schema_migrations (name) VALUES ($1)")
                    .execute(Tuple.of(name)))
        .compose(r -> applyEach(conn, pending, i + 1));
  }

  static List<String> listed() {
    List<String> names = new ArrayList<>();
    for (String line : read(DIR + "index.txt").split("\n")) {
      String n = line.strip();
      if (!n.isEmpty() && !n.startsWith("#")) {
        names.add(n);
      }
    }
    return names;
  }

  private static String read(String resource) {
    try (InputStream in = Migrations.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("missing migration resource " + resource);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
