package dev.rendezvous.app;

import dev.rendezvous.observability.grafana.GrafanaProvisioning;
import java.net.URI;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * {@code ./rendezvous observability}'s flags, read against the program's configuration (data dir, API port, TLS,
 * database): what {@link GrafanaProvisioning} then makes.
 */
final class ObservabilitySetup {
  private ObservabilitySetup() {}

  /** Parses this command's own flags; the rest (data dir, database URL) are returned in {@code rest}. */
  static GrafanaProvisioning.Options options(List<String> args, AppConfig config, List<String> rest, String databaseUrl) {
    Path out = config.dataDir().resolve("observability");
    String prometheus = "http://127.0.0.1:9090";
    List<String> targets = new ArrayList<>();
    String role = "rdv_grafana";
    String password = null;
    String dbHost = null;
    String interval = "15s";
    for (String a : args) {
      String v = a.contains("=") ? a.substring(a.indexOf('=') + 1) : "";
      if (a.startsWith("--out=")) {
        out = Path.of(v);
      } else if (a.startsWith("--prometheus-url=")) {
        prometheus = v;
      } else if (a.startsWith("--scrape-target=")) {
        targets.add(v);
      } else if (a.startsWith("--scrape-interval=")) {
        interval = v;
      } else if (a.startsWith("--grafana-db-role=")) {
        role = v;
      } else if (a.startsWith("--grafana-db-password=")) {
        password = v;
      } else if (a.startsWith("--grafana-db-host=")) {
        dbHost = v;
      } else {
        rest.add(a);
      }
    }
    if (!interval.matches("[1-9][0-9]*(ms|s|m)")) {
      throw new IllegalArgumentException("--scrape-interval must be a Prometheus duration such as 15s, got '" + interval + "'");
    }
    if (!role.matches("[a-z_][a-z0-9_]{0,62}")) {
      throw new IllegalArgumentException("--grafana-db-role must be a plain lower-case SQL name, got '" + role + "'");
    }
    if (password != null && !password.matches("[A-Za-z0-9_.~-]{12,128}")) {
      throw new IllegalArgumentException("--grafana-db-password must be 12-128 of A-Z a-z 0-9 _ . ~ -");
    }
    if (password == null) {
      byte[] b = new byte[18];
      new SecureRandom().nextBytes(b);
      password = HexFormat.of().formatHex(b);
    }
    if (targets.isEmpty()) {
      targets.add("127.0.0.1:" + config.apiPort());
    }
    URI db = URI.create(databaseUrl.replaceFirst("^postgres(ql)?://", "http://"));
    if (dbHost == null) {
      dbHost = db.getHost() + ":" + (db.getPort() < 0 ? 5432 : db.getPort());
    }
    String dbName = db.getPath() == null || db.getPath().length() <= 1 ? "postgres" : db.getPath().substring(1);
    // instances serving TLS are scraped over https, trusting their CA (the one --tls=auto made, or --tls-ca)
    Path scrapeCa = !config.tls().enabled() ? null : config.tls().mode() == dev.rendezvous.tls.TlsConfig.Mode.AUTO
        ? config.tls().dir().resolve("ca.pem") : config.tls().caFile();
    return new GrafanaProvisioning.Options(out.toAbsolutePath().normalize(), prometheus, List.copyOf(targets), interval, role, password,
        dbHost, dbName, config.tls().enabled(), scrapeCa == null ? null : scrapeCa.toAbsolutePath());
  }
}
