package dev.rendezvous.app;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;

/**
 * How far behind the brain is, turned into the factor agents are slowed down by: 1 while its backlog (events on
 * the bus it has not handled) is under the bound, then backlog/bound, at most {@code maxStretch}. The gateway
 * stretches next_instruction_seconds by it, the brain the re-push of unchanged plans; nothing is dropped.
 */
final class BackPressure implements DoubleSupplier {
  private final LongSupplier backlog;
  private final long bound;
  private final double maxStretch;

  BackPressure(LongSupplier backlog, long bound, double maxStretch, MeterRegistry registry) {
    this.backlog = backlog;
    this.bound = Math.max(1, bound);
    this.maxStretch = Math.max(1, maxStretch);
    Gauge.builder("rdv.brain.backlog.events", backlog::getAsLong)
        .description("Events on the bus the brain of this instance has not handled yet").register(registry);
  }

  @Override
  public double getAsDouble() {
    long b = backlog.getAsLong();
    return b <= bound ? 1.0 : Math.min(maxStretch, (double) b / bound);
  }
}
