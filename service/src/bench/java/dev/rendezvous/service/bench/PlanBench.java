package dev.rendezvous.service.bench;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rendezvous.service.domain.DomainConfig;
import dev.rendezvous.service.domain.Fixtures;
import dev.rendezvous.service.domain.cluster.ClusterContext;
import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.host.HostStatus;
import dev.rendezvous.service.domain.planning.NextStepPlanner;
import dev.rendezvous.service.domain.planning.StepIdGenerator;
import java.util.ArrayList;
import java.util.List;

/**
 * What one host's plan costs in a cluster of {@code hosts} known hosts (its connectivity check lists every peer's NICs):
 * with a memo made for the plan (as every unit of work made one before), with the key's memo kept across plans
 * (entries serialised once per inventory), and the baseline in the same run, a plan in a cluster of three.
 *
 * <pre>mvn -q -B -pl service -am install -DskipTests
 * mvn -q -B -pl service -Pbench test-compile exec:java -Dbench.main=dev.rendezvous.service.bench.PlanBench -Dexec.args="1000 2000"</pre>
 */
public final class PlanBench {
  private PlanBench() {}

  public static void main(String[] args) {
    int hosts = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
    int plans = args.length > 1 ? Integer.parseInt(args[1]) : 2000;
    NextStepPlanner planner = new NextStepPlanner(DomainConfig.defaults(), StepIdGenerator.sequential());
    ClusterContext small = cluster(3);
    ClusterContext full = cluster(hosts);
    NextStepPlanner.Memo kept = new NextStepPlanner.Memo();
    NextStepPlanner.Memo keptSmall = new NextStepPlanner.Memo();
    System.out.printf("one known host's plan, %,d plans per phase (host after host), 3 warm-up rounds then 5 measured%n",
        plans);
    double[] best = {Double.MAX_VALUE, Double.MAX_VALUE, Double.MAX_VALUE};
    for (int round = 0; round < 8; round++) {
      double[] t = {
          timed(plans, i -> planner.plan(small.hosts().get(i % 3), small, keptSmall).steps().instructions().size()),
          timed(plans, i -> planner.plan(full.hosts().get(i % hosts), full, new NextStepPlanner.Memo()).steps()
              .instructions().size()),
          timed(plans, i -> planner.plan(full.hosts().get(i % hosts), full, kept).steps().instructions().size())};
      if (round >= 3) {
        for (int i = 0; i < t.length; i++) {
          best[i] = Math.min(best[i], t[i]);
        }
      }
    }
    System.out.printf("cluster of 3 (baseline): %.1f µs per plan%n", best[0]);
    System.out.printf("cluster of %d: a memo per plan %.1f µs (ratio %.1f), the key's memo kept %.1f µs (ratio %.1f);"
        + " kept / per plan %.2f%n", hosts, best[1], best[1] / best[0], best[2], best[2] / best[0], best[2] / best[1]);
  }

  /** {@code n} known hosts, each with the captured inventory on its own address 10.0.x.y/16. */
  private static ClusterContext cluster(int n) {
    List<HostSnapshot> hosts = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      String ip = "10.0." + (i / 250) + "." + (i % 250 + 2) + "/16";
      hosts.add(Fixtures.host(i, HostStatus.KNOWN).inventory(Fixtures.inventoryForHost(i, inv -> {
        ArrayNode nics = (ArrayNode) inv.get("interfaces");
        ((ObjectNode) nics.get(0)).putArray("ipv4_addresses").add(ip);
      })).build());
    }
    return Fixtures.cluster(hosts).machineNetworks(List.of("10.0.0.0/16")).build();
  }

  /** Microseconds per call over {@code n} calls. */
  private static double timed(int n, java.util.function.IntUnaryOperator call) {
    long start = System.nanoTime();
    int sink = 0;
    for (int i = 0; i < n; i++) {
      sink += call.applyAsInt(i);
    }
    long took = System.nanoTime() - start;
    if (sink == Integer.MIN_VALUE) {
      System.out.println(sink);
    }
    return took / 1000.0 / n;
  }
}
