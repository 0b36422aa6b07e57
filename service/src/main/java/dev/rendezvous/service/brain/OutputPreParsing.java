package dev.rendezvous.service.brain;

import dev.rendezvous.bus.BusEvent;
import dev.rendezvous.bus.event.StepReplyReceived;
import dev.rendezvous.service.domain.planning.StepOutputs;
import dev.rendezvous.service.domain.planning.StepType;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.WorkerExecutor;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * A batch's heavy step outputs (inventories, connectivity reports) parsed on a small worker pool while the key's lane
 * works: a cluster's units run one at a time on one event loop, and in a 1,000-host cluster parsing connectivity
 * reports (~300 KB each) was over half of that lane's time (a profile, docs/benchmarks.md, session 41), with the other
 * core idle. The parse is a pure function of the event; the lane uses its result when it is there and parses itself
 * when not (a failed parse, or a batch too light to be worth the hop): the outcome is the same either way.
 */
final class OutputPreParsing {
  /** A batch with less parseable output than this parses on the lane (a hop costs more than it saves). */
  static final int MIN_BATCH_CHARS = 64 * 1024;
  /** Outputs are handed to the pool in groups of about this much (one connectivity report; ~15 inventories). */
  static final int GROUP_CHARS = 64 * 1024;

  private final WorkerExecutor workers;
  private final java.util.concurrent.atomic.LongAdder parsed = new java.util.concurrent.atomic.LongAdder();

  OutputPreParsing(WorkerExecutor workers) {
    this.workers = workers;
  }

  /** Outputs parsed off the lanes so far. */
  long parsedCount() {
    return parsed.sum();
  }

  /** An output to parse ahead: its event, step type and text. */
  private record Heavy(BusEvent event, StepType type, String output) {}

  /** The parse of each of the batch's heavy outputs, started now in order (empty when not worth it). */
  Map<BusEvent, Future<Object>> start(List<BusEvent> events) {
    List<Heavy> heavy = new ArrayList<>();
    long chars = 0;
    for (BusEvent e : events) {
      if (e.payload() instanceof StepReplyReceived r && r.exitCode() == 0 && r.output() != null) {
        StepType t = StepType.parse(r.stepType()).orElse(null);
        if (t == StepType.INVENTORY || t == StepType.CONNECTIVITY_CHECK) {
          heavy.add(new Heavy(e, t, r.output()));
          chars += r.output().length();
        }
      }
    }
    if (chars < MIN_BATCH_CHARS) {
      return Map.of();
    }
    Map<BusEvent, Future<Object>> parsed = new IdentityHashMap<>();
    List<Heavy> group = new ArrayList<>();
    long groupChars = 0;
    for (Heavy h : heavy) {
      group.add(h);
      groupChars += h.output().length();
      if (groupChars >= GROUP_CHARS) {
        submit(group, parsed);
        group = new ArrayList<>();
        groupChars = 0;
      }
    }
    if (!group.isEmpty()) {
      submit(group, parsed);
    }
    return parsed;
  }

  private void submit(List<Heavy> group, Map<BusEvent, Future<Object>> results) {
    Future<List<Object>> all = workers.executeBlocking(() -> {
      List<Object> out = new ArrayList<>(group.size());
      for (Heavy h : group) {
        Object value = parse(h.type(), h.output());
        if (value != null) {
          parsed.increment();
        }
        out.add(value);
      }
      return out;
    }, false);
    for (int i = 0; i < group.size(); i++) {
      int at = i;
      results.put(group.get(i).event(), all.map(l -> l.get(at)).otherwise((Object) null));
    }
  }

  /** The output as the lane would parse it; null when it does not parse (the lane then says why). */
  private static Object parse(StepType type, String output) {
    try {
      return type == StepType.INVENTORY ? StepOutputs.inventory(output) : StepOutputs.connectivity(output);
    } catch (RuntimeException e) {
      return null;
    }
  }

  /** What a pre-parse left for the lane: its result when done, else null (the lane parses). */
  static Object result(Future<Object> parsed) {
    return parsed != null && parsed.succeeded() ? parsed.result() : null;
  }

  /**
   * Completes on {@code ctx} once every pre-parse of {@code applies} ended (at once when none is pending): a unit
   * waits for its events' parses, so it uses them rather than parsing again.
   */
  static Future<Void> ready(List<Brain.Apply> applies, Context ctx) {
    List<Future<Object>> pending = null;
    for (Brain.Apply a : applies) {
      if (a.parsed() != null && !a.parsed().isComplete()) {
        if (pending == null) {
          pending = new ArrayList<>();
        }
        pending.add(a.parsed());
      }
    }
    if (pending == null) {
      return Future.succeededFuture();
    }
    Promise<Void> p = Promise.promise();
    Future.join(pending).onComplete(ar -> ctx.runOnContext(v -> p.complete()));
    return p.future();
  }
}
