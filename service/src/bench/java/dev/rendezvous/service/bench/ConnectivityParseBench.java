package dev.rendezvous.service.bench;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.rendezvous.service.domain.host.ConnectivityReport;
import dev.rendezvous.service.domain.planning.StepOutputs;
import java.util.List;
import java.util.Random;
import java.util.UUID;

/**
 * What turning one connectivity report into the brain's columns costs (`StepOutputs.connectivity`), against two
 * baselines in the same run: Jackson reading every token of the same text (the floor of any parse) and Jackson binding
 * it to records (no columns, no shared texts). A 1,000-host cluster's report (999 peers, ~380 KB, new RTTs each) is
 * what an idle cluster of that size parses a thousand times a minute.
 *
 * <pre>mvn -q -B -pl service -am install -DskipTests
 * mvn -q -B -pl service -Pbench test-compile exec:java -Dbench.main=dev.rendezvous.service.bench.ConnectivityParseBench -Dexec.args="999 200"</pre>
 */
public final class ConnectivityParseBench {
  private static final ObjectMapper PLAIN =
      JsonMapper.builder().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).build();

  private ConnectivityParseBench() {}

  public static void main(String[] args) throws Exception {
    int peers = args.length > 0 ? Integer.parseInt(args[0]) : 999;
    int reports = args.length > 1 ? Integer.parseInt(args[1]) : 200;
    String report = report(peers, new Random(7));
    System.out.printf("one report: %d peers, %,d bytes; %d parses per phase, 3 warm-up rounds then 5 measured%n",
        peers, report.length(), reports);
    double[] best = {Double.MAX_VALUE, Double.MAX_VALUE, Double.MAX_VALUE};
    for (int round = 0; round < 8; round++) {
      double tokens = timed(reports, () -> tokens(report));
      double records = timed(reports, () -> PLAIN.readValue(report, Records.class));
      double columns = timed(reports, () -> StepOutputs.connectivity(report));
      if (round >= 3) {
        best[0] = Math.min(best[0], tokens);
        best[1] = Math.min(best[1], records);
        best[2] = Math.min(best[2], columns);
        System.out.printf("round %d: tokens only %.2f ms, records %.2f ms, the brain's columns %.2f ms per report%n",
            round - 2, tokens, records, columns);
      }
    }
    System.out.printf("best: tokens only %.2f ms, records %.2f ms, columns %.2f ms per report; columns / tokens %.2f,"
        + " columns / records %.2f%n", best[0], best[1], best[2], best[2] / best[0], best[2] / best[1]);
  }

  /** The report bound to records only: what Jackson alone makes of it. */
  record Records(@JsonProperty("remote_hosts") List<ConnectivityReport.RemoteHost> remoteHosts) {}

  interface Work {
    Object run() throws Exception;
  }

  /** Milliseconds per run of {@code w}, over {@code n} runs (also InventoryParseBench's). */
  static double timed(int n, Work w) throws Exception {
    long sink = 0;
    long t0 = System.nanoTime();
    for (int i = 0; i < n; i++) {
      sink += w.run().hashCode() & 1;
    }
    double ms = (System.nanoTime() - t0) / 1e6 / n;
    if (sink < 0) {
      System.out.println(sink);
    }
    return ms;
  }

  /** Every token of a text read, no value bound: the floor of any parse (also InventoryParseBench's). */
  static Integer tokens(String text) throws Exception {
    int n = 0;
    try (JsonParser p = PLAIN.getFactory().createParser(text)) {
      JsonToken t;
      while ((t = p.nextToken()) != null) {
        n += t == JsonToken.VALUE_STRING ? p.getTextLength() : 1;
      }
    }
    return n;
  }

  /** A report as a dry-run agent of a 1,000-host cluster sends it: one L2 and one L3 entry per peer, new RTTs. */
  static String report(int peers, Random random) {
    StringBuilder b = new StringBuilder("{\"remote_hosts\":[");
    for (int i = 0; i < peers; i++) {
      String ip = "10.200." + (i / 250) + "." + (i % 250 + 1);
      b.append(i == 0 ? "" : ",").append("{\"host_id\":\"").append(new UUID(0x5eedL, i))
          .append("\",\"l2_connectivity\":[{\"outgoing_nic\":\"ens3\",\"outgoing_ip_address\":\"10.200.9.9\",")
          .append("\"remote_ip_address\":\"").append(ip).append("\",\"remote_mac\":\"02:d7:00:00:")
          .append(String.format("%02x:%02x", i / 256, i % 256)).append("\",\"successful\":true}],")
          .append("\"l3_connectivity\":[{\"outgoing_nic\":\"ens3\",\"remote_ip_address\":\"").append(ip)
          .append("\",\"successful\":true,\"average_rtt_ms\":").append((200 + random.nextInt(400)) / 1000.0)
          .append(",\"packet_loss_percentage\":0}],\"mtu_report\":[]}");
    }
    return b.append("]}").toString();
  }
}
