package dev.rendezvous.service.db;

import io.vertx.core.Future;
import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.SqlConnection;
import java.util.function.Function;

/**
 * A transaction PostgreSQL aborted because it crossed another one: a deadlock (40P01) or a serialization failure
 * (40001). Nothing of it was written and running it again is safe. Seen: deleting a 1,000-host cluster while the brain
 * wrote its hosts' rows deadlocked on the host rows (the two lock them in different orders) and the DELETE answered 500.
 */
public final class TransientConflict {
  /** Attempts in all before the conflict is answered (503, retry later) or handed to the caller. */
  static final int ATTEMPTS = 4;

  private TransientConflict() {}

  public static boolean is(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof PgException pg && ("40P01".equals(pg.getSqlState()) || "40001".equals(pg.getSqlState()))) {
        return true;
      }
    }
    return false;
  }

  /**
   * {@code pool.withTransaction(work)}, run again from the start when PostgreSQL aborts it as a transient conflict
   * (the other transaction has gone on meanwhile). {@code work} must do nothing outside the transaction.
   */
  public static <T> Future<T> retrying(Pool pool, Function<SqlConnection, Future<T>> work) {
    return attempt(pool, work, 1);
  }

  private static <T> Future<T> attempt(Pool pool, Function<SqlConnection, Future<T>> work, int n) {
    return pool.withTransaction(work).recover(e -> n < ATTEMPTS && is(e) ? attempt(pool, work, n + 1)
        : Future.failedFuture(e));
  }
}
