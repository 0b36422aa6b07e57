package dev.rendezvous.app;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The whole program, on the embedded real PostgreSQL and Kafka, started once per test JVM (the
 * servers dominate start-up time) and stopped when the JVM exits.
 */
final class TestSystem {
  private static Rendezvous shared;
  private static Api admin;

  private TestSystem() {}

  static synchronized Rendezvous shared() {
    if (shared == null) {
      try {
        shared = start(Files.createTempDirectory("rdv-test-"), Map.of());
      } catch (Exception e) {
        throw new IllegalStateException("test system failed to start", e);
      }
      Runtime.getRuntime().addShutdownHook(new Thread(shared::close));
    }
    return shared;
  }

  static synchronized Api admin() {
    if (admin == null) {
      Rendezvous r = shared();
      try {
        admin = new Api(r.config().apiPort(), Files.readString(r.adminTokenFile()).strip());
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }
    return admin;
  }

  /** A system on its own data directory and free ports; extra flags override the defaults. */
  static Rendezvous start(Path dataDir, Map<String, String> extraFlags) throws Exception {
    List<String> flags = new ArrayList<>();
    flags.add("--data-dir=" + dataDir);
    flags.add("--api-port=" + freePort());
    flags.add("--image-port=" + freePort());
    flags.add("--kafka-partitions=4");
    java.util.Map<String, String> brain = new java.util.LinkedHashMap<>();
    brain.put("brain-monitor-interval-ms", "200"); // timeouts and due step pushes seen within a test's patience
    brain.put("hw-min-cpu-cores", "4"); // every role needs 4 cores: a 2-core host is insufficient
    brain.putAll(extraFlags);
    brain.forEach((k, v) -> flags.add("--" + k + "=" + v));
    return Rendezvous.start(AppConfig.from(flags, Map.of()));
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
