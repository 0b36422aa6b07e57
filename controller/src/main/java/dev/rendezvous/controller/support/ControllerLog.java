package dev.rendezvous.controller.support;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayDeque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;
import org.slf4j.helpers.MessageFormatter;
import org.slf4j.spi.LoggingEventBuilder;

/**
 * One controller's log: every line goes to SLF4J with {@code cluster_id} (and {@code host_id} when about a host) as
 * key-values, and into a bounded in-memory tail, which is the "controller's own log" uploaded to the service
 * (in-process dry-run controllers have no pod whose log the API could give).
 */
public final class ControllerLog {
  private static final Logger LOG = LoggerFactory.getLogger("dev.rendezvous.controller");

  private final String clusterId;
  private final int maxChars;
  private final ArrayDeque<String> tail = new ArrayDeque<>();
  private int tailChars;

  public ControllerLog(String clusterId, int maxChars) {
    this.clusterId = clusterId;
    this.maxChars = maxChars;
  }

  public String clusterId() {
    return clusterId;
  }

  public void debug(String msg, Object... args) {
    log(Level.DEBUG, null, msg, args);
  }

  public void info(String msg, Object... args) {
    log(Level.INFO, null, msg, args);
  }

  public void warn(String msg, Object... args) {
    log(Level.WARN, null, msg, args);
  }

  public void error(String msg, Object... args) {
    log(Level.ERROR, null, msg, args);
  }

  /** A line about one host: carries {@code host_id}. */
  public void host(Level level, String hostId, String msg, Object... args) {
    log(level, hostId, msg, args);
  }

  private void log(Level level, String hostId, String msg, Object[] args) {
    var formatted = MessageFormatter.arrayFormat(msg, args);
    String text = formatted.getMessage();
    Throwable cause = formatted.getThrowable();
    if (LOG.isEnabledForLevel(level)) {
      LoggingEventBuilder b = LOG.atLevel(level).addKeyValue("cluster_id", clusterId);
      if (hostId != null) {
        b = b.addKeyValue("host_id", hostId);
      }
      if (cause != null) {
        b = b.setCause(cause);
      }
      b.log(text);
    }
    if (level == Level.DEBUG || level == Level.TRACE) {
      return;
    }
    StringBuilder line = new StringBuilder(text.length() + 96)
        .append(Instant.now()).append(' ').append(level).append(' ').append(text)
        .append(" cluster_id=").append(clusterId);
    if (hostId != null) {
      line.append(" host_id=").append(hostId);
    }
    if (cause != null) {
      line.append(" error=\"").append(cause).append('"');
    }
    append(line.toString());
  }

  private synchronized void append(String line) {
    tail.addLast(line);
    tailChars += line.length() + 1;
    while (tailChars > maxChars && tail.size() > 1) {
      tailChars -= tail.removeFirst().length() + 1;
    }
  }

  /** The retained lines, oldest first. */
  public synchronized byte[] snapshot() {
    StringBuilder sb = new StringBuilder(tailChars);
    for (String l : tail) {
      sb.append(l).append('\n');
    }
    return sb.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** A short description of a failure for a log line: the innermost useful message. */
  public static String describe(Throwable t) {
    Throwable c = t;
    while ((c instanceof java.util.concurrent.CompletionException || c instanceof java.util.concurrent.ExecutionException)
        && c.getCause() != null) {
      c = c.getCause();
    }
    return c.getMessage() == null ? c.getClass().getSimpleName() : c.getMessage();
  }
}
