package dev.rendezvous.service.db;

import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.ClosedConnectionException;
import java.io.IOException;
import java.util.concurrent.TimeoutException;

/**
 * Tells a database that is down or restarting (retry later: 503) from a failure of ours (500). PostgreSQL's
 * SQLSTATE class 08 is a connection exception; 57P01–57P03 are shutdowns and "starting up / in recovery";
 * class 53 is insufficient resources (too many connections).
 */
public final class DatabaseUnavailable {
  private DatabaseUnavailable() {}

  public static boolean is(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      // a socket reset or a broken pipe when the server dies under a query; not every IOException (Jackson's
      // parse errors are IOExceptions too, and those are ours: a 500, never "retry later")
      if (t instanceof java.net.SocketException || t instanceof java.nio.channels.ClosedChannelException
          || t instanceof IOException && t.getClass().getName().startsWith("io.netty.")
          || t instanceof ClosedConnectionException || t instanceof TimeoutException
          || t instanceof io.vertx.core.http.ConnectionPoolTooBusyException) { // the pool's wait queue is full
        return true;
      }
      if (t instanceof PgException pg && pg.getSqlState() != null
          && (pg.getSqlState().startsWith("08") || pg.getSqlState().startsWith("57P")
              || pg.getSqlState().startsWith("53"))) {
        return true;
      }
      String m = String.valueOf(t.getMessage());
      // the pool's own words when it cannot hand out a connection in time
      if (m.contains("Connection refused") || m.contains("Timeout while waiting for a connection") || m.contains("Timeout waiting for connection")
          || m.contains("Connection is closed") || m.contains("connection was closed")
          || m.contains("connection has been closed") || m.contains("Connection reset") || m.contains("Broken pipe")
          || m.contains("Pool closed") || m.contains("the database system is")) {
        return true;
      }
    }
    return false;
  }
}
