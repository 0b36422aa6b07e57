package dev.rendezvous.app;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class StartupPhasesTest {
  @Test
  void eachPhaseIsTheTimeSinceThePreviousMarkAndShortOnesAreLeftOut() {
    AtomicLong now = new AtomicLong(1_000_000_000L);
    StartupPhases phases = new StartupPhases(now::get);
    now.addAndGet(3_140_000_000L);
    phases.mark("embedded servers");
    now.addAndGet(10_000_000L);
    phases.mark("topics");
    now.addAndGet(27_960_000_000L);
    phases.mark("brain");
    assertEquals("embedded servers 3.1 s, brain 28.0 s", phases.summary());
    assertEquals(31_110, phases.elapsedMillis());
  }
}
