package dev.rendezvous.app;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;

/**
 * How far behind the brain is, turned into the factor agents are slowed down by: 1 while its backlog (events on
 * the bus it has not handled) is under the bound and its state is less than {@code behindTarget} seconds behind the
 * bus, then the larger of backlog/bound and behind/target, at most {@code maxStretch}. The gateway stretches
 * next_instruction_seconds by it, the brain the re-push of unchanged plans; nothing is dropped. {@link #releaseRate}
 * is the pace the gateway lets held replies go at meanwhile. Both a count and a time: a count alone said nothing of
 * heavy events (a 1,000-host cluster's connectivity replies, ~300 KB and ~10 ms each: 700 of them waiting, under the
 * bound, left the state 7 s behind; docs/benchmarks.md, session 40).
 */
final class BackPressure implements DoubleSupplier {
  /**
   * How far back the average of the brain's handling rate mostly looks. The rate is taken each time the brain's
   * handled count moves, over the time since it last moved: the brain counts a batch's events when the batch ends
   * (~1,000 every ~0.25 s in a busy 1,000-host cluster), and sampled every 0.1 s instead the count came in lumps
   * (10,000/s, then nothing) that swung the average by about a fifth either way, and the held replies with it
   * (docs/benchmarks.md, session 45).
   */
  static final double AVERAGE_SECONDS = 0.5;
  /** Under the bound, the room left is let go within this long. */
  static final double ROOM_SECONDS = 0.5;
  /**
   * A brain whose count did not move for this long is idle, whatever its average still says: a busy one ends a batch
   * every fraction of a second, and one in a batch this long has its state late past any target anyway.
   */
  static final long IDLE_NANOS = 1_000_000_000L;
  /** A move after a quiet spell this long starts the average afresh. */
  static final long QUIET_NANOS = 2_000_000_000L;

  private final LongSupplier backlog;
  private final LongSupplier handled;
  private final DoubleSupplier behind;
  private final LongSupplier nanoClock;
  private final long bound;
  private final double behindTarget;
  private final double maxStretch;
  private double handledPerSecond;
  private long lastSeenHandled;
  private long movedAt;

  /**
   * @param behind seconds the brain's state is behind the bus (the age of the oldest event it has not handled)
   * @param behindTarget seconds behind past which agents are slowed; 0 or less: by the backlog's count only
   */
  BackPressure(LongSupplier backlog, LongSupplier handled, DoubleSupplier behind, long bound, double behindTarget,
      double maxStretch, MeterRegistry registry) {
    this(backlog, handled, behind, bound, behindTarget, maxStretch, registry, System::nanoTime);
  }

  BackPressure(LongSupplier backlog, LongSupplier handled, DoubleSupplier behind, long bound, double behindTarget,
      double maxStretch, MeterRegistry registry, LongSupplier nanoClock) {
    this.backlog = backlog;
    this.handled = handled;
    this.behind = behind;
    this.nanoClock = nanoClock;
    this.bound = Math.max(1, bound);
    this.behindTarget = behindTarget > 0 ? behindTarget : Double.POSITIVE_INFINITY;
    this.maxStretch = Math.max(1, maxStretch);
    Gauge.builder("rdv.brain.backlog.events", backlog::getAsLong)
        .description("Events on the bus the brain of this instance has not handled yet").register(registry);
  }

  @Override
  public double getAsDouble() {
    long b = backlog.getAsLong();
    double late = behind.getAsDouble();
    if (b <= bound && late <= behindTarget) {
      return 1.0;
    }
    return Math.min(maxStretch, Math.max(1.0, Math.max((double) b / bound, late / behindTarget)));
  }

  /**
   * Replies per second the gateway lets go while it holds some: what the brain handled lately (a moving average),
   * times the root of bound/backlog between a half and twice, so the backlog settles at about the bound: drains
   * when past it, fills up to it when under, and while under it at least the {@link #room} left within half a second
   * (an idle brain, its count still for a second, has no rate to go by: the replies it waits for may be the held
   * ones; it gets the count's room, none past the bound). The root, not bound/backlog
   * itself: the backlog is measured as the brain polls and jumps between measures. Letting all go at once whenever
   * the backlog dipped under the bound swung it between ~600 and ~10,000 events in a 1,000-host cluster with 256
   * connections (docs/benchmarks.md, session 40). Past the time target the smaller gain of the two (the root of
   * target/behind) and no room: the state is late however few events wait.
   */
  synchronized double releaseRate() {
    long now = nanoClock.getAsLong();
    long count = handled.getAsLong();
    if (movedAt == 0) {
      movedAt = now; // first look: nothing known
      lastSeenHandled = count;
    } else if (count != lastSeenHandled) {
      long since = Math.max(1, now - movedAt);
      double lately = (count - lastSeenHandled) * 1e9 / since;
      if (since > QUIET_NANOS) {
        handledPerSecond = lately; // after a quiet spell: start from what was handled in between
      } else {
        double seconds = since / 1e9;
        handledPerSecond += seconds / (AVERAGE_SECONDS + seconds) * (lately - handledPerSecond);
      }
      movedAt = now;
      lastSeenHandled = count;
    }
    long b = backlog.getAsLong();
    double late = behind.getAsDouble();
    if (handledPerSecond < 1 || now - movedAt > IDLE_NANOS) {
      return room(b, late, false) / ROOM_SECONDS; // idle: no rate to go by, only the count's room
    }
    double gain = Math.min(gain(bound, b), gain(behindTarget, late));
    return Math.max(handledPerSecond * gain, room(b, late, true) / ROOM_SECONDS);
  }

  /**
   * Events that may still join the backlog: the room under the bound, and, with a time target and a rate to go by,
   * no more than the brain handles in the time left under the target. The count alone let heavy events in by the
   * hundred: in a 1,000-host install's connectivity round (~10 ms a report) each dip of the state under the target
   * let every held report go, and the state swung between 0.5 and 3 s behind (docs/benchmarks.md, session 44).
   */
  private double room(long b, double late, boolean byRate) {
    if (late > behindTarget) {
      return 0;
    }
    double count = Math.max(0, bound - b);
    if (Double.isInfinite(behindTarget) || !byRate) {
      return count; // no time target, or an idle brain: the count is all there is to go by
    }
    return Math.min(count, Math.max(0, (behindTarget - late) * handledPerSecond));
  }

  /** The root of target/measure between a half and twice (twice for nothing measured). */
  private static double gain(double target, double measure) {
    return measure <= 0 ? 2 : Math.max(0.5, Math.min(2, Math.sqrt(target / measure)));
  }
}
