package dev.rendezvous.service.db;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.rendezvous.app.Rendezvous;
import dev.rendezvous.app.TestSystem;
import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A transaction sent in one round trip, against the real database: all of it or nothing, the first failure reported,
 * and the connection back in the pool outside any transaction. The pool has one connection, so the statements after
 * a run get the very connection it used.
 */
class PipelinedTransactionTest {
  private final Rendezvous system = TestSystem.shared();
  private Pool one;
  private final String table = "pipelined_" + UUID.randomUUID().toString().replace("-", "");

  @BeforeEach
  void table() throws Exception {
    one = Database.pool(system.vertx(), system.embeddedPostgres().orElseThrow().connectionUri(), 1, "pipelined-test");
    one.query("CREATE TABLE " + table + " (k INT PRIMARY KEY)").execute().await(10, TimeUnit.SECONDS);
  }

  @AfterEach
  void drop() throws Exception {
    one.query("DROP TABLE IF EXISTS " + table).execute().await(10, TimeUnit.SECONDS);
    one.close().await(10, TimeUnit.SECONDS);
  }

  @Test
  void everyStatementIsCommittedTogether() throws Exception {
    PipelinedTransaction.run(one, conn -> List.of(
        conn.preparedQuery("INSERT INTO " + table + " VALUES ($1)").execute(Tuple.of(1)),
        conn.preparedQuery("INSERT INTO " + table + " VALUES ($1)").execute(Tuple.of(2))))
        .await(10, TimeUnit.SECONDS);
    assertEquals(2L, countElsewhere());
  }

  @Test
  void aFailingStatementRollsBackTheOthersReportsItsOwnErrorAndLeavesNoTransactionOpen() throws Exception {
    Throwable e = failure(assertThrows(Throwable.class, () -> PipelinedTransaction.run(one, conn -> List.of(
        conn.preparedQuery("INSERT INTO " + table + " VALUES ($1)").execute(Tuple.of(1)),
        conn.preparedQuery("INSERT INTO " + table + " VALUES ($1)").execute(Tuple.of(1)), // duplicate key
        conn.preparedQuery("INSERT INTO " + table + " VALUES ($1)").execute(Tuple.of(3))))
        .await(10, TimeUnit.SECONDS)));
    PgException pg = assertInstanceOf(PgException.class, e);
    assertEquals("23505", pg.getSqlState(), "the duplicate, not the refusals after it: " + pg.getMessage());
    assertEquals(0L, countElsewhere(), "nothing of the transaction is kept");

    // the pool's only connection again: a plain insert on it is seen elsewhere at once, so no transaction was left open
    one.preparedQuery("INSERT INTO " + table + " VALUES ($1)").execute(Tuple.of(4)).await(10, TimeUnit.SECONDS);
    assertEquals(1L, countElsewhere());
  }

  @Test
  void aFailureWhileSendingRollsBackWhatWasSent() throws Exception {
    IllegalStateException boom = new IllegalStateException("cannot build the next statement");
    Throwable e = failure(assertThrows(Throwable.class, () -> PipelinedTransaction.run(one, conn -> {
      conn.preparedQuery("INSERT INTO " + table + " VALUES ($1)").execute(Tuple.of(1));
      throw boom;
    }).await(10, TimeUnit.SECONDS)));
    assertEquals(boom, e);
    assertEquals(0L, countElsewhere());
    one.preparedQuery("INSERT INTO " + table + " VALUES ($1)").execute(Tuple.of(5)).await(10, TimeUnit.SECONDS);
    assertEquals(1L, countElsewhere());
  }

  /** The future's own failure, however await hands it over. */
  private static Throwable failure(Throwable thrown) {
    return thrown instanceof CompletionException && thrown.getCause() != null ? thrown.getCause() : thrown;
  }

  /** Rows as another connection sees them (committed ones only). */
  private long countElsewhere() throws Exception {
    return system.pool().query("SELECT count(*) FROM " + table).execute()
        .map(rs -> rs.iterator().next().getLong(0)).await(10, TimeUnit.SECONDS);
  }
}
