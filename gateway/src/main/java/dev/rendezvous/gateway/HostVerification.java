package dev.rendezvous.gateway;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * Whether the service still has the hosts attached here. Upstream answers a poll of a host it does not have with 404
 * (its agent then stops asking); the gateway publishes without reading the database, so it asks the service in
 * batches instead: each attached host every {@code host_recheck}, a host found missing at every sweep until it is
 * back. A host missing for a whole {@code host_recheck} while the service keeps up (no back-pressure: a registration
 * still in its backlog is not a deletion) is evicted and answered 404 from then on. Each later contact of such a host
 * asks again, twice {@link #CONFIRM_DELAY_MS} apart: a registration through another gateway, still on its way to the
 * service, lifts the 404 instead of freezing the host's agent for good.
 *
 * <p>Limit: "keeps up" is this instance's brain. With several instances, a registration waiting on a partition whose
 * owner died is not seen as back-pressure here; the 30 s default leaves ~20 s over the brain's 10 s session timeout.
 */
final class HostVerification {

    /** Hosts asked about in one question to the service. */
    static final int BATCH = 1_000;
    /** Hosts remembered as answered 404; past it the memory starts over (they are asked about again). */
    static final int MAX_UNKNOWN = 100_000;
    /** A host answered 404 before is found missing twice this far apart (at most a recheck) before 404 again. */
    static final long CONFIRM_DELAY_MS = 3_000;
    /** A question the service has not answered by then gets no verdict (its hosts are asked again later). */
    static final long MIN_ANSWER_TIMEOUT_MS = 5_000;

    private volatile HostCheck check = HostCheck.ALL;
    private final Vertx vertx;
    private final Pacing pacing;
    private final long recheckNanos;
    private final long answerTimeoutMs;
    private final long confirmDelayMs;
    private final ConcurrentHashMap<HostKey, Boolean> unknown = new ConcurrentHashMap<>();

    HostVerification(Vertx vertx, Pacing pacing, java.time.Duration recheck) {
        this.vertx = vertx;
        this.pacing = pacing;
        this.recheckNanos = recheck.toNanos();
        this.answerTimeoutMs = Math.max(MIN_ANSWER_TIMEOUT_MS, recheck.toMillis());
        this.confirmDelayMs = Math.min(CONFIRM_DELAY_MS, recheck.toMillis());
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
     * A host answered 404 before made contact again: true when the service still does not have it, asked twice
     * {@link #CONFIRM_DELAY_MS} apart while it keeps up and no registration came here meanwhile; false (forgotten as
     * unknown when the service has it) otherwise, also when the service cannot tell.
     */
    Future<Boolean> stillUnknown(HostKey key) {
        return missing(key).compose(first -> {
            if (!first) {
                return Future.succeededFuture(false);
            }
            Promise<Void> later = Promise.promise();
            vertx.setTimer(confirmDelayMs, id -> later.complete());
            return later.future().compose(v -> missing(key));
        });
    }

    /** One question about one host: missing (and still taken for unknown here, the service keeping up)? */
    private Future<Boolean> missing(HostKey key) {
        if (!answeredUnknown(key) || pacing.factor() > 1) {
            return Future.succeededFuture(false);
        }
        HostCheck.Host host = new HostCheck.Host(key.infraEnvId(), key.hostId());
        return ask(check, List.of(host)).map(found -> {
            if (found.contains(host)) {
                unknown.remove(key);
                return false;
            }
            return answeredUnknown(key) && pacing.factor() <= 1; // a registration here meanwhile lifts it
        }).otherwise(false);
    }

    /**
     * One sweep's questions: the mailboxes due are asked about in batches. Each mailbox found missing for long enough
     * is marked removed, remembered as unknown and handed to {@code evict} as soon as its batch is answered (the
     * caller takes it out of the directory at once: contacts of the host must not meet a removed mailbox there).
     * Completes with how many were evicted.
     */
    Future<Integer> verify(Collection<HostMailbox> mailboxes, long now, Consumer<HostMailbox> evict) {
        HostCheck c = check;
        if (c == HostCheck.ALL) {
            return Future.succeededFuture(0);
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
        List<Future<Integer>> batches = new ArrayList<>();
        for (int from = 0; from < due.size(); from += BATCH) {
            batches.add(verifyBatch(c, due.subList(from, Math.min(due.size(), from + BATCH)), now, evict));
        }
        return Future.join(batches).transform(done -> {
            int evicted = 0;
            for (Future<Integer> batch : batches) {
                evicted += batch.succeeded() ? batch.result() : 0;
            }
            return Future.succeededFuture(evicted);
        });
    }

    private Future<Integer> verifyBatch(HostCheck c, List<HostMailbox> batch, long askedAt, Consumer<HostMailbox> evict) {
        List<HostCheck.Host> hosts = new ArrayList<>(batch.size());
        for (HostMailbox m : batch) {
            hosts.add(new HostCheck.Host(m.key.infraEnvId(), m.key.hostId()));
        }
        return ask(c, hosts).transform(ar -> {
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
                    if (m.verifiedNanos > askedAt) {
                        continue; // registered here after the question: the answer is older than the registration
                    }
                    if (m.absentSinceNanos < 0 || !keepingUp) {
                        // first time missing, or the service is behind: the clock (re)starts, it must be missing
                        // while the service keeps up
                        m.absentSinceNanos = askedAt;
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
                unknown.put(m.key, Boolean.TRUE); // before the mailbox leaves the directory: the next contact is a 404
                evict.accept(m);
            }
            return Future.succeededFuture(evicted.size());
        });
    }

    /** The check's answer, or a failure when it throws or takes longer than {@link #answerTimeoutMs}. */
    private Future<Set<HostCheck.Host>> ask(HostCheck c, List<HostCheck.Host> hosts) {
        Future<Set<HostCheck.Host>> answer;
        try {
            answer = c.registered(hosts);
        } catch (RuntimeException e) {
            return Future.failedFuture(e);
        }
        Promise<Set<HostCheck.Host>> bounded = Promise.promise();
        long timer = vertx.setTimer(answerTimeoutMs, id -> bounded.tryFail(new TimeoutException(
                "no answer about " + hosts.size() + " host(s) within " + answerTimeoutMs + " ms")));
        answer.onComplete(ar -> {
            vertx.cancelTimer(timer);
            if (ar.succeeded()) {
                bounded.tryComplete(ar.result());
            } else {
                bounded.tryFail(ar.cause());
            }
        });
        return bounded.future();
    }
}
