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
 * wrong behind (scripts/smoke-test restarts on its data directory and checks). Only that exception, from that logger,
 * on that request (the controller's registration) is left out: any other error of the controller's request handling
 * is logged as before. Were the controller never to become active, the start-up's topic set-up times out and says so.
 */
public final class KafkaRestartNoise extends TurboFilter {
  static final String LOGGER = "kafka.server.ControllerApis";
  static final String NOT_CONTROLLER = "org.apache.kafka.common.errors.NotControllerException";
  static final String REQUEST = "apiKey=CONTROLLER_REGISTRATION";

  @Override
  public FilterReply decide(Marker marker, Logger logger, Level level, String format, Object[] params, Throwable t) {
    if (t == null || level != Level.ERROR || format == null || !format.contains(REQUEST)
        || !LOGGER.equals(logger.getName())) {
      return FilterReply.NEUTRAL;
    }
    int depth = 0;
    for (Throwable c = t; c != null && depth < 8; c = c.getCause(), depth++) {
      if (c.getClass().getName().equals(NOT_CONTROLLER)) {
        return FilterReply.DENY;
      }
    }
    return FilterReply.NEUTRAL;
  }
}
