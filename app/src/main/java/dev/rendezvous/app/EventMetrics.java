package dev.rendezvous.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rendezvous.bus.BusConsumer;
import dev.rendezvous.bus.BusEvent;
import dev.rendezvous.bus.Topics;
import dev.rendezvous.bus.event.DomainEventRecorded;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Install metrics from the events topic (upstream's metrics manager counts the same moments): events by category
 * and severity, clusters registered, installations started and finished by result, validation failures by
 * validation id. One consumer group for all instances, so each event is counted once across a scaled-out
 * deployment (sum over instances in Prometheus). Labels are bounded: no cluster or host id.
 */
final class EventMetrics implements AutoCloseable {
  static final String GROUP = "rdv-metrics";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Map<String, String> FINISHED = Map.of(
      "cluster_installation_completed", "installed",
      "cluster_installation_failed", "error",
      "cluster_installation_canceled", "cancelled");

  private final MeterRegistry registry;
  private final BusConsumer consumer;

  EventMetrics(String bootstrap, MeterRegistry registry) {
    this.registry = registry;
    Counter.builder("rdv.installations.started").description("Installations started (install action accepted)")
        .register(registry);
    FINISHED.values().forEach(r -> Counter.builder("rdv.installations.finished").tag("result", r)
        .description("Installations that ended, by result").register(registry));
    this.consumer = BusConsumer.builder(bootstrap).groupId(GROUP).clientId("rdv-metrics")
        .topics(List.of(Topics.EVENTS)).startFrom(BusConsumer.StartFrom.LATEST).handler(this::count).start();
  }

  CompletableFuture<Void> started() {
    return consumer.started();
  }

  private CompletionStage<Void> count(BusEvent e) {
    if (e.payload() instanceof DomainEventRecorded ev) {
      registry.counter("rdv.events", "category", ev.category(), "severity", ev.severity()).increment();
      String name = ev.name() == null ? "" : ev.name();
      switch (name) {
        case "cluster_registration_succeeded" -> registry.counter("rdv.clusters.registered").increment();
        case "cluster_prepare_installation_started" -> registry.counter("rdv.installations.started").increment();
        case "host_validation_failed", "cluster_validation_failed" -> registry.counter("rdv.validation.failures",
            "validation", validationId(ev), "level", name.startsWith("host") ? "host" : "cluster").increment();
        default -> {
          String result = FINISHED.get(name);
          if (result != null) {
            registry.counter("rdv.installations.finished", "result", result).increment();
          }
        }
      }
    }
    return CompletableFuture.completedFuture(null);
  }

  private static String validationId(DomainEventRecorded ev) {
    try {
      JsonNode props = ev.props() == null ? null : JSON.readTree(ev.props());
      String id = props == null ? "" : props.path("validation_id").asText("");
      // validation ids are upstream's fixed set; anything else is folded so labels stay bounded
      return id.matches("[a-z0-9-]{1,64}") ? id : "other";
    } catch (java.io.IOException bad) {
      return "other";
    }
  }

  @Override
  public void close() {
    consumer.close();
  }
}
