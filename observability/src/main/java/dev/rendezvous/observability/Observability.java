package dev.rendezvous.observability;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.ext.web.RoutingContext;
import io.vertx.micrometer.MicrometerMetricsFactory;
import io.vertx.micrometer.MicrometerMetricsOptions;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

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

  /**
   * GET /metrics in the Prometheus text format; {@code ?name[]=a&name[]=b} only those series (the convention of
   * Prometheus's Java client): a script or dashboard polling one gauge often need not render them all (a whole scrape
   * is hundreds of families, each timer's histogram buckets included).
   */
  public void handleScrape(RoutingContext ctx) {
    ctx.response()
        .putHeader("Content-Type", CONTENT_TYPE)
        .end(scrape(ctx.queryParam("name[]")));
  }

  private static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
  /** Endings the text format adds to a family's name: a series asked for by its exposed name is found by its family. */
  private static final List<String> SERIES_SUFFIXES = List.of("_total", "_created", "_bucket", "_count", "_sum", "_info");

  /** The whole scrape, or, when {@code names} is not empty, only the families of those series. */
  public String scrape(List<String> names) {
    if (names.isEmpty()) {
      return registry.scrape();
    }
    Set<String> families = new HashSet<>();
    for (String n : names) {
      families.add(n);
      for (String suffix : SERIES_SUFFIXES) {
        if (n.endsWith(suffix)) {
          families.add(n.substring(0, n.length() - suffix.length()));
        }
      }
    }
    return registry.scrape(CONTENT_TYPE, families);
  }
}
