package dev.rendezvous.observability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class ObservabilityScrapeTest {
  /** The scrape's sample lines (no comments), their series names only. */
  private static List<String> series(String scrape) {
    return Arrays.stream(scrape.split("\n")).filter(l -> !l.isBlank() && !l.startsWith("#"))
        .map(l -> l.split("[ {]")[0]).distinct().sorted().collect(Collectors.toList());
  }

  @Test
  void namesAskedForAreTheOnlySeriesScrapedWhetherByFamilyOrByExposedName() {
    Observability o = new Observability();
    Gauge.builder("rdv.brain.behind.seconds", () -> 1.5).register(o.registry());
    Counter.builder("rdv.test.events").register(o.registry()).increment(3);
    Timer.builder("rdv.test.wait").publishPercentileHistogram().register(o.registry()).record(Duration.ofMillis(5));

    String whole = o.scrape(List.of());
    assertTrue(series(whole).containsAll(List.of("rdv_brain_behind_seconds", "rdv_test_events_total",
        "rdv_test_wait_seconds_bucket", "rdv_test_wait_seconds_max")), whole);

    assertEquals(List.of("rdv_brain_behind_seconds"), series(o.scrape(List.of("rdv_brain_behind_seconds"))));
    assertTrue(o.scrape(List.of("rdv_brain_behind_seconds")).contains("rdv_brain_behind_seconds 1.5"));
    // a counter by the name it is exposed under, or by its family's
    assertEquals(List.of("rdv_test_events_total"), series(o.scrape(List.of("rdv_test_events_total"))));
    assertEquals(List.of("rdv_test_events_total"), series(o.scrape(List.of("rdv_test_events"))));
    assertEquals(List.of("rdv_brain_behind_seconds", "rdv_test_wait_seconds_bucket", "rdv_test_wait_seconds_count",
        "rdv_test_wait_seconds_sum"), series(o.scrape(List.of("rdv_test_wait_seconds_bucket", "rdv_brain_behind_seconds"))));
    assertEquals(List.of(), series(o.scrape(List.of("no_such_series"))));
  }
}
