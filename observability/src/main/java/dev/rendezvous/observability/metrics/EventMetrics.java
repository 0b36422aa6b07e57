package dev.rendezvous.observability.metrics;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rendezvous.bus.BusConsumer;
import dev.rendezvous.bus.BusEvent;
import dev.rendezvous.bus.Topics;
import dev.rendezvous.bus.event.DomainEventRecorded;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
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
public final class EventMetrics implements AutoCloseable {
  public static final String GROUP = "rdv-metrics";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Map<String, String> FINISHED_STATUS = Map.of(
      "installed", "installed", "error", "error", "cancelled", "cancelled");
  private static final Duration[] INSTALL_BUCKETS = durations(10, 20, 30, 60, 120, 300, 600, 1200, 1800, 2700, 3600,
      5400, 7200, 10800);
  private static final Duration[] STAGE_BUCKETS = durations(1, 5, 10, 30, 60, 120, 300, 600, 1800, 3600);
  private static final List<String> ROLES = List.of("master", "worker", "bootstrap", "arbiter");
  private static final Duration[] TO_KNOWN_BUCKETS = durations(1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1800);

  private final MeterRegistry registry;
  private final java.util.Set<String> stages;
  private final BusConsumer consumer;

  /** {@code stages}: the install stages (upstream's strings, as the service defines them); others count as "other". */
  public EventMetrics(String bootstrap, MeterRegistry registry, List<String> stages) {
    this.registry = registry;
    this.stages = java.util.Set.copyOf(stages);
    Counter.builder("rdv.installations.started").description("Installations started (install action accepted)")
        .register(registry);
    Counter.builder("rdv.clusters.registered").description("Clusters created").register(registry);
    // every known label combination starts at zero (Prometheus' advice), so "failed per hour" is 0, not "no data"
    for (String result : FINISHED_STATUS.values()) {
      for (String topology : List.of("single-node", "highly-available")) {
        installTimer(result, topology);
        for (String hosts : List.of("1", "2-5", "6-10", "11-50", "51-250", "251+")) {
          Counter.builder("rdv.installations.finished").tags("result", result, "topology", topology, "hosts", hosts)
              .description("Installations that ended, by result and shape").register(registry);
        }
      }
    }
    // histograms too: a series born with its first observation would hide that observation from rate()
    for (String stage : stages) {
      ROLES.forEach(role -> stageTimer(stage, role));
    }
    timer("rdv.host.time.to.known", "From a host's registration to its status known", TO_KNOWN_BUCKETS);
    this.consumer = BusConsumer.builder(bootstrap).groupId(GROUP).clientId("rdv-metrics")
        .topics(List.of(Topics.EVENTS)).startFrom(BusConsumer.StartFrom.LATEST)
        // counters scraped every few seconds: a quarter of a second late costs nothing and saves fetches
        .pollPacing(java.time.Duration.ofMillis(250))
        .handler(this::count).start();
  }

  public BusConsumer busConsumer() {
    return consumer;
  }

  public CompletableFuture<Void> started() {
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
        case "cluster_status_updated" -> installationEnded(props(ev));
        case "host_install_progress_updated" -> stageLeft(props(ev));
        case "host_status_updated" -> {
          JsonNode p = props(ev);
          if (p.has("seconds_since_registration")) {
            timer("rdv.host.time.to.known", "From a host's registration to its status known", TO_KNOWN_BUCKETS)
                .record(seconds(p.path("seconds_since_registration").asText()));
          }
        }
        default -> { }
      }
    }
    return CompletableFuture.completedFuture(null);
  }

  /** A cluster reaching installed, error or cancelled: counted and timed by result and shape. */
  private void installationEnded(JsonNode p) {
    String result = FINISHED_STATUS.get(p.path("cluster_status").asText(""));
    if (result == null) {
      return;
    }
    String topology = "single-node".equals(p.path("topology").asText()) ? "single-node" : "highly-available";
    String hosts = hostBucket(p.path("host_count").asInt(0));
    registry.counter("rdv.installations.finished", "result", result, "topology", topology, "hosts", hosts).increment();
    if (p.has("install_duration_seconds")) {
      installTimer(result, topology).record(seconds(p.path("install_duration_seconds").asText()));
    }
  }

  private Timer installTimer(String result, String topology) {
    return Timer.builder("rdv.installation.duration").description("From the install action to installed, error or cancelled")
        .tags("result", result, "topology", topology).serviceLevelObjectives(INSTALL_BUCKETS).register(registry);
  }

  private Timer stageTimer(String stage, String role) {
    return Timer.builder("rdv.host.install.stage.duration").description("Time a host spent in an install stage")
        .tags("stage", stage, "role", role).serviceLevelObjectives(STAGE_BUCKETS).register(registry);
  }

  /** A host moving to its next install stage: how long the stage it left took. */
  private void stageLeft(JsonNode p) {
    String stage = p.path("previous_stage").asText("");
    if (stage.isEmpty() || !p.has("previous_stage_seconds")) {
      return;
    }
    // stages and roles are upstream's fixed sets; anything else is folded so labels stay bounded
    String role = p.path("role").asText("");
    boolean known = stages.contains(stage);
    stageTimer(known ? stage : "other", ROLES.contains(role) ? role : "other")
        .record(seconds(p.path("previous_stage_seconds").asText()));
  }

  private Timer timer(String name, String description, Duration[] buckets) {
    return Timer.builder(name).description(description).serviceLevelObjectives(buckets).register(registry);
  }

  static String hostBucket(int hosts) {
    return hosts <= 1 ? "1" : hosts <= 5 ? "2-5" : hosts <= 10 ? "6-10" : hosts <= 50 ? "11-50" : hosts <= 250 ? "51-250" : "251+";
  }

  private static Duration seconds(String text) {
    try {
      return Duration.ofMillis(Math.max(0, Math.round(Double.parseDouble(text) * 1000)));
    } catch (NumberFormatException bad) {
      return Duration.ZERO;
    }
  }

  private static JsonNode props(DomainEventRecorded ev) {
    try {
      JsonNode n = ev.props() == null ? null : JSON.readTree(ev.props());
      return n == null ? JSON.createObjectNode() : n;
    } catch (java.io.IOException bad) {
      return JSON.createObjectNode();
    }
  }

  private static Duration[] durations(double... seconds) {
    return java.util.Arrays.stream(seconds).mapToObj(x -> Duration.ofMillis(Math.round(x * 1000))).toArray(Duration[]::new);
  }

  private static String validationId(DomainEventRecorded ev) {
    String id = props(ev).path("validation_id").asText("");
    // validation ids are upstream's fixed set; anything else is folded so labels stay bounded
    return id.matches("[a-z0-9-]{1,64}") ? id : "other";
  }

  @Override
  public void close() {
    consumer.close();
  }
}
