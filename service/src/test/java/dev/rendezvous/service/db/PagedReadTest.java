package dev.rendezvous.service.db;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every row, in order, whether the result fits one page, ends on a page boundary or spans many. */
class PagedReadTest {
  @TempDir Path dir;

  @Test
  void readsEveryRowInOrderWhateverTheSize() throws Exception {
    Vertx vertx = Vertx.vertx();
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dir.resolve("pg"), false)) {
      Pool pool = Database.pool(vertx, pg.connectionUri(), 2);
      String sql = "SELECT i, repeat('x', 1000) AS pad FROM generate_series(1, $1) i ORDER BY i";
      for (int n : new int[] {0, 1, PagedRead.PAGE_ROWS, PagedRead.PAGE_ROWS + 1, 2 * PagedRead.PAGE_ROWS, 1000}) {
        List<Row> rows = await(PagedRead.rows(pool, sql, Tuple.of(n)));
        assertEquals(IntStream.rangeClosed(1, n).boxed().toList(), rows.stream().map(r -> r.getInteger(0)).toList(),
            n + " rows");
      }
      // inside a caller's transaction (a connection, not the pool): one plain query
      List<Row> inTx = await(pool.withTransaction(c -> PagedRead.rows(c, sql, Tuple.of(300))));
      assertEquals(300, inTx.size());
      await(pool.close());
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }

  private static <T> T await(Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
  }
}
