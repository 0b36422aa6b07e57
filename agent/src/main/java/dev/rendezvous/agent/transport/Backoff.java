package dev.rendezvous.agent.transport;

import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * Exponential back-off with full jitter (docs/agent-protocol.md: base 1 s, cap 60 s): the n-th delay is
 * uniform in [0, min(cap, base·2^n)], so a fleet that lost its gateway at once does not come back at once.
 * Not thread-safe: one per agent, used on its context.
 */
public final class Backoff {
  private final long baseMs;
  private final long capMs;
  private final RandomGenerator random;
  private int attempt;

  public Backoff(Duration base, Duration cap, RandomGenerator random) {
    this.baseMs = base.toMillis();
    this.capMs = cap.toMillis();
    this.random = random;
  }

  /** The next delay in ms (at least 1). */
  public long nextDelayMs() {
    long ceiling = Math.min(capMs, baseMs << Math.min(attempt, 30));
    attempt++;
    return 1 + (ceiling <= 1 ? 0 : random.nextLong(ceiling));
  }

  /** The upper bound the next call draws from. */
  public long currentCeilingMs() {
    return Math.min(capMs, baseMs << Math.min(attempt, 30));
  }

  public void reset() {
    attempt = 0;
  }

  public int attempts() {
    return attempt;
  }
}
