package dev.rendezvous.service.feed;

import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One server-sent-events reader: writes the events its filter matches, oldest first, each with its seq as the SSE
 * id. A reader that cannot keep up never holds the others back and never makes the server hoard: while the
 * connection's write queue is full, up to {@code maxPending} events wait here; past that they are dropped, and once
 * the reader drains, it catches up from the events table from its last id (then rejoins the live feed). Resuming
 * after a reconnect is the same catch-up, from the client's Last-Event-ID.
 */
public final class EventStream implements EventFeed.Reader {
  static final int CATCH_UP_PAGE = 500;
  /** Streams that fell behind and were caught up from the table (tests, metrics). */
  public static final AtomicLong OVERFLOWS = new AtomicLong();

  private final EventFeed feed;
  private final EventFilter filter;
  private final HttpServerResponse resp;
  private final Context context;
  private final Vertx vertx;
  private final int maxPending;
  private final ArrayDeque<FeedEvent> pending = new ArrayDeque<>();
  private long lastSent;
  private boolean catchingUp;
  private boolean overflowed;
  private boolean closed;
  private long heartbeat = -1;

  public EventStream(Vertx vertx, EventFeed feed, EventFilter filter, HttpServerResponse resp, int maxPending) {
    this.vertx = vertx;
    this.feed = feed;
    this.filter = filter;
    this.resp = resp;
    this.context = vertx.getOrCreateContext();
    this.maxPending = maxPending;
  }

  /** Starts writing: after {@code lastEventId} when the client resumes, else from now. Call on the request's context. */
  public void start(Long lastEventId, long heartbeatMillis) {
    resp.setChunked(true)
        .putHeader("Content-Type", "text/event-stream; charset=utf-8")
        .putHeader("Cache-Control", "no-cache")
        .putHeader("X-Accel-Buffering", "no")
        .putHeader("Content-Encoding", "identity"); // no compression: each event must leave at once
    resp.closeHandler(v -> close());
    resp.exceptionHandler(e -> close());
    resp.drainHandler(v -> drained());
    resp.write("retry: 2000\n\n");
    feed.add(this);
    long h = feed.horizon();
    if (lastEventId == null || lastEventId >= h) {
      lastSent = lastEventId == null ? h : lastEventId;
    } else {
      lastSent = lastEventId;
      catchUp();
    }
    heartbeat = vertx.setPeriodic(heartbeatMillis, id -> {
      if (!resp.writeQueueFull()) {
        resp.write(": keep-alive\n\n");
      }
    });
  }

  @Override
  public EventFilter filter() {
    return filter;
  }

  @Override
  public Context context() {
    return context;
  }

  @Override
  public void deliver(List<FeedEvent> events) {
    for (FeedEvent e : events) {
      if (closed || e.seq() <= lastSent) {
        continue;
      }
      if (catchingUp || overflowed || !pending.isEmpty() || resp.writeQueueFull()) {
        hold(e);
      } else {
        write(e);
      }
    }
  }

  private void hold(FeedEvent e) {
    if (overflowed) {
      return; // will be read back from the table
    }
    if (pending.size() >= maxPending) {
      overflowed = true;
      pending.clear();
      OVERFLOWS.incrementAndGet();
      return;
    }
    pending.add(e);
  }

  private void write(FeedEvent e) {
    lastSent = e.seq();
    resp.write(Buffer.buffer("id: " + e.seq() + "\nevent: event\ndata: " + e.json().encode() + "\n\n"));
  }

  private void drained() {
    if (closed || catchingUp) {
      return;
    }
    if (overflowed) {
      catchUp();
      return;
    }
    flush();
  }

  private void flush() {
    while (!pending.isEmpty() && !resp.writeQueueFull()) {
      FeedEvent e = pending.poll();
      if (e.seq() > lastSent) {
        write(e);
      }
    }
  }

  /** Reads (lastSent, horizon] from the table page by page, pausing while the client is slow. */
  private void catchUp() {
    catchingUp = true;
    overflowed = false;
    long upTo = feed.horizon();
    feed.read(filter, lastSent, upTo, CATCH_UP_PAGE).onComplete(ar -> {
      if (closed) {
        return;
      }
      if (ar.failed()) {
        // the database is away: try again shortly; nothing is skipped
        vertx.setTimer(1000, id -> catchUp());
        return;
      }
      for (FeedEvent e : ar.result()) {
        if (e.seq() > lastSent) {
          write(e);
        }
      }
      boolean more = ar.result().size() == CATCH_UP_PAGE;
      if (more) {
        if (resp.writeQueueFull()) {
          resp.drainHandler(v -> {
            resp.drainHandler(x -> drained());
            catchUp();
          });
        } else {
          catchUp();
        }
        return;
      }
      catchingUp = false;
      if (overflowed) {
        catchUp();
      } else if (!resp.writeQueueFull()) {
        flush();
      }
    });
  }

  private void close() {
    if (closed) {
      return;
    }
    closed = true;
    pending.clear();
    feed.remove(this);
    if (heartbeat >= 0) {
      vertx.cancelTimer(heartbeat);
    }
  }
}
