package dev.rendezvous.gateway;

import dev.rendezvous.bus.auth.AgentTokens;
import dev.rendezvous.bus.BusEvent;
import dev.rendezvous.bus.event.AgentPresence;
import dev.rendezvous.bus.event.StepsToDeliver;
import dev.rendezvous.bus.auth.AgentTokens.AgentClaims;
import dev.rendezvous.gateway.HostMailbox.AgentSocket;
import dev.rendezvous.gateway.HostMailbox.PollWaiter;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The hosts attached to this gateway, and the presence rules.
 *
 * <p>A host is attached while it has a websocket here, a waiting long poll here, or polled here recently
 * (last contact + its {@code next_instruction_seconds} + the grace). Steps read from the bus for an attached host
 * go at once to its waiting poll, else its websocket, else wait in its mailbox for the next poll (bounded:
 * the oldest plans are dropped first). Steps of other hosts are ignored.
 *
 * <p>Presence events, and nothing else, are written for contact: {@code connected} when a host attaches
 * (a new poll or socket; not the first one after a registration here, which already told the service),
 * {@code disconnected} when it detaches (socket closed, HTTP silence past its window), and at most one
 * {@code checked-in} per host per check-in interval for polls, replies and heartbeats in between.
 * Everything else a poll or heartbeat does stays in memory.
 */
final class AgentDirectory {

    private final ConcurrentHashMap<HostKey, HostMailbox> mailboxes = new ConcurrentHashMap<>();
    private final AtomicInteger sockets = new AtomicInteger();
    private final GatewayEvents events;
    private final GatewayMetrics metrics;
    private final GatewayConfig config;
    private final long checkInNanos;
    private final long graceNanos;
    private final HostVerification verification;
    /** Clusters' shared connectivity targets, filled into their hosts' plans as they arrive here. */
    private final SharedTargets sharedTargets = new SharedTargets();

    AgentDirectory(GatewayEvents events, GatewayMetrics metrics, GatewayConfig config, HostVerification verification) {
        this.verification = verification;
        this.events = events;
        this.metrics = metrics;
        this.config = config;
        this.checkInNanos = config.checkInInterval().toNanos();
        this.graceNanos = config.httpPresenceGrace().toNanos();
        metrics.connectedAgents(AgentPresence.WEBSOCKET, sockets::get);
        metrics.connectedAgents(AgentPresence.LONG_POLL, () -> Math.max(0, mailboxes.size() - sockets.get()));
    }

    int websocketCount() {
        return sockets.get();
    }

    int attachedCount() {
        return mailboxes.size();
    }

    /**
     * A registration, before it is published: the host's mailbox exists from now on, so steps planned for it wait
     * for its first poll. True when this created the mailbox.
     */
    boolean registered(AgentClaims claims, HostKey key, String agentVersion) {
        long now = System.nanoTime();
        while (true) {
            boolean[] created = {false};
            HostMailbox mailbox = mailboxes.computeIfAbsent(key, k -> {
                created[0] = true;
                return new HostMailbox(k, claims, now);
            });
            synchronized (mailbox) {
                if (mailbox.removed) {
                    mailboxes.remove(key, mailbox); // on its way out: a removed mailbox is never kept
                    continue;
                }
                mailbox.claims = claims;
                mailbox.agentVersion = agentVersion;
                mailbox.lastContactNanos = now;
                verification.attached(mailbox, true, now);
                return created[0];
            }
        }
    }

    /** The registration that created the host's mailbox did not reach the bus: forget it unless the host came since. */
    void registrationFailed(HostKey key) {
        HostMailbox mailbox = mailboxes.get(key);
        if (mailbox == null) {
            return;
        }
        synchronized (mailbox) {
            if (mailbox.removed || mailbox.claimed || mailbox.socket != null || mailbox.waiter != null) {
                return;
            }
            mailbox.removed = true;
        }
        mailboxes.remove(key, mailbox);
    }

    /**
     * An HTTP poll or reply. Fails (and forgets the host) when a needed {@code connected} event could not be
     * published, so the agent retries and the next attempt publishes it again.
     */
    Future<HostMailbox> httpContact(AgentClaims claims, HostKey key, String agentVersion, String transport) {
        if (verification.answeredUnknown(key)) {
            return unlessUnknown(key, () -> httpContactNow(claims, key, agentVersion, transport));
        }
        return httpContactNow(claims, key, agentVersion, transport);
    }

    private Future<HostMailbox> httpContactNow(AgentClaims claims, HostKey key, String agentVersion, String transport) {
        long now = System.nanoTime();
        boolean[] created = {false};
        while (true) {
            HostMailbox mailbox = mailboxes.computeIfAbsent(key, k -> {
                created[0] = true;
                return new HostMailbox(k, claims, now);
            });
            String presence;
            synchronized (mailbox) {
                if (mailbox.removed) {
                    mailboxes.remove(key, mailbox); // on its way out: a removed mailbox is never kept
                    created[0] = false;
                    continue;
                }
                if (created[0]) {
                    verification.attached(mailbox, false, now);
                }
                presence = touch(mailbox, claims, agentVersion, now, created[0]);
            }
            return publishPresence(mailbox, presence, transport);
        }
    }

    /** A websocket said hello: it becomes the host's delivery path; an older socket of the host is closed. */
    Future<HostMailbox> attachSocket(AgentClaims claims, HostKey key, String agentVersion, AgentSocket socket) {
        if (verification.answeredUnknown(key)) {
            return unlessUnknown(key, () -> attachSocketNow(claims, key, agentVersion, socket));
        }
        return attachSocketNow(claims, key, agentVersion, socket);
    }

    private Future<HostMailbox> attachSocketNow(AgentClaims claims, HostKey key, String agentVersion, AgentSocket socket) {
        long now = System.nanoTime();
        boolean[] created = {false};
        while (true) {
            HostMailbox mailbox = mailboxes.computeIfAbsent(key, k -> {
                created[0] = true;
                return new HostMailbox(k, claims, now);
            });
            AgentSocket previous;
            List<BusEvent> waiting;
            boolean announce;
            synchronized (mailbox) {
                if (mailbox.removed) {
                    mailboxes.remove(key, mailbox); // on its way out: a removed mailbox is never kept
                    created[0] = false;
                    continue;
                }
                if (created[0]) {
                    verification.attached(mailbox, false, now);
                }
                previous = mailbox.socket;
                mailbox.socket = socket;
                announce = created[0] || mailbox.claimed;
                mailbox.claimed = true;
                mailbox.claims = claims;
                mailbox.agentVersion = agentVersion;
                mailbox.lastContactNanos = now;
                if (announce) {
                    mailbox.lastPresenceNanos = now;
                }
                waiting = drain(mailbox);
            }
            if (previous == null) {
                sockets.incrementAndGet();
            } else {
                previous.replaced();
            }
            waiting.forEach(plan -> socket.push(sharedTargets.complete(plan)));
            return publishPresence(mailbox, announce ? AgentPresence.CONNECTED : null, AgentPresence.WEBSOCKET);
        }
    }

    /** A step reply over HTTP: counts as contact (coalesced check-in) for a host attached here; attaches nothing. */
    void contactIfAttached(HostKey key, String transport) {
        HostMailbox mailbox = mailboxes.get(key);
        if (mailbox != null) {
            contact(mailbox, transport);
        }
    }

    /** Any message of an attached host (heartbeat, reply): may write a coalesced {@code checked-in}, nothing else. */
    void contact(HostMailbox mailbox, String transport) {
        long now = System.nanoTime();
        boolean checkIn;
        synchronized (mailbox) {
            mailbox.lastContactNanos = now;
            checkIn = !mailbox.removed && mailbox.claimed && now - mailbox.lastPresenceNanos >= checkInNanos;
            if (checkIn) {
                mailbox.lastPresenceNanos = now;
            }
        }
        if (checkIn) {
            publishPresence(mailbox, AgentPresence.CHECKED_IN, transport);
        }
    }

    /** The socket closed. The host detaches unless it is also long-polling here. */
    void detachSocket(HostMailbox mailbox, AgentSocket socket) {
        boolean detached;
        synchronized (mailbox) {
            if (mailbox.socket != socket) {
                return;
            }
            mailbox.socket = null;
            sockets.decrementAndGet();
            detached = mailbox.waiter == null && !mailbox.removed;
            if (detached) {
                mailbox.removed = true;
            }
        }
        if (detached) {
            mailboxes.remove(mailbox.key, mailbox);
            publishPresence(mailbox, AgentPresence.DISCONNECTED, AgentPresence.WEBSOCKET);
        }
    }

    /**
     * A GET instructions: pending steps (merged, in order) when there are some, else an empty list and
     * {@code waiter} is parked until steps come or {@link #cancelPoll} takes it back. {@code hold} false
     * never parks. Null when the host left the directory since its contact: {@code waiter} was answered already.
     */
    List<BusEvent> poll(HostMailbox mailbox, PollWaiter waiter, boolean hold) {
        PollWaiter previous = null;
        List<BusEvent> ready;
        boolean gone;
        synchronized (mailbox) {
            ready = drain(mailbox);
            gone = mailbox.removed;
            if (ready.isEmpty() && hold && !gone) {
                previous = mailbox.waiter;
                mailbox.waiter = waiter;
            }
        }
        if (previous != null) {
            previous.complete(List.of());
        }
        if (!ready.isEmpty()) {
            ready = List.of(sharedTargets.complete(ready.get(0))); // drain gives one plan at most
        }
        if (gone && ready.isEmpty() && hold) {
            // left the directory since the contact (evicted, or silent past its window): answered now, never parked
            if (verification.answeredUnknown(mailbox.key)) {
                waiter.hostUnknown();
            } else {
                waiter.complete(List.of());
            }
            return null;
        }
        return ready;
    }

    /** The hold time passed or the client went away: true when the waiter was still parked (now removed). */
    boolean cancelPoll(HostMailbox mailbox, PollWaiter waiter) {
        synchronized (mailbox) {
            if (mailbox.waiter != waiter) {
                return false;
            }
            mailbox.waiter = null;
            mailbox.lastContactNanos = System.nanoTime();
            return true;
        }
    }

    /** The answer carrying these steps could not be written: keep them for the next poll (a newer plan still wins). */
    void requeue(HostMailbox mailbox, List<BusEvent> stepsEvents) {
        if (stepsEvents.isEmpty()) {
            return;
        }
        synchronized (mailbox) {
            if (mailbox.removed) {
                return;
            }
            List<BusEvent> all = new ArrayList<>(stepsEvents);
            if (mailbox.pending != null) {
                all.add(mailbox.pending);
            }
            mailbox.pending = PlanCoalescing.coalesce(all);
        }
    }

    /** The answer's {@code next_instruction_seconds}: the agent sleeps that long, so the window grows with it. */
    void answered(HostMailbox mailbox, int nextInstructionSeconds) {
        synchronized (mailbox) {
            mailbox.lastContactNanos = System.nanoTime();
            mailbox.lastNextInstructionSeconds = Math.max(0, nextInstructionSeconds);
        }
    }

    /**
     * A StepsToDeliver record from the bus (any thread): a cluster's shared connectivity targets are kept; a plan of a
     * host attached here goes to it, its shared targets filled in as it is delivered; plans of other hosts are ignored.
     */
    void onSteps(BusEvent plan) {
        if (sharedTargets.offer(plan, System.nanoTime())
                || !(plan.payload() instanceof StepsToDeliver) || plan.hostId() == null || plan.infraEnvId() == null) {
            return;
        }
        HostMailbox mailbox = mailboxes.get(new HostKey(plan.infraEnvId(), plan.hostId()));
        if (mailbox == null) {
            return;
        }
        PollWaiter waiter = null;
        AgentSocket socket = null;
        synchronized (mailbox) {
            if (mailbox.removed) {
                return;
            }
            if (mailbox.waiter != null) {
                waiter = mailbox.waiter;
                mailbox.waiter = null;
            } else if (mailbox.socket != null) {
                socket = mailbox.socket;
            } else {
                enqueue(mailbox, plan); // its shared targets are filled in when it is delivered
            }
        }
        if (waiter != null) {
            waiter.complete(List.of(sharedTargets.complete(plan)));
        } else if (socket != null) {
            socket.push(sharedTargets.complete(plan));
        }
    }

    /**
     * Asks the service about the attached hosts due ({@link HostVerification}) and evicts the ones it has not had for
     * long enough: a held poll is answered 404, a websocket told and closed. No presence event: the service has no
     * such host.
     */
    Future<Integer> verifyHosts() {
        return verification.verify(mailboxes.values(), System.nanoTime(), this::evict);
    }

    /** A host the service has not had for long enough (already marked removed and unknown): out, and told. */
    private void evict(HostMailbox mailbox) {
        PollWaiter waiter;
        AgentSocket socket;
        synchronized (mailbox) {
            waiter = mailbox.waiter;
            socket = mailbox.socket;
            mailbox.waiter = null;
            mailbox.socket = null;
            mailbox.pending = null;
        }
        mailboxes.remove(mailbox.key, mailbox);
        if (socket != null) {
            metrics.rejected(GatewayMetrics.REASON_HOST_UNKNOWN);
            sockets.decrementAndGet();
            socket.hostUnknown();
        }
        if (waiter != null) {
            metrics.rejected(GatewayMetrics.REASON_HOST_UNKNOWN);
            waiter.hostUnknown();
        }
    }

    /**
     * A host answered 404 here made contact: asked about again; {@link HostUnknown} when the service still does not
     * have it, else {@code contact} goes on as for any host (also when the service cannot tell: no verdict).
     */
    Future<HostMailbox> unlessUnknown(HostKey key, java.util.function.Supplier<Future<HostMailbox>> contact) {
        return onCaller(verification.stillUnknown(key)).compose(unknown -> {
            if (unknown) {
                metrics.rejected(GatewayMetrics.REASON_HOST_UNKNOWN);
                return Future.failedFuture(new HostUnknown(key));
            }
            return contact.get();
        });
    }

    /** Whether a step reply of the host may be published: false (404) for a host the service still does not have. */
    Future<Boolean> mayReply(HostKey key) {
        if (!verification.answeredUnknown(key)) {
            return Future.succeededFuture(true);
        }
        return onCaller(verification.stillUnknown(key)).map(unknown -> {
            if (unknown) {
                metrics.rejected(GatewayMetrics.REASON_HOST_UNKNOWN);
            }
            return !unknown;
        });
    }

    /** The answer handed back on the caller's context (the service's answers come on the database client's). */
    private static <T> Future<T> onCaller(Future<T> answer) {
        io.vertx.core.Context caller = io.vertx.core.Vertx.currentContext();
        if (caller == null) {
            return answer;
        }
        io.vertx.core.Promise<T> here = io.vertx.core.Promise.promise();
        answer.onComplete(ar -> caller.runOnContext(v -> here.handle(ar)));
        return here.future();
    }

    /** The service does not have this host: it is answered 404. */
    static final class HostUnknown extends RuntimeException {
        HostUnknown(HostKey key) {
            super("host " + key.hostId() + " not found", null, false, false);
        }
    }

    /** Forgets HTTP hosts silent past their window ({@code disconnected}). Returns how many were dropped. */
    int sweep() {
        long now = System.nanoTime();
        sharedTargets.sweep(now);
        int dropped = 0;
        for (HostMailbox mailbox : mailboxes.values()) {
            boolean expired;
            synchronized (mailbox) {
                expired = !mailbox.removed && mailbox.socket == null && mailbox.waiter == null
                        && now - mailbox.lastContactNanos > mailbox.lastNextInstructionSeconds * 1_000_000_000L + graceNanos;
                if (expired) {
                    mailbox.removed = true;
                }
            }
            if (expired) {
                mailboxes.remove(mailbox.key, mailbox);
                publishPresence(mailbox, AgentPresence.DISCONNECTED, AgentPresence.LONG_POLL);
                dropped++;
            }
        }
        return dropped;
    }

    /** Guarded by the mailbox: records the contact and says which presence event, if any, it calls for. */
    private String touch(HostMailbox mailbox, AgentClaims claims, String agentVersion, long now, boolean created) {
        mailbox.claims = claims;
        if (agentVersion != null) {
            mailbox.agentVersion = agentVersion;
        }
        mailbox.lastContactNanos = now;
        String presence = null;
        if (created) {
            presence = AgentPresence.CONNECTED;
        } else if (mailbox.claimed && now - mailbox.lastPresenceNanos >= checkInNanos) {
            presence = AgentPresence.CHECKED_IN;
        }
        mailbox.claimed = true;
        if (presence != null) {
            mailbox.lastPresenceNanos = now;
        }
        return presence;
    }

    private Future<HostMailbox> publishPresence(HostMailbox mailbox, String state, String transport) {
        if (state == null) {
            return Future.succeededFuture(mailbox);
        }
        AgentClaims claims;
        String version;
        synchronized (mailbox) {
            claims = mailbox.claims;
            version = mailbox.agentVersion;
        }
        Future<Void> published = events.presence(claims, mailbox.key.hostId(), state, transport, version);
        if (!AgentPresence.CONNECTED.equals(state)) {
            return Future.succeededFuture(mailbox);
        }
        // Without its connected event the service would not re-plan: forget the host so the retry announces it again.
        return published.map(mailbox).recover(failure -> {
            forget(mailbox);
            return Future.failedFuture(failure);
        });
    }

    private void forget(HostMailbox mailbox) {
        boolean hadSocket;
        synchronized (mailbox) {
            mailbox.removed = true;
            hadSocket = mailbox.socket != null;
            mailbox.socket = null;
            mailbox.waiter = null;
        }
        if (hadSocket) {
            sockets.decrementAndGet();
        }
        mailboxes.remove(mailbox.key, mailbox);
    }

    private void enqueue(HostMailbox mailbox, BusEvent event) {
        if (mailbox.pending != null) {
            metrics.rejected(GatewayMetrics.REASON_STALE_STEPS); // a plan the host never saw, superseded
            mailbox.pending = PlanCoalescing.coalesce(mailbox.pending, event);
        } else {
            mailbox.pending = event;
        }
    }

    private static List<BusEvent> drain(HostMailbox mailbox) {
        if (mailbox.pending == null) {
            return List.of();
        }
        BusEvent pending = mailbox.pending;
        mailbox.pending = null;
        return List.of(pending);
    }
}
