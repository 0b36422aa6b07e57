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
  /** How often the brain's handling rate is sampled. */
  static final long SAMPLE_NANOS = 100_000_000L;
  /**
   * How far back the average of that rate mostly looks. The brain counts events handled as each batch ends (~1,000
   * every ~0.25 s in a busy 1,000-host cluster), so the rate comes in lumps: averaged over half a second it swung by
   * about a fifth either way with each lump (more with each slower batch), and the held replies with it. Over 1.5 s,
   * one 1,000-host cluster under 256 connections processed 4,129-5,063 replies/s (p99 94-163 ms) against
   * 3,822-4,379/s (112-203 ms) in four runs each, in turn (docs/benchmarks.md, session 45); a change of pace still
   * shows within a second or two.
   */
  static final double RATE_AVERAGE_SECONDS = 1.5;
  /** Under the bound, the room left is let go within this long. */
  static final double ROOM_SECONDS = 0.5;
  /**
   * A brain that counted nothing handled for this long is idle, whatever its average still says: a busy one ends a
   * batch every fraction of a second, and one in a batch this long has its state late past any target anyway.
   */
  static final long IDLE_NANOS = 1_000_000_000L;

  private final LongSupplier backlog;
  private final LongSupplier handled;
  private final DoubleSupplier behind;
  private final LongSupplier nanoClock;
  private final long bound;
  private final double behindTarget;
  private final double maxStretch;
  private long sampledAt;
  private long sampledHandled;
  private double handledPerSecond;
  private long lastSeenHandled;
  private long handledLastMovedAt;

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
   * (an idle brain has no rate to go by: the replies it waits for are the held ones). The root, not bound/backlog
   * itself: the backlog is measured as the brain polls and jumps between measures. Letting all go at once whenever
   * the backlog dipped under the bound swung it between ~600 and ~10,000 events in a 1,000-host cluster with 256
   * connections (docs/benchmarks.md, session 40). Past the time target the smaller gain of the two (the root of
   * target/behind) and no room: the state is late however few events wait.
   */
  synchronized double releaseRate() {
    long now = nanoClock.getAsLong();
    long count = handled.getAsLong();
    long since = now - sampledAt;
    if (count != lastSeenHandled || sampledAt == 0) {
      lastSeenHandled = count;
      handledLastMovedAt = now;
    }
    if (sampledAt == 0 || since > 20 * SAMPLE_NANOS) {
      // first look, or after a quiet spell: start from what was handled in between (nothing known: none)
      handledPerSecond = sampledAt == 0 ? 0 : (count - sampledHandled) * 1e9 / since;
      sampledAt = now;
      sampledHandled = count;
    } else if (since >= SAMPLE_NANOS) {
      double seconds = since / 1e9;
      double lately = (count - sampledHandled) / seconds;
      double weight = seconds / (RATE_AVERAGE_SECONDS + seconds);
      handledPerSecond += weight * (lately - handledPerSecond);
      sampledAt = now;
      sampledHandled = count;
    }
    long b = backlog.getAsLong();
    double late = behind.getAsDouble();
    double gain = Math.min(gain(bound, b), gain(behindTarget, late));
    boolean idle = handledPerSecond < 1 || now - handledLastMovedAt > IDLE_NANOS;
    return Math.max(handledPerSecond * gain, room(b, late, idle) / ROOM_SECONDS);
  }

  /**
   * Events that may still join the backlog: the room under the bound, and, with a time target and a rate to go by,
   * no more than the brain handles in the time left under the target. The count alone let heavy events in by the
   * hundred: in a 1,000-host install's connectivity round (~10 ms a report) each dip of the state under the target
   * let every held report go, and the state swung between 0.5 and 3 s behind (docs/benchmarks.md, session 44).
   */
  private double room(long b, double late, boolean idle) {
    if (late > behindTarget) {
      return 0;
    }
    double count = Math.max(0, bound - b);
    if (Double.isInfinite(behindTarget) || idle) {
      return count; // no time target, or an idle brain: the count is all there is to go by
    }
    return Math.min(count, Math.max(0, (behindTarget - late) * handledPerSecond));
  }

  /** The root of target/measure between a half and twice (twice for nothing measured). */
  private static double gain(double target, double measure) {
    return measure <= 0 ? 2 : Math.max(0.5, Math.min(2, Math.sqrt(target / measure)));
  }
}
