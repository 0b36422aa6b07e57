package dev.rendezvous.service.feed;

import dev.rendezvous.service.repo.EventRepository;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tenant-wide event feed of one instance: one poller follows the events table in {@code seq} order (one small
 * query per period whatever the number of readers) and hands each new event to the readers whose filter matches.
 *
 * <p>Sequence numbers are taken at insert but become visible at commit, so a later number can show up before an
 * earlier one. The feed never passes a missing number while a transaction that could still commit it is running:
 * when it meets a gap it notes the snapshot's xmax, and skips the gap only once the oldest running transaction is
 * past that xmax (the number was rolled back). Everything at or below {@link #horizon()} is therefore final, which
 * makes "events after id N" a gap-free, duplicate-free resume point.
 */
public final class EventFeed {
  private static final Logger LOG = LoggerFactory.getLogger(EventFeed.class);
  static final int PAGE = 1000;
  static final String COLUMNS = "seq, tenant, name, cluster_id, host_id, infra_env_id, severity, category, message,"
      + " event_time, request_id, props";

  /** A reader: told on its own context, in seq order. */
  public interface Reader {
    EventFilter filter();

    Context context();

    void deliver(List<FeedEvent> events);
  }

  private final Vertx vertx;
  private final Pool pool;
  private final Set<Reader> readers = new CopyOnWriteArraySet<>();
  private volatile long horizon = -1;
  private long gapNoticedAt;     // seq of the first visible row after a gap; 0 when there is no gap
  private Long gapXmax;          // xmax of a snapshot taken after the gap was noticed
  private boolean polling;
  private long timer = -1;
  private Context context;

  public EventFeed(Vertx vertx, Pool pool) {
    this.vertx = vertx;
    this.pool = pool;
  }

  /** Starts following from the current end of the table. */
  public Future<Void> start(long periodMillis) {
    context = vertx.getOrCreateContext();
    return pool.query("SELECT coalesce(max(seq), 0) FROM events").execute().map(rows -> {
      horizon = rows.iterator().next().getLong(0);
      context.runOnContext(v -> timer = vertx.setPeriodic(periodMillis, id -> poll()));
      return null;
    });
  }

  public void stop() {
    stopped = true;
    if (timer >= 0) {
      vertx.cancelTimer(timer);
    }
  }

  /** Set by {@link #stop}: a poll still in flight then may fail on the closing pool, which is no news. */
  private volatile boolean stopped;

  /** Every event with a seq at or below this is final: delivered live, or rolled back and never to appear. */
  public long horizon() {
    return horizon;
  }

  public void add(Reader r) {
    readers.add(r);
  }

  public void remove(Reader r) {
    readers.remove(r);
  }

  public int readers() {
    return readers.size();
  }

  /** Events of a filter in (after, upTo], oldest first, at most {@code limit}: a reader catching up. */
  public Future<List<FeedEvent>> read(EventFilter filter, long after, long upTo, int limit) {
    List<Object> args = new ArrayList<>();
    String where = filter.where(args);
    args.add(after);
    int a = args.size();
    args.add(upTo);
    int b = args.size();
    return pool.preparedQuery("SELECT " + COLUMNS + " FROM events WHERE " + where + " AND seq > $" + a
            + " AND seq <= $" + b + " ORDER BY seq LIMIT " + limit)
        .execute(Tuple.from(args)).map(EventFeed::events);
  }

  void poll() {
    if (polling || horizon < 0) {
      return;
    }
    polling = true;
    pool.query("SELECT pg_snapshot_xmin(pg_current_snapshot())::text, pg_snapshot_xmax(pg_current_snapshot())::text")
        .execute()
        .compose(snap -> {
          Row s = snap.iterator().next();
          long xmin = Long.parseLong(s.getString(0));
          long xmax = Long.parseLong(s.getString(1));
          if (gapNoticedAt != 0 && gapXmax == null) {
            gapXmax = xmax; // taken after the query that noticed the gap: covers every transaction that could fill it
          }
          boolean gapFinal = gapNoticedAt != 0 && gapXmax != null && xmin >= gapXmax;
          return pool.preparedQuery("SELECT " + COLUMNS + " FROM events WHERE seq > $1 ORDER BY seq LIMIT " + PAGE)
              .execute(Tuple.of(horizon)).map(rows -> advance(events(rows), gapFinal));
        })
        .onSuccess(this::dispatch)
        .onFailure(e -> {
          if (!stopped) {
            LOG.warn("event feed poll failed (retried next period): {}", e.toString());
          }
        })
        .onComplete(ar -> polling = false);
  }

  /** The events that can be passed on now, in order; moves the horizon past them. */
  private List<FeedEvent> advance(List<FeedEvent> visible, boolean gapFinal) {
    List<FeedEvent> out = new ArrayList<>();
    long h = horizon;
    for (FeedEvent e : visible) {
      if (e.seq() != h + 1) {
        if (gapNoticedAt == 0) {
          gapNoticedAt = e.seq();
          gapXmax = null;
          break;
        }
        if (!(gapFinal && e.seq() <= gapNoticedAt)) {
          break;
        }
        // the transactions that held the missing numbers have all ended without them: rolled back
      }
      out.add(e);
      h = e.seq();
      if (h >= gapNoticedAt) {
        gapNoticedAt = 0;
        gapXmax = null;
      }
    }
    horizon = h;
    return out;
  }

  private void dispatch(List<FeedEvent> events) {
    if (events.isEmpty() || readers.isEmpty()) {
      return;
    }
    for (Reader r : readers) {
      List<FeedEvent> mine = new ArrayList<>();
      for (FeedEvent e : events) {
        if (r.filter().matches(e)) {
          mine.add(e);
        }
      }
      if (!mine.isEmpty()) {
        r.context().runOnContext(v -> r.deliver(mine));
      }
    }
  }

  static List<FeedEvent> events(RowSet<Row> rows) {
    List<FeedEvent> out = new ArrayList<>(rows.size());
    for (Row r : rows) {
      out.add(new FeedEvent(r.getLong("seq"), r.getString("tenant"), r.getUUID("cluster_id"), r.getUUID("host_id"),
          r.getUUID("infra_env_id"), r.getString("severity"), r.getString("category"),
          EventRepository.toJson(r).put("event_id", r.getLong("seq"))));
    }
    return out;
  }
}
