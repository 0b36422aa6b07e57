package dev.rendezvous.service.brain;

import java.time.Instant;

/**
 * The plan last pushed to a host and when, and whether it was an agent upgrade (its started event is said once, as
 * the plans turn to it). Kept in memory only: after a restart or a rebalance every host's plan is pushed once more,
 * which an agent takes as an ordinary new plan.
 */
record PushMark(String signature, Instant pushedAt, int targets, boolean upgrading) {
  PushMark(String signature, Instant pushedAt, int targets) {
    this(signature, pushedAt, targets, false);
  }

  /** The mark of a plan pushed at {@code at}. */
  static PushMark of(Work.Push p, Instant at) {
    return new PushMark(p.signature(), at, p.targets(), PushRules.upgrades(p.plan().steps()));
  }
}
