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
    /** When the service last had the host (a registration here counts): re-asked every {@code host_recheck}. */
    long verifiedNanos;
    /** When the service was first found without the host since it last had it; -1 while it has it. */
    long absentSinceNanos = -1;
    /** A question about the host is on its way to the service. */
    boolean verifying;

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

        /** The service does not have the host (deleted, or never registered): tell the agent and close. */
        void hostUnknown();
    }

    /** A GET instructions being held. {@code complete} answers it (once; later calls are ignored). */
    interface PollWaiter {
        void complete(java.util.List<BusEvent> stepsEvents);

        /** The service does not have the host: answer 404 (once, instead of steps). */
        void hostUnknown();
    }
}
