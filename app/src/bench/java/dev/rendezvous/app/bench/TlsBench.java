package dev.rendezvous.app.bench;

import dev.rendezvous.agent.fleet.FleetSwarm;
import dev.rendezvous.app.AppConfig;
import dev.rendezvous.app.Rendezvous;
import io.vertx.core.Vertx;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What TLS costs a fleet, end to end: the same dry-run fleet (clusters created through the API, agents registering,
 * validated, installed with their installers and controllers) against the whole system with plain HTTP and with
 * {@code --tls=auto}, alternately, each on a fresh data directory; the time to every host registered, every cluster
 * ready and every cluster installed, and the TLS/plain ratio of each (the baseline is the plain run of the same
 * round). Agents trust only the CA their Ignition carries.
 *
 * <p>{@code mvn -q -B -pl app -Pbench test-compile exec:java -Dbench.main=dev.rendezvous.app.bench.TlsBench
 * -Dexec.args="clusters=20 hosts=3 rounds=2"}
 */
public final class TlsBench {
  public static void main(String[] argv) throws Exception {
    Map<String, String> a = new HashMap<>(Map.of("clusters", "20", "hosts", "3", "rounds", "2"));
    for (String s : argv) {
      for (String kv : s.split("\\s+")) {
        if (kv.contains("=")) {
          a.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
        }
      }
    }
    int clusters = Integer.parseInt(a.get("clusters"));
    int hosts = Integer.parseInt(a.get("hosts"));
    int rounds = Integer.parseInt(a.get("rounds"));
    System.out.printf("TLS bench: %d clusters x %d hosts installed per run, %d rounds of plain then TLS%n", clusters, hosts,
        rounds);
    List<double[]> plain = new ArrayList<>();
    List<double[]> tls = new ArrayList<>();
    for (int r = 1; r <= rounds; r++) {
      for (boolean withTls : new boolean[] {false, true}) {
        double[] t = run(withTls, clusters, hosts, "r" + r);
        (withTls ? tls : plain).add(t);
        System.out.printf("round %d %-5s registered %6.1f s  ready %6.1f s  installed %6.1f s%n", r,
            withTls ? "tls" : "plain", t[0], t[1], t[2]);
      }
      double[] p = plain.get(plain.size() - 1);
      double[] s = tls.get(tls.size() - 1);
      System.out.printf("round %d ratio tls/plain: registered %.2f  ready %.2f  installed %.2f%n", r, s[0] / p[0],
          s[1] / p[1], s[2] / p[2]);
    }
    System.exit(0);
  }

  private static double[] run(boolean withTls, int clusters, int hosts, String prefix) throws Exception {
    Path dir = Files.createTempDirectory("rdv-tls-bench-");
    int[] ports = dev.rendezvous.bus.LocalPorts.free(2); // API and images: two ports, never handed out twice here
    List<String> flags = new ArrayList<>(List.of("--data-dir=" + dir, "--api-port=" + ports[0],
        "--image-port=" + ports[1], "--tls=" + (withTls ? "auto" : "off"),
        "--agent-jar=" + Path.of("agent/target/rendezvous-agent.jar").toAbsolutePath()));
    try (Rendezvous system = Rendezvous.start(AppConfig.from(flags, Map.of()))) {
      String token = Files.readString(system.adminTokenFile()).strip();
      FleetSwarm.Config config = new FleetSwarm.Config(system.config().service().publicUrl().replace("127.0.0.1",
          withTls ? "localhost" : "127.0.0.1"), token, clusters, hosts, true, prefix, null, Duration.ofSeconds(600),
          Duration.ofSeconds(30));
      Vertx vertx = Vertx.vertx();
      try {
        FleetSwarm swarm = new FleetSwarm(config, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        if (withTls) {
          swarm.trusting(dir.resolve("tls/ca.pem"));
        }
        FleetSwarm.Report r = swarm.run(vertx);
        if (!r.allInstalled()) {
          throw new IllegalStateException((withTls ? "tls" : "plain") + " run: " + r.clustersByStatus());
        }
        return new double[] {r.allRegisteredSeconds(), r.allReadySeconds(), r.allDoneSeconds()};
      } finally {
        vertx.close().await(30, TimeUnit.SECONDS);
      }
    }
  }
}
