package dev.rendezvous.service.db;

import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.ClosedConnectionException;
import java.net.ConnectException;
import java.util.concurrent.TimeoutException;

/**
 * Tells a database that is down or restarting (retry later: 503) from a failure of ours (500). PostgreSQL's
 * SQLSTATE class 08 is a connection exception; 57P01–57P03 are shutdowns and "starting up / in recovery".
 */
public final class DatabaseUnavailable {
  private DatabaseUnavailable() {}

  public static boolean is(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof ConnectException || t instanceof ClosedConnectionException || t instanceof TimeoutException) {
        return true;
      }
      if (t instanceof PgException pg && pg.getSqlState() != null
          && (pg.getSqlState().startsWith("08") || pg.getSqlState().startsWith("57P"))) {
        return true;
      }
      String m = String.valueOf(t.getMessage());
      // the pool's own words when it cannot hand out a connection in time
      if (m.contains("Connection refused") || m.contains("Timeout while waiting for a connection")
          || m.contains("Connection is closed") || m.contains("connection was closed")) {
        return true;
      }
    }
    return false;
  }
}
