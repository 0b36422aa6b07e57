package dev.rendezvous.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The back-pressure flags: their defaults, the variables, and a bad value named with what 0 would mean. */
class AppConfigPressureTest {
  @Test
  void theTimeTargetDefaultsToASecondAndComesFromAFlagOrItsVariable() {
    assertEquals(Duration.ofSeconds(1), AppConfig.from(List.of("--data-dir=/tmp/rdv-cfg"), Map.of()).pressureBehind());
    assertEquals(Duration.ofMillis(2500),
        AppConfig.from(List.of("--data-dir=/tmp/rdv-cfg", "--pressure-behind-ms=2500"), Map.of()).pressureBehind());
    assertEquals(Duration.ZERO, AppConfig.from(List.of("--data-dir=/tmp/rdv-cfg"),
        Map.of("RDV_PRESSURE_BEHIND_MS", "0")).pressureBehind());
  }

  @Test
  void theBacklogBoundReachesTheBrainSoThatItFetchesAheadOfIt() {
    AppConfig dflt = AppConfig.from(List.of("--data-dir=/tmp/rdv-cfg"), Map.of());
    assertEquals(2000, dflt.pressureBacklogEvents());
    assertEquals(2000, dflt.service().brain().backlogBoundEvents());
    AppConfig set = AppConfig.from(List.of("--data-dir=/tmp/rdv-cfg"), Map.of("RDV_PRESSURE_BACKLOG_EVENTS", "12000"));
    assertEquals(12000, set.pressureBacklogEvents());
    assertEquals(12000, set.service().brain().backlogBoundEvents());
    IllegalArgumentException none = assertThrows(IllegalArgumentException.class,
        () -> AppConfig.from(List.of("--data-dir=/tmp/rdv-cfg", "--pressure-backlog-events=0"), Map.of()));
    assertEquals("pressure-backlog-events must be 1 or more, got 0", none.getMessage());
  }

  @Test
  void aNegativeValueIsRefusedNamingWhatZeroMeans() {
    IllegalArgumentException behind = assertThrows(IllegalArgumentException.class,
        () -> AppConfig.from(List.of("--data-dir=/tmp/rdv-cfg", "--pressure-behind-ms=-5"), Map.of()));
    assertEquals("pressure-behind-ms must be 0 (by the event count only) or more, got -5", behind.getMessage());
    IllegalArgumentException hold = assertThrows(IllegalArgumentException.class,
        () -> AppConfig.from(List.of("--data-dir=/tmp/rdv-cfg", "--pressure-hold-ms=-1"), Map.of()));
    assertEquals("pressure-hold-ms must be 0 (never hold a reply) or more, got -1", hold.getMessage());
  }
}
