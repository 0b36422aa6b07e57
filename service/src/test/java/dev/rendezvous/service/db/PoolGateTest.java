package dev.rendezvous.service.db;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.SqlConnection;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A burst past the pool's bounded queue, through the gate, waits instead of being refused; each request starts and
 * completes on the context that asked (the brain's lanes are event loops).
 */
class PoolGateTest {
  @TempDir Path dir;

  @Test
  void aBurstTwiceThePoolsQueueIsAllAnsweredInsteadOfRefused() throws Exception {
    Vertx vertx = Vertx.vertx();
    try (EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(dir.resolve("pg"), false)) {
      Pool pool = Database.pool(vertx, pg.connectionUri(), 1);
      int burst = 2 * Database.waitQueue(1);
      // without the gate: the same burst has requests refused at once
      SqlConnection held = pool.getConnection().await(30, TimeUnit.SECONDS);
      List<Future<Integer>> ungated = new ArrayList<>();
      for (int i = 0; i < burst; i++) {
        int n = i;
        ungated.add(pool.query("SELECT " + n).execute().map(rows -> rows.iterator().next().getInteger(0)));
      }
      held.close().await(10, TimeUnit.SECONDS);
      Future.join(new ArrayList<>(ungated)).otherwiseEmpty().await(60, TimeUnit.SECONDS);
      assertTrue(ungated.stream().anyMatch(Future::failed), "the pool alone refuses past its queue");

      PoolGate gate = new PoolGate(64);
      SqlConnection heldAgain = pool.getConnection().await(30, TimeUnit.SECONDS);
      Context lane = vertx.getOrCreateContext();
      AtomicInteger onLane = new AtomicInteger();
      CompletableFuture<List<Future<Integer>>> asked = new CompletableFuture<>();
      lane.runOnContext(v -> {
        List<Future<Integer>> gated = new ArrayList<>();
        for (int i = 0; i < burst; i++) {
          int n = i;
          gated.add(gate.run(() -> {
            if (Vertx.currentContext() == lane) {
              onLane.incrementAndGet();
            }
            return pool.query("SELECT " + n).execute().map(rows -> rows.iterator().next().getInteger(0));
          }));
        }
        asked.complete(gated);
      });
      List<Future<Integer>> gated = asked.get(30, TimeUnit.SECONDS);
      assertEquals(64, gate.inFlight());
      assertEquals(burst - 64, gate.waiting());
      heldAgain.close().await(10, TimeUnit.SECONDS);
      for (int i = 0; i < burst; i++) {
        assertEquals(i, gated.get(i).await(60, TimeUnit.SECONDS), "request " + i + " answered");
      }
      assertEquals(burst, onLane.get(), "every request started on the context that asked");
      assertEquals(0, gate.inFlight());
      assertEquals(0, gate.waiting());
      pool.close().await(10, TimeUnit.SECONDS);
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void aRequestThatThrowsFreesItsPlace() throws Exception {
    PoolGate gate = new PoolGate(1);
    Future<Object> thrown = gate.run(() -> {
      throw new IllegalStateException("no statement");
    });
    assertTrue(thrown.failed());
    Promise<String> slow = Promise.promise();
    Future<String> first = gate.run(() -> slow.future());
    Future<String> second = gate.run(() -> Future.succeededFuture("second"));
    assertEquals(1, gate.waiting(), "the second waits for the first");
    slow.complete("first");
    assertEquals("first", first.result());
    assertEquals("second", second.result());
    assertEquals(0, gate.inFlight());
  }
}
