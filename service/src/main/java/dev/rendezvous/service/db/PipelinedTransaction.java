package dev.rendezvous.service.db;

import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.SqlConnection;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * A transaction sent in one go: BEGIN, its statements and COMMIT pipelined on one connection, one round trip. The
 * pool's own {@code withTransaction} waits for BEGIN's answer, then for the statements', then sends COMMIT: three
 * trips, each an event-loop turn that a busy machine makes long, while the connection is held. With the 10,000-site
 * fleet the brain's eight connections spent 80–120 ms on each such transaction, and its backlog grew.
 *
 * <p>Only for statements that do not depend on each other's results (they are all sent before any answer). When one
 * fails, PostgreSQL refuses the rest of the transaction and answers COMMIT by rolling back; the first failure, in
 * the order sent, is the outcome. The connection always goes back to the pool outside a transaction.
 */
public final class PipelinedTransaction {
  private PipelinedTransaction() {}

  /** Runs the statements {@code send} sends on the connection (it must not wait for them) in one transaction. */
  public static Future<Void> run(Pool pool, Function<SqlConnection, List<Future<?>>> send) {
    return pool.getConnection().compose(conn -> on(conn, send, null).eventually(conn::close));
  }

  /**
   * As {@link #run(Pool, Function)} on a connection the caller holds (and closes): several such transactions may be
   * sent one after the other without waiting, and PostgreSQL runs them in that order. {@code sent} (may be null)
   * completes once every statement and the COMMIT are handed to the connection, before any answer.
   */
  public static Future<Void> on(SqlConnection conn, Function<SqlConnection, List<Future<?>>> send,
      io.vertx.core.Promise<Void> sent) {
    List<Future<?>> all = new ArrayList<>();
    all.add(conn.query("BEGIN").execute());
    try {
      all.addAll(send.apply(conn));
    } catch (RuntimeException e) {
      // nothing committed: the statements already sent are rolled back with the rest
      return conn.query("ROLLBACK").execute().transform(x -> Future.failedFuture(e));
    }
    all.add(conn.query("COMMIT").execute());
    if (sent != null) {
      sent.tryComplete();
    }
    return Future.join(all).transform(ar -> {
      for (Future<?> f : all) {
        if (f.failed()) {
          return Future.failedFuture(f.cause());
        }
      }
      return Future.succeededFuture();
    });
  }
}
