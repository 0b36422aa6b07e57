package dev.rendezvous.observability;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import org.slf4j.Marker;

/**
 * Leaves out one ERROR the embedded Kafka logs on every start on an existing data directory, with its stack trace:
 * the node's controller asks the active controller, itself, to register it before its own election has made it
 * active. Kafka's ControllerApis logs that {@code NotControllerException} as "Unexpected error handling request"; the
 * registration is retried and succeeds a moment later. A restart must not put an ERROR in the log that nothing is
 * wrong behind (scripts/smoke-test restarts on its data directory and checks). Only that exception from that logger
 * is left out: any other error of the controller's request handling is logged as before.
 */
public final class KafkaRestartNoise extends TurboFilter {
  static final String LOGGER = "kafka.server.ControllerApis";
  static final String NOT_CONTROLLER = "org.apache.kafka.common.errors.NotControllerException";

  @Override
  public FilterReply decide(Marker marker, Logger logger, Level level, String format, Object[] params, Throwable t) {
    if (t == null || level != Level.ERROR || !LOGGER.equals(logger.getName())) {
      return FilterReply.NEUTRAL;
    }
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (c.getClass().getName().equals(NOT_CONTROLLER)) {
        return FilterReply.DENY;
      }
    }
    return FilterReply.NEUTRAL;
  }
}
