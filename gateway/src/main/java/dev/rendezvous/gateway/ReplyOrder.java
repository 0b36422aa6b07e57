package dev.rendezvous.gateway;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One host's step replies go on the bus in the order they got here. Replies held while the service is behind
 * ({@link ReplyAdmission}) are let go together, each on its own connection's event loop, and a newer reply of a host
 * could reach the bus before an older one still held with it: the older then overwrote the newer in the host's state
 * (a load tool's last inventory of a host behind one it had sent before). A later reply of a host now waits until every
 * earlier one was handed to the bus or dropped. Replies of different hosts never wait for each other.
 */
final class ReplyOrder {
    /** Per host, the turn of its latest reply: done once that reply was handed on or dropped. */
    private final ConcurrentHashMap<HostKey, Future<Void>> latest = new ConcurrentHashMap<>();

    /**
     * Runs {@code hand} on the caller's context once {@code admitted} succeeded and the host's earlier replies were
     * handed on or dropped; {@code hand} hands the reply to the bus (or drops it) before it returns. Call it in the
     * order the replies arrived.
     */
    void inTurn(HostKey host, Future<Void> admitted, Runnable hand) {
        Context context = Vertx.currentContext();
        Promise<Void> done = Promise.promise();
        Future<Void> before = latest.put(host, done.future());
        Future<Void> ready = before == null ? admitted : admitted.compose(v -> before);
        ready.onComplete(r -> on(context, () -> {
            try {
                if (r.succeeded()) {
                    hand.run();
                }
            } finally {
                done.complete();
                latest.remove(host, done.future());
            }
        }));
    }

    /** Hosts with a reply not yet handed on. */
    int waitingHosts() {
        return latest.size();
    }

    private static void on(Context context, Runnable task) {
        if (context == null || context == Vertx.currentContext()) {
            task.run();
        } else {
            context.runOnContext(v -> task.run());
        }
    }
}
