package dev.rendezvous.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.service.auth.TokenStore;
import io.vertx.core.json.JsonObject;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The live event stream (GET /v2/events/stream, server-sent events) on a real system: order, filters and tenants;
 * resuming after a disconnect with neither gap nor duplicate; a reader that stops reading holds nobody back and
 * still gets everything once it reads again (caught up from the table, not hoarded in memory).
 */
class EventStreamTest {
  @TempDir static Path dataDir;
  static Rendezvous system;
  static Api acme;
  static Api globex;
  static String acmeToken;
  static String globexToken;

  @BeforeAll
  static void start() throws Exception {
    // a small in-memory allowance per reader, so the slow reader's catch-up path is surely taken
    system = TestSystem.start(dataDir, Map.of("event-stream-max-pending", "20"));
    TokenStore tokens = new TokenStore(system.pool());
    acmeToken = tokens.create("acme", "stream", false).await(10, TimeUnit.SECONDS);
    globexToken = tokens.create("globex", "stream", false).await(10, TimeUnit.SECONDS);
    acme = new Api(system.config().apiPort(), acmeToken);
    globex = new Api(system.config().apiPort(), globexToken);
  }

  @AfterAll
  static void stop() {
    system.close();
  }

  private static String cluster(Api api, String name) {
    return api.post("/clusters", Api.cluster(name)).json().getString("id");
  }

  private static void event(Api api, String clusterId, String severity, String message) {
    Api.Reply r = api.post("/events", new JsonObject().put("cluster_id", clusterId).put("severity", severity)
        .put("message", message));
    assertEquals(201, r.status(), r.toString());
  }

  private static List<String> messages(List<SseReader.Received> events, String prefix) {
    return events.stream().map(e -> e.event().getString("message")).filter(m -> m.startsWith(prefix)).toList();
  }

  private static void assertIncreasing(List<SseReader.Received> events) {
    for (int i = 1; i < events.size(); i++) {
      assertTrue(events.get(i).id() > events.get(i - 1).id(), "ids increase: " + events.get(i - 1).id()
          + " then " + events.get(i).id());
    }
  }

  @Test
  void eventsArriveInOrderFilteredAndOnlyToTheirTenant() throws Exception {
    String a = cluster(acme, "stream-a");
    String b = cluster(acme, "stream-b");
    String g = cluster(globex, "stream-g");
    int port = system.config().apiPort();
    try (SseReader onlyA = new SseReader(port, acmeToken, "cluster_id=" + a, null);
         SseReader warningsOfAcme = new SseReader(port, acmeToken, "severities=warning", null);
         SseReader allAcme = new SseReader(port, acmeToken, "", null);
         SseReader allGlobex = new SseReader(port, globexToken, "", null)) {
      assertEquals(200, allAcme.status);
      assertTrue(allAcme.contentType.startsWith("text/event-stream"), allAcme.contentType);
      List<String> posted = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        String m = "order-" + i;
        event(acme, i % 2 == 0 ? a : b, i % 4 == 1 ? "warning" : "info", m);
        posted.add(m);
      }
      event(globex, g, "info", "order-globex");
      List<SseReader.Received> all = Await.until("all 40", Duration.ofSeconds(20),
          () -> messages(allAcme.received(), "order-").size() >= 40 ? allAcme.received() : null);
      assertEquals(posted, messages(all, "order-"), "the tenant's stream has every event, in order");
      assertIncreasing(all);
      List<SseReader.Received> ofA = Await.until("A's 20", Duration.ofSeconds(10),
          () -> messages(onlyA.received(), "order-").size() >= 20 ? onlyA.received() : null);
      assertEquals(posted.stream().filter(m -> Integer.parseInt(m.substring(6)) % 2 == 0).toList(), messages(ofA, "order-"));
      assertTrue(ofA.stream().allMatch(e -> a.equals(e.event().getString("cluster_id"))), "only cluster A");
      Await.until("warnings", Duration.ofSeconds(10), () -> messages(warningsOfAcme.received(), "order-").size() >= 10);
      assertTrue(warningsOfAcme.received().stream().allMatch(e -> "warning".equals(e.event().getString("severity"))));
      List<SseReader.Received> ofGlobex = Await.until("globex's event", Duration.ofSeconds(10),
          () -> messages(allGlobex.received(), "order-").size() >= 1 ? allGlobex.received() : null);
      assertEquals(List.of("order-globex"), messages(ofGlobex, "order-"), "another tenant's events never show");
      assertTrue(messages(allAcme.received(), "order-globex").isEmpty());
    }
    // a bad filter is a 400 naming the field, before any stream starts
    Api.Reply bad = acme.get("/events/stream?cluster_id=not-a-uuid");
    assertEquals(400, bad.status(), bad.toString());
    assertTrue(bad.body().contains("cluster_id"), bad.body());
    assertEquals(400, acme.call("GET", "/events/stream?last_event_id=x", null).status());
    assertEquals(401, new Api(port, "rdv_not-a-token").get("/events/stream").status());
  }

  @Test
  void aReconnectingReaderResumesWithNoGapAndNoDuplicate() throws Exception {
    String c = cluster(acme, "stream-resume");
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      expected.add("resume-" + i);
    }
    int port = system.config().apiPort();
    List<SseReader.Received> first;
    try (SseReader r = new SseReader(port, acmeToken, "cluster_id=" + c, null)) {
      for (int i = 0; i < 10; i++) {
        event(acme, c, "info", "resume-" + i);
      }
      first = Await.until("the first 10", Duration.ofSeconds(10),
          () -> messages(r.received(), "resume-").size() >= 10 ? r.received() : null);
    }
    long last = first.get(first.size() - 1).id();
    for (int i = 10; i < 25; i++) { // while disconnected
      event(acme, c, "info", "resume-" + i);
    }
    try (SseReader again = new SseReader(port, acmeToken, "cluster_id=" + c, last)) {
      for (int i = 25; i < 30; i++) { // and after reconnecting
        event(acme, c, "info", "resume-" + i);
      }
      List<SseReader.Received> second = Await.until("the other 20", Duration.ofSeconds(10),
          () -> messages(again.received(), "resume-").size() >= 20 ? again.received() : null);
      List<String> together = new ArrayList<>(messages(first, "resume-"));
      together.addAll(messages(second, "resume-"));
      assertEquals(expected, together, "no gap and no duplicate across the reconnect");
      assertTrue(second.get(0).id() > last);
      assertIncreasing(second);
    }
    // last_event_id=0 replays what is retained, the same as GET /events in ascending order
    try (SseReader replay = new SseReader(port, acmeToken, "cluster_id=" + c + "&last_event_id=0", null)) {
      // the same events as GET /events lists (which orders by event time; the stream by commit sequence, so two
      // writers' events of the same moment may be listed in another order). The brain's own event about the new
      // cluster may commit late under load: both views must come to hold the same events.
      List<SseReader.Received> all = Await.until("the replay holds what GET /events lists", Duration.ofSeconds(10),
          () -> {
            List<SseReader.Received> got = List.copyOf(replay.received());
            List<String> listed = new ArrayList<>(acme.get("/events?cluster_id=" + c + "&order=ascending").array()
                .stream().map(o -> ((JsonObject) o).getString("message")).toList());
            List<String> replayed = new ArrayList<>(got.stream().map(e -> e.event().getString("message")).toList());
            java.util.Collections.sort(listed);
            java.util.Collections.sort(replayed);
            return listed.equals(replayed) ? got : null;
          });
      assertEquals(messages(all, "resume-"), expected, "the replay has them in order");
      assertIncreasing(all);
    }
  }

  @Test
  void aReaderThatStopsReadingHoldsNobodyBackAndLosesNothing() throws Exception {
    String c = cluster(acme, "stream-slow");
    int port = system.config().apiPort();
    long catchUpsBefore = (long) SwarmTest.value(acme.get("/metrics").body(), "rdv_event_stream_catch_ups_total");
    try (Socket slow = new Socket()) {
      slow.setReceiveBufferSize(4096);
      slow.connect(new java.net.InetSocketAddress("127.0.0.1", port));
      OutputStream out = slow.getOutputStream();
      out.write(("GET " + Api.BASE + "/events/stream?cluster_id=" + c + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
          + acmeToken + "\r\nAccept: text/event-stream\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      out.flush();
      try (SseReader fast = new SseReader(port, acmeToken, "cluster_id=" + c, null)) {
        Thread.sleep(300); // both readers registered
        // 1,500 events of 2 KB: far more than the slow socket's buffers and its 20-event allowance
        String pad = "x".repeat(2000);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        List<Future<?>> posts = new ArrayList<>();
        for (int i = 0; i < 1500; i++) {
          int n = i;
          posts.add(pool.submit(() -> event(acme, c, "info", String.format("slow-%05d %s", n, pad))));
        }
        for (Future<?> f : posts) {
          f.get(60, TimeUnit.SECONDS);
        }
        pool.shutdown();
        // the fast reader is not held back by the one that reads nothing
        List<SseReader.Received> got = Await.until("the fast reader's 1500", Duration.ofSeconds(30),
            () -> messages(fast.received(), "slow-").size() >= 1500 ? fast.received() : null);
        assertIncreasing(got);
      }
      // now the slow reader reads: everything, once, in order
      InputStream in = slow.getInputStream();
      StringBuilder text = new StringBuilder();
      byte[] buf = new byte[65536];
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      slow.setSoTimeout(1000);
      List<Long> ids = new ArrayList<>();
      while (ids.size() < 1500 && System.nanoTime() < deadline) {
        int n;
        try {
          n = in.read(buf);
        } catch (java.net.SocketTimeoutException idle) {
          continue;
        }
        if (n < 0) {
          break;
        }
        text.append(new String(buf, 0, n, StandardCharsets.UTF_8));
        int at;
        while ((at = text.indexOf("\n\n")) >= 0) {
          String block = text.substring(0, at);
          text.delete(0, at + 2);
          if (block.contains("\"message\":\"slow-")) {
            String idLine = block.lines().filter(l -> l.startsWith("id: ")).findFirst().orElseThrow();
            ids.add(Long.parseLong(idLine.substring(4)));
          }
        }
      }
      assertEquals(1500, ids.size(), "the slow reader got every event");
      assertEquals(1500, ids.stream().distinct().count(), "none twice");
      for (int i = 1; i < ids.size(); i++) {
        assertTrue(ids.get(i) > ids.get(i - 1), "in order");
      }
    }
    long catchUps = (long) SwarmTest.value(acme.get("/metrics").body(), "rdv_event_stream_catch_ups_total");
    assertTrue(catchUps > catchUpsBefore, "the slow reader was caught up from the table, not hoarded in memory");
  }

  /**
   * Sequence numbers become visible at commit, not in order: an event committed after a later one still comes
   * first on the stream (the feed waits for the open transaction), and a rolled-back number does not stall it.
   */
  @Test
  void anEarlierEventCommittedLateIsStillDeliveredFirstAndARollbackDoesNotStall() throws Exception {
    String c = cluster(acme, "stream-late");
    int port = system.config().apiPort();
    String insert = "INSERT INTO events (tenant, cluster_id, severity, category, message, event_time)"
        + " VALUES ('acme', $1, 'info', 'user', $2, now())";
    try (SseReader r = new SseReader(port, acmeToken, "cluster_id=" + c, null)) {
      io.vertx.sqlclient.SqlConnection conn = system.pool().getConnection().await(10, TimeUnit.SECONDS);
      try {
        io.vertx.sqlclient.Transaction tx = conn.begin().await(10, TimeUnit.SECONDS);
        conn.preparedQuery(insert).execute(io.vertx.sqlclient.Tuple.of(java.util.UUID.fromString(c), "late-1"))
            .await(10, TimeUnit.SECONDS);
        event(acme, c, "info", "late-2"); // a higher number, committed first
        Thread.sleep(1000);
        assertTrue(messages(r.received(), "late-").isEmpty(), "nothing passes the open transaction's number: "
            + r.received());
        tx.commit().await(10, TimeUnit.SECONDS);
        Await.until("both", Duration.ofSeconds(10), () -> messages(r.received(), "late-").size() >= 2);
        assertEquals(List.of("late-1", "late-2"), messages(r.received(), "late-"));

        io.vertx.sqlclient.Transaction rolledBack = conn.begin().await(10, TimeUnit.SECONDS);
        conn.preparedQuery(insert).execute(io.vertx.sqlclient.Tuple.of(java.util.UUID.fromString(c), "late-never"))
            .await(10, TimeUnit.SECONDS);
        event(acme, c, "info", "late-3");
        rolledBack.rollback().await(10, TimeUnit.SECONDS);
        Await.until("the event after the rolled-back number", Duration.ofSeconds(10),
            () -> messages(r.received(), "late-").size() >= 3);
        assertEquals(List.of("late-1", "late-2", "late-3"), messages(r.received(), "late-"));
        assertIncreasing(r.received());
      } finally {
        conn.close();
      }
    }
  }
}
