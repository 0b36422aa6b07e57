package dev.rendezvous.gateway;

import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Whether the service still has the hosts attached here. Upstream answers a poll of a host it does not have with 404
 * (its agent then stops asking); the gateway publishes without reading the database, so it asks the service in
 * batches instead: each attached host every {@code host_recheck}, a host found missing at every sweep until it is
 * back. A host missing for a whole {@code host_recheck} while the service keeps up (no back-pressure: a registration
 * still in its backlog is not a deletion) is evicted and answered 404 from then on; each later contact of such a host
 * asks again for that one host, so a registration through another gateway lifts it.
 */
final class HostVerification {

    /** Hosts asked about in one question to the service. */
    static final int BATCH = 1_000;
    /** Hosts remembered as answered 404; past it the memory starts over (they are asked about again). */
    static final int MAX_UNKNOWN = 100_000;

    private volatile HostCheck check = HostCheck.ALL;
    private final Pacing pacing;
    private final long recheckNanos;
    private final ConcurrentHashMap<HostKey, Boolean> unknown = new ConcurrentHashMap<>();

    HostVerification(Pacing pacing, java.time.Duration recheck) {
        this.pacing = pacing;
        this.recheckNanos = recheck.toNanos();
    }

    void check(HostCheck c) {
        this.check = c == null ? HostCheck.ALL : c;
    }

    /** Guarded by the mailbox: a registration here, or a new mailbox made by contact (asked about at the next sweep). */
    void attached(HostMailbox mailbox, boolean byRegistration, long now) {
        mailbox.verifiedNanos = byRegistration ? now : now - recheckNanos;
        mailbox.absentSinceNanos = -1;
        if (byRegistration) {
            unknown.remove(mailbox.key);
        }
    }

    /** Whether the host was answered 404 here (and has not registered here since). */
    boolean answeredUnknown(HostKey key) {
        return !unknown.isEmpty() && unknown.containsKey(key);
    }

    /**
     * A host answered 404 before made contact again: asks the service about it alone. True when it is still unknown;
     * false (and forgotten as unknown) when it has the host now, or cannot tell.
     */
    Future<Boolean> stillUnknown(HostKey key) {
        HostCheck.Host host = new HostCheck.Host(key.infraEnvId(), key.hostId());
        return check.registered(List.of(host)).map(found -> {
            if (found.contains(host)) {
                unknown.remove(key);
                return false;
            }
            return true;
        }).otherwise(false);
    }

    /**
     * One sweep's questions: the mailboxes due are asked about in batches. Completes with the mailboxes found
     * missing for long enough, already marked removed: the caller takes them out of the directory.
     */
    Future<List<HostMailbox>> verify(Collection<HostMailbox> mailboxes, long now) {
        HostCheck c = check;
        if (c == HostCheck.ALL) {
            return Future.succeededFuture(List.of());
        }
        List<HostMailbox> due = new ArrayList<>();
        for (HostMailbox m : mailboxes) {
            synchronized (m) {
                if (!m.removed && !m.verifying && (m.absentSinceNanos >= 0 || now - m.verifiedNanos >= recheckNanos)) {
                    m.verifying = true;
                    due.add(m);
                }
            }
        }
        List<Future<List<HostMailbox>>> batches = new ArrayList<>();
        for (int from = 0; from < due.size(); from += BATCH) {
            batches.add(ask(c, due.subList(from, Math.min(due.size(), from + BATCH)), now));
        }
        return Future.join(batches).transform(done -> {
            List<HostMailbox> evicted = new ArrayList<>();
            for (Future<List<HostMailbox>> batch : batches) {
                if (batch.succeeded()) {
                    evicted.addAll(batch.result());
                }
            }
            return Future.succeededFuture(evicted);
        });
    }

    private Future<List<HostMailbox>> ask(HostCheck c, List<HostMailbox> batch, long askedAt) {
        List<HostCheck.Host> hosts = new ArrayList<>(batch.size());
        for (HostMailbox m : batch) {
            hosts.add(new HostCheck.Host(m.key.infraEnvId(), m.key.hostId()));
        }
        Future<Set<HostCheck.Host>> answer;
        try {
            answer = c.registered(hosts);
        } catch (RuntimeException e) {
            answer = Future.failedFuture(e);
        }
        return answer.transform(ar -> {
            List<HostMailbox> evicted = new ArrayList<>();
            boolean keepingUp = pacing.factor() <= 1;
            for (int i = 0; i < batch.size(); i++) {
                HostMailbox m = batch.get(i);
                synchronized (m) {
                    m.verifying = false;
                    if (ar.failed() || m.removed) {
                        continue; // no verdict without an answer
                    }
                    if (ar.result().contains(hosts.get(i))) {
                        m.verifiedNanos = askedAt;
                        m.absentSinceNanos = -1;
                        continue;
                    }
                    if (m.absentSinceNanos < 0 || m.verifiedNanos > m.absentSinceNanos) {
                        // first time missing (a registration here after the question does not count as missing)
                        if (m.verifiedNanos <= askedAt) {
                            m.absentSinceNanos = askedAt;
                        }
                        continue;
                    }
                    if (!keepingUp) {
                        m.absentSinceNanos = askedAt; // the clock restarts: it must be missing while the service keeps up
                    } else if (askedAt - m.absentSinceNanos >= recheckNanos) {
                        m.removed = true;
                        evicted.add(m);
                    }
                }
            }
            for (HostMailbox m : evicted) {
                if (unknown.size() >= MAX_UNKNOWN) {
                    unknown.clear();
                }
                unknown.put(m.key, Boolean.TRUE);
            }
            return Future.succeededFuture(evicted);
        });
    }
}
