package dev.rendezvous.service.bench;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.rendezvous.service.domain.host.Inventory;
import dev.rendezvous.service.domain.planning.StepOutputs;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * What the brain's parse of one inventory reply costs ({@code StepOutputs.inventory}: every short text shared with
 * the other hosts'), against two baselines in the same run: Jackson reading every token of the same text (the floor
 * of any parse) and Jackson binding it with no text shared. The inventory is the 4.4 KB one
 * {@code scripts/bench-one-cluster} posts, a new hostname in each (as there: every reply differs).
 *
 * <pre>mvn -q -B -pl service -am install -DskipTests
 * mvn -q -B -pl service -Pbench test-compile exec:java -Dbench.main=dev.rendezvous.service.bench.InventoryParseBench -Dexec.args="20000"</pre>
 */
public final class InventoryParseBench {
  private static final ObjectMapper UNSHARED =
      JsonMapper.builder().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();

  private InventoryParseBench() {}

  public static void main(String[] args) throws Exception {
    int parses = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
    String template;
    try (InputStream in = InventoryParseBench.class.getResourceAsStream("/domain/inventory-master-0.json")) {
      template = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    String hostname = (String) UNSHARED.readValue(template, java.util.Map.class).get("hostname");
    String[] replies = new String[parses];
    for (int i = 0; i < parses; i++) {
      replies[i] = template.replace("\"" + hostname + "\"", "\"bench-host-" + i + "\"");
    }
    System.out.printf("one inventory: %,d bytes; %,d parses per phase, 3 warm-up rounds then 5 measured%n",
        template.length(), parses);
    double[] best = {Double.MAX_VALUE, Double.MAX_VALUE, Double.MAX_VALUE};
    for (int round = 0; round < 8; round++) {
      double tokens = timed(replies, ConnectivityParseBench::tokens);
      double unshared = timed(replies, r -> UNSHARED.readValue(r, Inventory.class));
      double brain = timed(replies, StepOutputs::inventory);
      if (round >= 3) {
        best[0] = Math.min(best[0], tokens);
        best[1] = Math.min(best[1], unshared);
        best[2] = Math.min(best[2], brain);
        System.out.printf("round %d: tokens only %.1f µs, no text shared %.1f µs, the brain's parse %.1f µs%n",
            round - 2, tokens, unshared, brain);
      }
    }
    System.out.printf("best: tokens only %.1f µs, no text shared %.1f µs, the brain's parse %.1f µs per inventory;"
        + " brain / tokens %.2f, brain / no text shared %.2f%n", best[0], best[1], best[2], best[2] / best[0],
        best[2] / best[1]);
  }

  interface Parse {
    Object run(String reply) throws Exception;
  }

  /** Microseconds per parse, each reply parsed once in turn. */
  private static double timed(String[] replies, Parse parse) throws Exception {
    int[] next = {0};
    return 1000 * ConnectivityParseBench.timed(replies.length, () -> parse.run(replies[next[0]++]));
  }
}
