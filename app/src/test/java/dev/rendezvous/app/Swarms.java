package dev.rendezvous.app;

import dev.rendezvous.agent.fleet.FleetSwarm;
import io.vertx.core.Vertx;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** Runs {@code ./rendezvous swarm}'s dry-run fleet from a test against a running system's API. */
final class Swarms {
  private Swarms() {}

  static FleetSwarm.Report run(int apiPort, String token, String prefix, int clusters, int hosts, boolean install)
      throws Exception {
    FleetSwarm.Config config = new FleetSwarm.Config("http://127.0.0.1:" + apiPort, token, clusters, hosts, install,
        prefix, null, Duration.ofSeconds(install ? 240 : 120), Duration.ofSeconds(5));
    Vertx vertx = Vertx.vertx();
    try {
      return new FleetSwarm(config, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8))
          .run(vertx);
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }
}
