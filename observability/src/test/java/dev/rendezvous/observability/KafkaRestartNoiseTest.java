package dev.rendezvous.observability;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import java.util.concurrent.CompletionException;
import org.apache.kafka.common.errors.NotControllerException;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.Test;

class KafkaRestartNoiseTest {
  @Test
  void onlyTheControllersNotYetActiveErrorIsLeftOut() {
    LoggerContext context = new LoggerContext();
    KafkaRestartNoise filter = new KafkaRestartNoise();
    filter.setContext(context);
    filter.start();
    context.addTurboFilter(filter);
    ListAppender<ILoggingEvent> seen = new ListAppender<>();
    seen.setContext(context);
    seen.start();
    context.getLogger(Logger.ROOT_LOGGER_NAME).addAppender(seen);

    Logger controllerApis = context.getLogger("kafka.server.ControllerApis");
    // as Kafka 4.3 logs it on a restart: wrapped in the future's CompletionException
    controllerApis.error("Unexpected error handling request RequestHeader(apiKey=CONTROLLER_REGISTRATION, "
        + "apiVersion=0, clientId=1, correlationId=0, headerVersion=2) -- ControllerRegistrationRequestData(...)",
        new CompletionException(new NotControllerException("The active controller appears to be node 1.")));
    controllerApis.error("Unexpected error handling request RequestHeader(apiKey=BROKER_HEARTBEAT, apiVersion=1)",
        new TimeoutException("late"));
    controllerApis.error("Unexpected error handling request RequestHeader(apiKey=BROKER_REGISTRATION, apiVersion=4)",
        new CompletionException(new NotControllerException("another request: kept")));
    controllerApis.warn("a warning", new NotControllerException("not an ERROR: kept"));
    context.getLogger("kafka.server.BrokerLifecycleManager").error("elsewhere",
        new NotControllerException("another logger: kept"));

    List<String> kept = seen.list.stream().map(e -> e.getLoggerName() + " " + e.getLevel() + " " + e.getMessage())
        .toList();
    assertEquals(List.of(
        "kafka.server.ControllerApis ERROR Unexpected error handling request RequestHeader(apiKey=BROKER_HEARTBEAT, "
            + "apiVersion=1)",
        "kafka.server.ControllerApis ERROR Unexpected error handling request RequestHeader(apiKey=BROKER_REGISTRATION, "
            + "apiVersion=4)",
        "kafka.server.ControllerApis WARN a warning",
        "kafka.server.BrokerLifecycleManager ERROR elsewhere"), kept);
  }
}
