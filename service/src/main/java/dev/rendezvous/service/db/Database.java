package dev.rendezvous.service.db;

import io.vertx.core.Vertx;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;

/** Builds the reactive PostgreSQL pool every repository shares. */
public final class Database {
  private Database() {}

  public static Pool pool(Vertx vertx, String uri, int maxSize) {
    return pool(vertx, uri, maxSize, "rendezvous");
  }

  /** Requests that may wait for one of {@code maxSize} connections before more are refused. */
  static int waitQueue(int maxSize) {
    return Math.max(256, 64 * maxSize);
  }

  /** A pool named for its metrics ({@code vertx_pool_*{pool_type="sql",pool_name=NAME}}: queue time, in use). */
  public static Pool pool(Vertx vertx, String uri, int maxSize, String name) {
    // statements are prepared once per connection: the brain runs the same few thousands of times a second. A brain
    // unit sends all its statements at once, one per host it writes (its pipelined units one after the other): at
    // 256 in flight the rest waited for answers, and PostgreSQL sat "idle in transaction" until the event loop read
    // them and sent more (a 1,000-host cluster's units of ~450 replies, docs/benchmarks.md session 39)
    PgConnectOptions connect = PgConnectOptions.fromUri(uri).setPipeliningLimit(4096).setCachePreparedStatements(true)
        .setPreparedStatementCacheMaxSize(512);
    return PgBuilder.pool()
        .with(new PoolOptions().setMaxSize(maxSize).setShared(false).setName(name)
            // No time limit on waiting for a connection: Vert.x 5.0's pool can hand a connection to a waiter and
            // report that waiter's timeout as cancelled anyway (eclipse-vertx/vert.x#6169, fixed in 5.1 which Maven
            // Central here does not serve whole); the second completion threw inside the pool and lost its
            // connection for good, and a few such races under load left the brain's pool empty and the brain
            // stalled. The queue is bounded instead: past it a request fails at once, 503 (DatabaseUnavailable).
            .setConnectionTimeout(0)
            .setMaxWaitQueueSize(waitQueue(maxSize)))
        .connectingTo(connect)
        .using(vertx)
        .build();
  }
}
