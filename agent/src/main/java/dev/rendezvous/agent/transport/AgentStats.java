package dev.rendezvous.agent.transport;

import java.util.concurrent.atomic.LongAdder;

/** Counters of one agent or, shared, of a whole swarm. */
public final class AgentStats {
  public final LongAdder registrations = new LongAdder();
  public final LongAdder registrationFailures = new LongAdder();
  public final LongAdder websocketSessions = new LongAdder();
  public final LongAdder httpFallbacks = new LongAdder();
  public final LongAdder reconnects = new LongAdder();
  public final LongAdder stepsReceived = new LongAdder();
  public final LongAdder repliesSent = new LongAdder();
  public final LongAdder repliesDelivered = new LongAdder();
  public final LongAdder repliesDeduplicated = new LongAdder();
  public final LongAdder repliesResent = new LongAdder();
  public final LongAdder errorsReceived = new LongAdder();
  public final LongAdder heartbeatsReceived = new LongAdder();

  @Override
  public String toString() {
    return "registrations=" + registrations.sum() + " registrationFailures=" + registrationFailures.sum()
        + " wsSessions=" + websocketSessions.sum() + " httpFallbacks=" + httpFallbacks.sum()
        + " reconnects=" + reconnects.sum() + " stepsReceived=" + stepsReceived.sum()
        + " repliesSent=" + repliesSent.sum() + " repliesDelivered=" + repliesDelivered.sum()
        + " deduplicated=" + repliesDeduplicated.sum() + " resent=" + repliesResent.sum()
        + " errorsReceived=" + errorsReceived.sum() + " heartbeatsReceived=" + heartbeatsReceived.sum();
  }
}
