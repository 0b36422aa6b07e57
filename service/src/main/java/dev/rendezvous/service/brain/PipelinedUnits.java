package dev.rendezvous.service.brain;

import dev.rendezvous.service.domain.host.HostSnapshot;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.sqlclient.SqlConnection;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;

/**
 * One key's many events (one cluster under a stream of replies) as several units sent one behind the other on one
 * connection, each prepared on the event loop while PostgreSQL runs the ones before it. A unit's domain work and its
 * commit had taken turns, and one busy cluster's lane kept neither the event loop nor PostgreSQL busy.
 *
 * <p>Unit i+1 starts from the state unit i leaves once committed, and commits only if unit i did
 * ({@link BrainStore#commitAfter}: a token unit i sets as its last statement, undone with it). Outcomes are taken in
 * order: a committed unit updates the cache and hands its plans over before the next one's. Once a unit does not
 * commit (stale, a replay, a failure), nothing more is sent, the ones already sent end (not committing), and
 * {@link #run} tells how many committed: the brain runs the rest as one usual unit.
 */
final class PipelinedUnits {

  /** A unit's work ready to commit: its events, and the key's state once it committed. */
  record Prepared(Work work, List<String> eventIds, Loaded after) {}

  /** What the pipeline needs of the brain. */
  interface Units {
    /** The domain applied to the events on {@code base}, planned against {@code last} (a unit up to its commit). */
    Prepared prepare(WorkKey key, Loaded base, List<Brain.Apply> applies, Function<HostSnapshot, PushMark> last);

    /** A unit committed: the cache, its plans handed over (done when they are), what it asks for later. */
    Future<Void> committed(WorkKey key, Prepared unit);

    /** What the host was last sent (published plans). */
    PushMark lastPushed(HostSnapshot host);
  }

  private final Units units;
  private final BrainStore store;
  private final WorkKey key;
  private final List<List<Brain.Apply>> chunks;
  private final Context ctx;
  private final List<Prepared> prepared = new ArrayList<>();
  private final List<Promise<BrainStore.Outcome>> outcomes = new ArrayList<>();
  private final List<Future<BrainStore.Outcome>> sent = new ArrayList<>();
  /** Plans of the units prepared and not yet published: the next unit plans against them. */
  private final Map<HostKey, PushMark> pushing = new HashMap<>();
  private SqlConnection conn;
  /** Set once a unit did not commit (its outcome, or its failure): nothing more is sent. */
  private BrainStore.Outcome outcome;
  private Throwable failure;

  PipelinedUnits(Units units, BrainStore store, WorkKey key, List<List<Brain.Apply>> chunks, Context ctx) {
    this.units = units;
    this.store = store;
    this.key = key;
    this.chunks = chunks;
    this.ctx = ctx;
    chunks.forEach(c -> outcomes.add(Promise.promise()));
  }

  /** How many units committed, once every unit sent on {@code conn} ended. */
  Future<Integer> run(SqlConnection conn, Loaded base) {
    this.conn = conn;
    send(0, base, null);
    Promise<Integer> done = Promise.promise();
    take(0, done);
    return done.future();
  }

  /** The outcome of the first unit that did not commit (null when none, or when it failed). */
  BrainStore.Outcome outcome() {
    return outcome;
  }

  /** Why the first unit that did not commit failed (null when none did). */
  Throwable failure() {
    return failure;
  }

  private boolean stopped() {
    return outcome != null || failure != null;
  }

  private void send(int i, Loaded base, String follows) {
    if (stopped()) {
      return;
    }
    Future<Void> parsed = OutputPreParsing.ready(chunks.get(i), ctx);
    if (!parsed.isComplete()) {
      parsed.onComplete(v -> send(i, base, follows)); // its events' outputs are being parsed: use them once they are
      return;
    }
    Prepared p;
    try {
      p = units.prepare(key, base, chunks.get(i), h -> {
        PushMark m = pushing.get(HostKey.of(h));
        return m != null ? m : units.lastPushed(h);
      });
    } catch (RuntimeException e) {
      outcomes.get(i).fail(e);
      return;
    }
    prepared.add(p);
    p.work().pushes().forEach(push -> pushing.put(HostKey.of(push.host()), PushMark.of(push, p.work().now)));
    String token = UUID.randomUUID().toString();
    Promise<Void> onConnection = Promise.promise();
    Future<BrainStore.Outcome> f = store.commitAfter(conn, p.work(), p.eventIds(), follows, token, onConnection);
    sent.add(f);
    f.onComplete(outcomes.get(i));
    if (i + 1 < chunks.size()) {
      // the next in a later turn: this one's statements go out first (a connection flushes when its turn ends)
      onConnection.future().onSuccess(v -> ctx.runOnContext(x -> send(i + 1, p.after(), token)));
    }
  }

  private void take(int i, Promise<Integer> done) {
    outcomes.get(i).future().onComplete(ar -> {
      if (ar.succeeded() && ar.result() == BrainStore.Outcome.COMMITTED) {
        units.committed(key, prepared.get(i)).onComplete(x -> {
          if (i + 1 == chunks.size()) {
            done.complete(chunks.size());
          } else {
            take(i + 1, done);
          }
        });
        return;
      }
      if (ar.failed()) {
        failure = ar.cause();
      } else {
        outcome = ar.result();
      }
      // the connection goes back once what was sent on it ended (the units behind this one do not commit)
      Future.join(new ArrayList<>(sent)).onComplete(x -> done.complete(i));
    });
  }
}
