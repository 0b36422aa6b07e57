package dev.rendezvous.gateway;

import dev.rendezvous.bus.auth.AgentTokens;
import dev.rendezvous.bus.BusEvent;
import dev.rendezvous.bus.auth.AgentTokens.AgentClaims;

/**
 * One host attached to this gateway: its websocket or waiting long poll, and the steps kept for its next poll.
 * Every field is guarded by the mailbox's monitor; nothing under it does I/O.
 */
final class HostMailbox {

    final HostKey key;
    AgentClaims claims;
    String agentVersion;
    AgentSocket socket;
    PollWaiter waiter;
    /** The plan waiting for the host's next poll: the latest, with older plans' undelivered one-shot steps. */
    BusEvent pending;
    long lastContactNanos;
    int lastNextInstructionSeconds;
    long lastPresenceNanos;
    /** False while only a registration has been seen here: the first poll or socket then needs no presence event. */
    boolean claimed;
    boolean removed;

    HostMailbox(HostKey key, AgentClaims claims, long nowNanos) {
        this.key = key;
        this.claims = claims;
        this.lastContactNanos = nowNanos;
        this.lastPresenceNanos = nowNanos;
    }

    /** Something that can take steps for this host right now. Implementations only schedule work. */
    interface AgentSocket {
        void push(BusEvent stepsEvent);

        /** A newer connection of the same host took over: close this one. */
        void replaced();
    }

    /** A GET instructions being held. {@code complete} answers it (once; later calls are ignored). */
    interface PollWaiter {
        void complete(java.util.List<BusEvent> stepsEvents);
    }
}
