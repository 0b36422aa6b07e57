package dev.rendezvous.app;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The whole program, on the embedded real PostgreSQL and Kafka, started once per test JVM (the
 * servers dominate start-up time) and stopped when the JVM exits.
 */
public final class TestSystem {
  private static Rendezvous shared;
  private static Api admin;

  private TestSystem() {}

  /** The CoreOS live-ISO fixture (../shared/fixtures), decompressed once: the base image of the test catalog. */
  static final Path FIXTURES = Path.of("..", "..", "shared", "fixtures", "coreos-iso").toAbsolutePath().normalize();
  private static Path baseIso;

  static synchronized Path baseIso() throws IOException {
    if (baseIso == null) {
      Path xz = FIXTURES.resolve("embed-areas-2023-07.x86_64.iso.xz");
      if (!Files.exists(xz)) {
        throw new IllegalStateException("fixture " + xz + " is missing: the tests expect ../shared beside the checkout");
      }
      Path iso = Files.createTempDirectory("rdv-iso-").resolve("base.iso");
      try (var in = new org.tukaani.xz.XZInputStream(Files.newInputStream(xz))) {
        Files.copy(in, iso);
      }
      baseIso = iso;
    }
    return baseIso;
  }

  public static synchronized Rendezvous shared() {
    if (shared == null) {
      try {
        shared = start(Files.createTempDirectory("rdv-test-"), Map.of("os-images", osImages()));
      } catch (Exception e) {
        throw new IllegalStateException("test system failed to start", e);
      }
      Runtime.getRuntime().addShutdownHook(new Thread(shared::close));
    }
    return shared;
  }

  /**
   * The --os-images value of the shared system: a small base ISO made for the tests, for 4.18 (what Api.cluster asks
   * for) and for the catalog's default release (what an unbound infra-env gets), both x86_64.
   */
  static String osImages() throws Exception {
    String iso = baseIso().toString();
    return "[{\"openshift_version\":\"4.18\",\"cpu_architecture\":\"x86_64\",\"url\":\"" + iso
        + "\",\"version\":\"418.94.202507-0\"},{\"openshift_version\":\""
        + dev.rendezvous.service.catalog.ReleaseCatalog.builtIn().defaultRelease().openshiftVersion()
        + "\",\"cpu_architecture\":\"x86_64\",\"url\":\"" + iso + "\",\"version\":\"test-default\"}]";
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
    // A free port can be taken by another process between probing and binding: try again with new ones.
    for (int attempt = 1; ; attempt++) {
      try {
        return startOnce(dataDir, extraFlags);
      } catch (Exception e) {
        if (attempt == 3 || !portTaken(e)) {
          throw e;
        }
      }
    }
  }

  private static Rendezvous startOnce(Path dataDir, Map<String, String> extraFlags) throws Exception {
    int[] ports = dev.rendezvous.bus.LocalPorts.free(2);
    return startOn(dataDir, ports[0], ports[1], extraFlags);
  }

  /** A system on given ports: a restart on the same data directory, where agents and clients keep their URLs. */
  static Rendezvous startOn(Path dataDir, int apiPort, int imagePort, Map<String, String> extraFlags) throws Exception {
    List<String> flags = new ArrayList<>();
    flags.add("--data-dir=" + dataDir);
    flags.add("--api-port=" + apiPort);
    flags.add("--image-port=" + imagePort);
    flags.add("--kafka-partitions=4");
    flags.add("--agent-jar=" + Path.of("..", "agent", "target", "rendezvous-agent.jar").toAbsolutePath().normalize());
    java.util.Map<String, String> brain = new java.util.LinkedHashMap<>();
    brain.put("brain-monitor-interval-ms", "200"); // timeouts and due step pushes seen within a test's patience
    brain.put("hw-min-cpu-cores", "4"); // every role needs 4 cores: a 2-core host is insufficient
    brain.putAll(extraFlags);
    brain.forEach((k, v) -> flags.add("--" + k + "=" + v));
    return Rendezvous.start(AppConfig.from(flags, Map.of()));
  }

  private static boolean portTaken(Throwable t) {
    for (; t != null; t = t.getCause()) {
      if (t instanceof java.net.BindException) {
        return true;
      }
    }
    return false;
  }

  /**
   * A free port never handed out before in this JVM: two probes in a row once gave one system's API and image service
   * the same port, which one Vert.x then shared between them (every other request answered by the image service).
   */
  static int freePort() throws IOException {
    return dev.rendezvous.bus.LocalPorts.free(1)[0];
  }
}
