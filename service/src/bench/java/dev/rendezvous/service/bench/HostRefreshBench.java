package dev.rendezvous.service.bench;

import dev.rendezvous.service.domain.DomainConfig;
import dev.rendezvous.service.domain.Fixtures;
import dev.rendezvous.service.domain.Transitions;
import dev.rendezvous.service.domain.cluster.ClusterContext;
import dev.rendezvous.service.domain.host.HostEvent;
import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.host.HostStateMachine;
import dev.rendezvous.service.domain.host.HostStatus;
import dev.rendezvous.service.domain.host.HostTransition;
import java.util.ArrayList;
import java.util.List;

/**
 * What one host refresh (all its validations and its state machine) costs while a registration burst fills a cluster:
 * the host just registered (nothing known of it, no previous validations) and the same host refreshed again (its
 * previous document kept), in a cluster of {@code hosts} discovering hosts against the same in a cluster of one (the
 * baseline in the same run: what grows with the cluster).
 *
 * <pre>mvn -q -B -pl service -am install -DskipTests
 * mvn -q -B -pl service -Pbench test-compile exec:java -Dbench.main=dev.rendezvous.service.bench.HostRefreshBench -Dexec.args="400 20000"</pre>
 */
public final class HostRefreshBench {
  private HostRefreshBench() {}

  public static void main(String[] args) {
    int hosts = args.length > 0 ? Integer.parseInt(args[0]) : 400;
    int refreshes = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
    HostStateMachine machine = new HostStateMachine(DomainConfig.defaults());
    ClusterContext alone = cluster(1);
    ClusterContext full = cluster(hosts);
    HostSnapshot fresh = full.hosts().get(hosts - 1);
    HostSnapshot known = Transitions.applied(fresh, machine.apply(fresh, full, new HostEvent.Refresh(), Fixtures.NOW),
        Fixtures.NOW);
    HostSnapshot freshAlone = alone.hosts().get(0);
    HostSnapshot knownAlone = Transitions.applied(freshAlone,
        machine.apply(freshAlone, alone, new HostEvent.Refresh(), Fixtures.NOW), Fixtures.NOW);
    System.out.printf("one discovering host refreshed, %,d times per phase, 3 warm-up rounds then 5 measured%n", refreshes);
    double[] best = {Double.MAX_VALUE, Double.MAX_VALUE, Double.MAX_VALUE, Double.MAX_VALUE};
    for (int round = 0; round < 8; round++) {
      double[] t = {
          timed(refreshes, () -> machine.apply(freshAlone, alone, new HostEvent.Refresh(), Fixtures.NOW)),
          timed(refreshes, () -> machine.apply(knownAlone, alone, new HostEvent.Refresh(), Fixtures.NOW)),
          timed(refreshes, () -> machine.apply(fresh, full, new HostEvent.Refresh(), Fixtures.NOW)),
          timed(refreshes, () -> machine.apply(known, full, new HostEvent.Refresh(), Fixtures.NOW))};
      if (round >= 3) {
        for (int i = 0; i < t.length; i++) {
          best[i] = Math.min(best[i], t[i]);
        }
      }
    }
    System.out.printf("cluster of 1 (baseline): just registered %.1f µs, refreshed again %.1f µs%n", best[0], best[1]);
    System.out.printf("cluster of %d:           just registered %.1f µs (ratio %.2f), refreshed again %.1f µs (ratio %.2f)%n",
        hosts, best[2], best[2] / best[0], best[3], best[3] / best[1]);
  }

  /** A cluster of {@code n} hosts just registered: discovering, checked in, nothing else known. */
  private static ClusterContext cluster(int n) {
    List<HostSnapshot> hosts = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      hosts.add(HostSnapshot.builder(Fixtures.hostId(i), Fixtures.INFRA_ENV).clusterId(Fixtures.CLUSTER)
          .status(HostStatus.DISCOVERING).statusUpdatedAt(Fixtures.NOW.minusSeconds(5))
          .registeredAt(Fixtures.NOW.minusSeconds(5)).checkedInAt(Fixtures.NOW.minusSeconds(1))
          .hostTimestamp(Fixtures.NOW.getEpochSecond()).build());
    }
    return Fixtures.cluster(hosts).machineNetworks(List.of()).apiVips(List.of()).ingressVips(List.of()).build();
  }

  /** Microseconds per call, best of one pass over {@code n} calls. */
  private static double timed(int n, java.util.function.Supplier<HostTransition> call) {
    long start = System.nanoTime();
    int sink = 0;
    for (int i = 0; i < n; i++) {
      sink += call.get().events().size();
    }
    long took = System.nanoTime() - start;
    if (sink == Integer.MIN_VALUE) {
      System.out.println(sink);
    }
    return took / 1000.0 / n;
  }
}
