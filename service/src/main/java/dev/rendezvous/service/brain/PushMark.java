package dev.rendezvous.service.brain;

import java.time.Instant;

/**
 * The plan last pushed to a host and when. Kept in memory only: after a restart or a rebalance every host's
 * plan is pushed once more, which an agent takes as an ordinary new plan.
 */
record PushMark(String signature, Instant pushedAt, int targets) {}
