package dev.rendezvous.app;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The launcher's settings, from flags ({@code --api-port=8090}) over environment ({@code RDV_API_PORT})
 * over defaults that run locally. External servers are used when their addresses are given.
 */
public record AppConfig(
    int apiPort,
    int imagePort,
    Path dataDir,
    String databaseUrl,
    String kafkaBootstrap,
    boolean authDisabled,
    int topicPartitions,
    short topicReplication,
    long bodyLimitBytes,
    String publicUrl,
    String imagePublicUrl,
    Path releaseCatalog) {

  public boolean embeddedDatabase() {
    return databaseUrl == null;
  }

  public boolean embeddedKafka() {
    return kafkaBootstrap == null;
  }

  public static AppConfig from(List<String> args, Map<String, String> env) {
    Map<String, String> flags = new HashMap<>();
    for (String a : args) {
      if (!a.startsWith("--")) {
        throw new IllegalArgumentException("unexpected argument '" + a + "' (flags look like --api-port=8090)");
      }
      int eq = a.indexOf('=');
      if (eq < 0) {
        flags.put(a.substring(2), "true");
      } else {
        flags.put(a.substring(2, eq), a.substring(eq + 1));
      }
    }
    Settings s = new Settings(flags, env);
    int apiPort = s.integer("api-port", 8090);
    int imagePort = s.integer("image-port", 8080);
    String publicUrl = s.string("public-url", "http://127.0.0.1:" + apiPort);
    String catalog = s.string("release-catalog", null);
    AppConfig c = new AppConfig(
        apiPort,
        imagePort,
        Path.of(s.string("data-dir", "./data")).toAbsolutePath().normalize(),
        s.string("database-url", null),
        s.string("kafka-bootstrap", null),
        "none".equals(s.string("auth", "token")),
        s.integer("topic-partitions", 12),
        (short) s.integer("topic-replication", 1),
        s.integer("body-limit-bytes", 4 * 1024 * 1024),
        publicUrl,
        s.string("image-public-url", "http://127.0.0.1:" + imagePort),
        catalog == null ? null : Path.of(catalog));
    s.rejectUnknown();
    return c;
  }

  /** Flag or RDV_ environment variable, remembering which flags were read so typos are refused. */
  private static final class Settings {
    private final Map<String, String> flags;
    private final Map<String, String> env;
    private final java.util.Set<String> known = new java.util.HashSet<>();

    Settings(Map<String, String> flags, Map<String, String> env) {
      this.flags = flags;
      this.env = env;
    }

    String string(String name, String dflt) {
      known.add(name);
      String v = flags.get(name);
      if (v == null) {
        v = env.get("RDV_" + name.toUpperCase().replace('-', '_'));
      }
      return v == null || v.isEmpty() ? dflt : v;
    }

    int integer(String name, int dflt) {
      String v = string(name, null);
      if (v == null) {
        return dflt;
      }
      try {
        return Integer.parseInt(v);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(name + " must be an integer, got '" + v + "'");
      }
    }

    void rejectUnknown() {
      for (String f : flags.keySet()) {
        if (!known.contains(f)) {
          throw new IllegalArgumentException("unknown flag --" + f);
        }
      }
    }
  }
}
