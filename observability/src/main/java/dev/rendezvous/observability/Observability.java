package dev.rendezvous.observability;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.ext.web.RoutingContext;
import io.vertx.micrometer.MicrometerMetricsFactory;
import io.vertx.micrometer.MicrometerMetricsOptions;

/**
 * One Prometheus registry per process, shared by Vert.x's own metrics (HTTP server, pools, JVM)
 * and the project's meters; it must be handed to Vert.x when the Vertx is built.
 */
public final class Observability {
  private final PrometheusMeterRegistry registry;

  public Observability() {
    this.registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  }

  public MeterRegistry registry() {
    return registry;
  }

  /**
   * Builds a Vertx whose HTTP, pool and JVM metrics land in this registry. HTTP requests also carry the templates of
   * the routes that handled them, joined by {@code >} as Vert.x Web reports them ({@code
   * /api/>/api/assisted-install/v2/clusters/:cluster_id}, never an id): which operations a fleet's agents and
   * controllers call how often.
   */
  public Vertx newVertx(VertxOptions options) {
    options.setMetricsOptions(new MicrometerMetricsOptions().setEnabled(true).setJvmMetricsEnabled(true)
        .addLabels(io.vertx.micrometer.Label.HTTP_ROUTE));
    return Vertx.builder().with(options).withMetrics(new MicrometerMetricsFactory(registry)).build();
  }

  /** GET /metrics in the Prometheus text format. */
  public void handleScrape(RoutingContext ctx) {
    ctx.response()
        .putHeader("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
        .end(registry.scrape());
  }
}
