package dev.rendezvous.agent.transport;

import dev.rendezvous.agent.wire.StepReply;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Upstream's reply de-duplication: a successful reply whose output equals the last one delivered for
 * the same step type, within an hour, is not sent again. Cleared when the link to the gateway breaks
 * (a failed poll, a new websocket session), so a replanned step is always answered after a reconnect.
 */
public final class ReplyCache {
  static final long TTL_MS = 3_600_000;
  private final Map<String, Entry> last = new HashMap<>();
  private final LongSupplier clock;

  private record Entry(String output, long atMs) {}

  public ReplyCache(LongSupplier clockMs) {
    this.clock = clockMs;
  }

  public synchronized boolean isDuplicate(StepReply reply) {
    if (reply.exitCode() != 0) {
      return false;
    }
    Entry e = last.get(reply.stepType());
    return e != null && e.output.equals(reply.output()) && clock.getAsLong() - e.atMs < TTL_MS;
  }

  /** Called once a reply was delivered (HTTP 204, or websocket ack). */
  public synchronized void delivered(StepReply reply) {
    if (reply.exitCode() == 0) {
      last.put(reply.stepType(), new Entry(reply.output(), clock.getAsLong()));
    }
  }

  public synchronized void clear() {
    last.clear();
  }
}
