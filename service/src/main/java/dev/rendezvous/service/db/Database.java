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

  /** A pool named for its metrics ({@code vertx_pool_*{pool_type="sql",pool_name=NAME}}: queue time, in use). */
  public static Pool pool(Vertx vertx, String uri, int maxSize, String name) {
    // statements are prepared once per connection: the brain runs the same few thousands of times a second
    PgConnectOptions connect = PgConnectOptions.fromUri(uri).setPipeliningLimit(256).setCachePreparedStatements(true)
        .setPreparedStatementCacheMaxSize(512);
    return PgBuilder.pool()
        .with(new PoolOptions().setMaxSize(maxSize).setShared(false).setName(name)
            // a request waits at most this for a connection; then it is answered 503 (DatabaseUnavailable)
            .setConnectionTimeout(5).setConnectionTimeoutUnit(java.util.concurrent.TimeUnit.SECONDS))
        .connectingTo(connect)
        .using(vertx)
        .build();
  }
}
