package dev.rendezvous.service.db;

import io.vertx.core.Future;
import io.vertx.sqlclient.Cursor;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a query's rows a page at a time through a cursor. A big cluster's hosts with their connectivity reports are
 * hundreds of MB: read as one result, the client's decoder kept gathering and copying the whole answer on an event
 * loop, which then served nothing else for minutes while the pool's connections waited on it. Pages keep each answer
 * small.
 */
public final class PagedRead {
  /** Rows per page: a 1,000-host cluster's host rows carry ~300 KB each, so a page stays near 20 MB. */
  public static final int PAGE_ROWS = 64;

  private PagedRead() {}

  /**
   * All rows of {@code sql} (a query without LIMIT). A result of at most one page comes from one plain query, as
   * before (most clusters: a cursor's transaction costs four more round trips, which slowed 1,000 single-node
   * registrations by half); a longer one is read again through a cursor, in a transaction of its own, when
   * {@code db} is a pool.
   */
  public static Future<List<Row>> rows(SqlClient db, String sql, Tuple args) {
    if (!(db instanceof Pool pool)) {
      return db.preparedQuery(sql).execute(args).map(PagedRead::list);
    }
    return db.preparedQuery(sql + " LIMIT " + (PAGE_ROWS + 1)).execute(args).compose(first -> first.size() <= PAGE_ROWS
        ? Future.succeededFuture(list(first)) : paged(pool, sql, args));
  }

  private static Future<List<Row>> paged(Pool pool, String sql, Tuple args) {
    return pool.withTransaction(conn -> conn.prepare(sql).compose(ps -> {
      Cursor cursor = ps.cursor(args);
      List<Row> out = new ArrayList<>();
      return page(cursor, out).eventually(() -> cursor.close().eventually(ps::close)).map(v -> out);
    }));
  }

  private static Future<Void> page(Cursor cursor, List<Row> out) {
    return cursor.read(PAGE_ROWS).compose(rs -> {
      rs.forEach(out::add);
      return cursor.hasMore() ? page(cursor, out) : Future.succeededFuture();
    });
  }

  private static List<Row> list(Iterable<Row> rs) {
    List<Row> out = new ArrayList<>();
    rs.forEach(out::add);
    return out;
  }
}
