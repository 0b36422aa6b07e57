package dev.rendezvous.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The pace held replies are let go at, on a clock of the test's own. */
class BackPressureTest {
  private final AtomicLong backlog = new AtomicLong();
  private final AtomicLong handled = new AtomicLong();
  private final AtomicLong clock = new AtomicLong(1_000_000_000L);
  private volatile double behind;
  private final BackPressure pressure = new BackPressure(backlog::get, handled::get, () -> behind, 2000, 1.0, 8,
      new SimpleMeterRegistry(), clock::get);

  /** The brain handles {@code perSecond} for {@code seconds}, looked at every 10 ms as the gateway does. */
  private double run(double perSecond, double seconds) {
    double rate = 0;
    for (int i = 0; i < seconds * 100; i++) {
      clock.addAndGet(10_000_000L);
      handled.addAndGet((long) (perSecond / 100));
      rate = pressure.releaseRate();
    }
    return rate;
  }

  @Test
  void pastTheBoundRepliesGoAtWhatTheBrainHandlesScaledToDrainTheBacklog() {
    backlog.set(2000);
    assertEquals(4000, run(4000, 3), 100, "at the bound: what the brain handles");
    backlog.set(8000);
    assertEquals(2000, run(4000, 3), 100, "four times the bound: half that, so the backlog drains");
    backlog.set(4000);
    assertEquals(2828, run(4000, 3), 100, "twice the bound: a gentler cut (the measure jumps)");
    backlog.set(40_000);
    assertEquals(2000, run(4000, 3), 50, "never under a half");
    assertEquals(8.0, pressure.getAsDouble(), "agents polling are slowed at most maxStretch");
  }

  @Test
  void underTheBoundAnIdleBrainStillLetsTheRoomLeftGo() {
    backlog.set(1500);
    // the brain handled nothing (it waits for the held replies): the room under the bound, within half a second
    assertEquals(1000, run(0, 1), 1);
    backlog.set(0);
    assertEquals(6000, run(3000, 3), 100, "twice what it handles when that is more than the room");
    assertEquals(1.0, pressure.getAsDouble());
  }

  @Test
  void theRateFollowsAChangeWithinAboutASecondAndStartsAfreshAfterAQuietSpell() {
    backlog.set(2000);
    run(4000, 3);
    double soon = run(1000, 0.3);
    assertTrue(soon > 1000 && soon < 4000, "moving toward the new rate, not jumping: " + soon);
    assertEquals(1000, run(1000, 2), 60, "there after two seconds");
    clock.addAndGet(10_000_000_000L); // ten seconds nobody asked, while 5,000 were handled
    handled.addAndGet(5000);
    assertEquals(500, pressure.releaseRate(), 10, "the average over the quiet spell, not a stale rate");
    backlog.set(3000);
    handled.set(handled.get()); // nothing handled (the database down): nothing let go past the bound
    assertEquals(0, run(0, 5), 5);
  }

  @Test
  void aBrainThatCountsInLumpsIsFollowedAtItsPaceNotItsLumps() {
    // a busy 1,000-host cluster: the brain counts 1,000 events handled as each batch ends, every 250 ms (4,000/s)
    backlog.set(2000);
    double low = Double.MAX_VALUE;
    double high = 0;
    for (int i = 0; i < 1000; i++) { // 10 s looked at every 10 ms, as the gateway does
      clock.addAndGet(10_000_000L);
      if (i % 25 == 24) {
        handled.addAndGet(1000);
      }
      double rate = pressure.releaseRate();
      if (i >= 500) { // the last 5 s, once the average has settled
        low = Math.min(low, rate);
        high = Math.max(high, rate);
      }
    }
    // sampled every 0.1 s the lumps swung it between ~3,300 and ~4,700/s
    assertEquals(4000, low, 100);
    assertEquals(4000, high, 100);
    // a slower batch (500 ms for the same 1,000) shows in the next move, not as nothing handled meanwhile
    clock.addAndGet(500_000_000L);
    handled.addAndGet(1000);
    double slower = pressure.releaseRate();
    assertTrue(slower < 4000 && slower > 2000, "toward 2,000/s: " + slower);
  }

  @Test
  void aStateLateByTimeIsSlowedDownHoweverFewEventsWait() {
    backlog.set(500); // a quarter of the bound, but heavy events: three seconds' work
    behind = 3;
    assertEquals(3.0, pressure.getAsDouble(), 1e-9, "polls stretched by behind/target");
    // the root of target/behind and no room under the bound: the room would have let 3,000/s go
    assertEquals(2000 * Math.sqrt(1 / 3.0), run(2000, 3), 60);
    behind = 20;
    assertEquals(1000, run(2000, 3), 30, "never under a half");
    assertEquals(8.0, pressure.getAsDouble(), "at most maxStretch");
    behind = 0.5;
    assertEquals(1.0, pressure.getAsDouble(), "within the target: not slowed");
    // the rate (the root of target/behind over what it handles) again over the room: what is left under the bound
    // (1,500) but no more than the brain handles in the time left under the target (1,000), within half a second
    assertEquals(2000 * Math.sqrt(2), run(2000, 3), 60);
    assertEquals(1500 / BackPressure.ROOM_SECONDS, run(0, 10), 10, "nothing handled lately: the count's room");
  }

  @Test
  void heavyEventsUnderTheCountAreLetInNoFasterThanTheTimeLeftAllows() {
    // a 1,000-host install's connectivity round: ~100 reports a second handled, 100 on the bus, half a second behind
    backlog.set(100);
    behind = 0.5;
    double rate = run(100, 3);
    // the root of target/behind over what is handled, not the 3,800/s the room under the count would let go
    assertEquals(100 * Math.sqrt(2), rate, 5);
    behind = 0.05;
    assertEquals(200, run(100, 3), 5, "nearly on time: at most twice what it handles");
    behind = 1.5;
    assertEquals(100 * Math.sqrt(1 / 1.5), run(100, 3), 5, "late: slower than it handles, no room");
  }

  @Test
  void withoutATimeTargetOnlyTheCountSlowsAgents() {
    BackPressure countOnly = new BackPressure(backlog::get, handled::get, () -> 30, 2000, 0, 8,
        new SimpleMeterRegistry(), clock::get);
    backlog.set(500);
    assertEquals(1.0, countOnly.getAsDouble());
    backlog.set(4000);
    assertEquals(2.0, countOnly.getAsDouble());
  }
}
