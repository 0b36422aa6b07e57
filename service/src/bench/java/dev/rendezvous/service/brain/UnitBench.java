package dev.rendezvous.service.brain;

import dev.rendezvous.service.domain.DomainConfig;
import dev.rendezvous.service.domain.planning.StepIdGenerator;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * What one unit of work costs the brain outside the database, as {@link Brain} runs it (the unit's body, the touched
 * hosts settled, plans, the rows to write, the state cached after the commit), in a cluster of {@code hosts} hosts
 * against a cluster of 3 in the same run: what grows with the cluster is what a big cluster's lane pays per unit.
 * Four phases per cluster: registrations of new hosts (as a registration burst brings them), step replies of one
 * host each (ntp output flipping, so every unit writes a row) while the others rest, full passes (every host
 * refreshed in one unit, as the monitor's and the debounced refreshes do), and units of 256 hosts' new inventories
 * (a burst of replies into one cluster), with what their rows to write cost apart. No I/O: the figures are the
 * event loop's share of a unit.
 *
 * <pre>mvn -q -B -o install -Dmaven.test.skip=true
 * mvn -q -B -o -pl service -Pbench test-compile exec:java -Dbench.main=dev.rendezvous.service.brain.UnitBench -Dexec.args="1000 300"</pre>
 */
public final class UnitBench {
  private static final UUID CLUSTER = UUID.fromString("c0000000-0000-0000-0000-000000000001");
  private static final UUID INFRA_ENV = UUID.fromString("e0000000-0000-0000-0000-000000000001");

  private final BrainRules rules = new BrainRules(DomainConfig.defaults(), StepIdGenerator.sequential());
  private final Map<UUID, PushMark> marks = new HashMap<>();
  private Loaded state;
  private Instant now = Instant.parse("2026-11-27T12:00:00Z");
  private int next;
  private long fullPassesAsked;
  private long askedInPhases;
  private long writeNanos;
  private long rowsWritten;

  private UnitBench(int hosts) {
    state = BrainFixtures.loaded(CLUSTER, now);
    for (int i = 0; i < hosts; i++) {
      register();
    }
  }

  public static void main(String[] args) {
    int hosts = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
    int units = args.length > 1 ? Integer.parseInt(args[1]) : 300;
    System.out.printf("units of work, %d per phase, best of 5 rounds after 5 warm-up rounds%n", units);
    double[] small = {Double.MAX_VALUE, Double.MAX_VALUE, Double.MAX_VALUE, Double.MAX_VALUE, Double.MAX_VALUE};
    double[] big = {Double.MAX_VALUE, Double.MAX_VALUE, Double.MAX_VALUE, Double.MAX_VALUE, Double.MAX_VALUE};
    long asked = 0;
    for (int round = 0; round < 10; round++) {
      UnitBench s = new UnitBench(3);
      UnitBench b = new UnitBench(hosts);
      double[] ts = s.phases(units);
      double[] tb = b.phases(units);
      if (round >= 5) {
        for (int i = 0; i < small.length; i++) {
          small[i] = Math.min(small[i], ts[i]);
          big[i] = Math.min(big[i], tb[i]);
        }
        asked = b.askedInPhases;
      }
    }
    System.out.printf("cluster of 3 (baseline):  registration %.1f µs, one host's reply %.1f µs per unit%n", small[0], small[1]);
    System.out.printf("cluster of %d: registration %.1f µs (ratio %.2f), one host's reply %.1f µs (ratio %.2f)%n",
        hosts, big[0], big[0] / small[0], big[1], big[1] / small[1]);
    System.out.printf("a full pass (every host refreshed in one unit): cluster of 3: %.0f µs (%d hosts by then); cluster of %d: %.0f µs%n",
        small[2], 3 + units, hosts, big[2]);
    System.out.printf("one unit of many hosts' new inventories, per host: cluster of 3: %.1f µs; cluster of %d (256 a unit): %.1f µs%n",
        small[3], hosts, big[3]);
    System.out.printf("  of which the rows to write, their changed columns and the state cached after: %.1f µs; %.1f µs%n",
        small[4], big[4]);
    System.out.printf("full passes asked for in the big cluster's measured phases: %d%n", asked);
  }

  /** Microseconds per unit: {@code units} registrations, then {@code units} replies of one host each. */
  private double[] phases(int units) {
    long fullBefore = fullPassesAsked;
    long t0 = System.nanoTime();
    for (int i = 0; i < units; i++) {
      register();
    }
    long t1 = System.nanoTime();
    List<UUID> ids = List.copyOf(state.hosts().keySet());
    for (int i = 0; i < units; i++) {
      UUID id = ids.get(i % ids.size());
      String ntp = i % 2 == 0 ? BrainFixtures.ntp() : BrainFixtures.ntp().replace("synced", "unsynced");
      unit(w -> rules.stepReply(w, id, "ntp-synchronizer", 0, ntp, null, now));
    }
    long t2 = System.nanoTime();
    askedInPhases = fullPassesAsked - fullBefore;
    // full passes (the monitor's, a debounced refresh): every host refreshed in one unit
    int passes = 5;
    for (int i = 0; i < passes; i++) {
      unit(w -> {
        for (UUID id : w.hostIds()) {
          w.refresh(id);
        }
      });
    }
    long t3 = System.nanoTime();
    // batches: up to 256 hosts' new inventories (a new hostname each) in one unit, as a burst of replies into one
    // cluster brings them (scripts/bench-one-cluster)
    int batch = Math.min(256, ids.size());
    int batches = Math.max(1, units / batch);
    List<String> inventories = new java.util.ArrayList<>();
    for (int i = 0; i < batch; i++) {
      inventories.add(BrainFixtures.inventory(i, 8));
    }
    long writesBefore = writeNanos;
    long rowsBefore = rowsWritten;
    for (int b = 0; b < batches; b++) {
      int round = b;
      unit(w -> {
        for (int i = 0; i < batch; i++) {
          String output = inventories.get(i).replace("\"host-" + i + "\"", "\"host-" + i + "-" + round + "\"");
          rules.stepReply(w, ids.get(i), "inventory", 0, output, null, now);
        }
      });
    }
    long t4 = System.nanoTime();
    return new double[] {(t1 - t0) / 1000.0 / units, (t2 - t1) / 1000.0 / units, (t3 - t2) / 1000.0 / passes,
        (t4 - t3) / 1000.0 / batches / batch, (writeNanos - writesBefore) / 1000.0 / (rowsWritten - rowsBefore)};
  }

  private void register() {
    UUID id = UUID.fromString(String.format("a0000000-0000-0000-0000-%012d", ++next));
    unit(w -> rules.register(w, id, INFRA_ENV, CLUSTER, "bench", now));
  }

  /** One unit as {@link UnitRunner#attempt} runs it, the commit itself left out. */
  private void unit(Consumer<Work> body) {
    now = now.plusMillis(10);
    Work w = new Work(state, now);
    body.accept(w);
    List<UUID> scope = w.refreshScope();
    if (!scope.isEmpty()) {
      rules.settle(w, scope);
    }
    rules.plan(w, h -> marks.get(h.id()), 1.0);
    if (!w.changed()) {
      return;
    }
    // the commit's statements: the columns each written row changes (the SQL itself left out)
    long t0 = System.nanoTime();
    w.writes().forEach((id, s) -> {
      if (!w.isNew(id)) {
        RowWrites.hostChanges(s, state.stored().get(id));
      }
    });
    Loaded after = w.committed();
    writeNanos += System.nanoTime() - t0;
    rowsWritten += w.writes().size();
    w.pushes().forEach(p -> marks.put(p.host().id(), PushMark.of(p, w.now)));
    if (w.othersMayBeStale()) {
      fullPassesAsked++; // Brain debounces these into one pass a little later: not part of the unit
    }
    state = after;
  }
}
