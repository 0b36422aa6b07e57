package dev.rendezvous.service.db;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.VertxException;
import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.ClosedConnectionException;
import java.io.IOException;
import java.net.ConnectException;
import org.junit.jupiter.api.Test;

/** What a dying or restarting server throws at the client is "retry later"; our own mistakes are not. */
class DatabaseUnavailableTest {
  @Test
  void failuresOfAServerThatIsGoneAreUnavailable() {
    assertTrue(DatabaseUnavailable.is(new ConnectException("Connection refused")));
    assertTrue(DatabaseUnavailable.is(new java.net.SocketException("Connection reset by peer")));
    assertTrue(DatabaseUnavailable.is(new IOException("Connection reset by peer")));
    assertTrue(DatabaseUnavailable.is(ClosedConnectionException.INSTANCE));
    assertTrue(DatabaseUnavailable.is(new RuntimeException("wrapped", new IOException("Broken pipe"))));
    assertTrue(DatabaseUnavailable.is(VertxException.noStackTrace(
        "Pending requests failed to be sent due to connection has been closed.")));
    assertTrue(DatabaseUnavailable.is(new PgException("terminating connection", "FATAL", "57P01", null)));
    assertTrue(DatabaseUnavailable.is(new PgException("the database system is starting up", "FATAL", "57P03", null)));
    assertTrue(DatabaseUnavailable.is(new PgException("too many clients", "FATAL", "53300", null)));
    // every pooled connection busy for longer than the pool waits (seen under a 1,000-host install): retry later
    assertTrue(DatabaseUnavailable.is(new VertxException("Timeout waiting for connection")));
    // more requests waiting for a connection than the pool queues (Database.waitQueue): retry later
    assertTrue(DatabaseUnavailable.is(new io.vertx.core.http.ConnectionPoolTooBusyException(
        "Connection pool reached max wait queue size of 256")));
  }

  @Test
  void ourOwnMistakesAreNot() {
    assertFalse(DatabaseUnavailable.is(new PgException("duplicate key", "ERROR", "23505", null)));
    assertFalse(DatabaseUnavailable.is(new PgException("syntax error", "ERROR", "42601", null)));
    assertFalse(DatabaseUnavailable.is(new NullPointerException()));
    assertFalse(DatabaseUnavailable.is(new IllegalStateException("no such host")));
    // a JSON document of ours that does not parse is our bug, not the database's absence
    assertFalse(DatabaseUnavailable.is(new IllegalArgumentException(
        new com.fasterxml.jackson.core.JsonParseException(null, "Unexpected character"))));
  }
}
