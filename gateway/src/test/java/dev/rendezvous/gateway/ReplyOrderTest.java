package dev.rendezvous.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Context;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Held replies let go together, each on its own event loop: one host's still reach the bus in arrival order. */
class ReplyOrderTest {

    private static <T> T on(Context context, java.util.function.Supplier<T> task) throws Exception {
        CompletableFuture<T> f = new CompletableFuture<>();
        context.runOnContext(v -> f.complete(task.get()));
        return f.get(10, TimeUnit.SECONDS);
    }

    @Test
    void aHostsNewerReplyWaitsForItsOlderOneEvenWhenTheOldersEventLoopIsBusyAndOtherHostsDoNot() throws Exception {
        Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(2));
        try {
            // two instances of a verticle: two event-loop contexts, as two connections of the edge may be on
            List<Context> contexts = new CopyOnWriteArrayList<>();
            vertx.deployVerticle(() -> new io.vertx.core.VerticleBase() {
                @Override
                public io.vertx.core.Future<?> start() {
                    contexts.add(context);
                    return io.vertx.core.Future.succeededFuture();
                }
            }, new io.vertx.core.DeploymentOptions().setInstances(2)).toCompletionStage().toCompletableFuture()
                    .get(10, TimeUnit.SECONDS);
            Context a = contexts.get(0);
            Context b = contexts.get(1);
            assertNotEquals(on(a, () -> Thread.currentThread()), on(b, () -> Thread.currentThread()),
                    "two event loops, as two connections of the edge may be on");
            ReplyOrder order = new ReplyOrder();
            HostKey host = new HostKey(UUID.randomUUID().toString(), UUID.randomUUID().toString());
            HostKey other = new HostKey(UUID.randomUUID().toString(), UUID.randomUUID().toString());
            List<String> handed = new CopyOnWriteArrayList<>();
            CountDownLatch all = new CountDownLatch(3);
            Promise<Void> older = Promise.promise();
            Promise<Void> newer = Promise.promise();
            on(a, () -> {
                order.inTurn(host, older.future(), () -> { handed.add("older"); all.countDown(); });
                return null;
            });
            on(b, () -> {
                order.inTurn(host, newer.future(), () -> { handed.add("newer"); all.countDown(); });
                return null;
            });
            // the older reply's event loop is busy when both are let go: the newer's is free
            CountDownLatch busy = new CountDownLatch(1);
            a.runOnContext(v -> {
                busy.countDown();
                long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1000);
                while (System.nanoTime() < until) {
                    Thread.onSpinWait();
                }
            });
            assertTrue(busy.await(10, TimeUnit.SECONDS));
            newer.complete();
            older.complete();
            on(b, () -> {
                order.inTurn(other, io.vertx.core.Future.succeededFuture(),
                        () -> { handed.add("other host"); all.countDown(); });
                return null;
            });
            assertTrue(all.await(10, TimeUnit.SECONDS), "handed: " + handed);
            assertEquals(List.of("other host", "older", "newer"), handed,
                    "another host's reply goes at once; this host's newer one after its older one");
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5); // each turn ends just after its hand-off
            while (order.waitingHosts() > 0 && System.nanoTime() < until) {
                Thread.sleep(10);
            }
            assertEquals(0, order.waitingHosts(), "nothing kept once handed on");
        } finally {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }
}
