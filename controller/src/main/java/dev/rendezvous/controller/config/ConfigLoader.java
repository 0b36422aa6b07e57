package dev.rendezvous.controller.config;

import dev.rendezvous.controller.service.RetryPolicy;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * Reads {@link ControllerConfig} from upstream's environment variables, overridden by flags {@code --name=value}
 * (also {@code --name value}; a boolean flag alone means true). Every missing or malformed setting fails with a
 * {@link ConfigException} naming it.
 *
 * <table>
 *   <caption>settings</caption>
 *   <tr><th>flag</th><th>environment</th><th>default</th></tr>
 *   <tr><td>--cluster-id</td><td>CLUSTER_ID</td><td>required (UUID)</td></tr>
 *   <tr><td>--inventory-url</td><td>INVENTORY_URL</td><td>required (http/https URL)</td></tr>
 *   <tr><td>--openshift-version</td><td>OPENSHIFT_VERSION</td><td>"" (upstream requires it; only a 4.8 quirk uses it)</td></tr>
 *   <tr><td>--skip-cert-verification</td><td>SKIP_CERT_VERIFICATION</td><td>false</td></tr>
 *   <tr><td>--ca-cert-path</td><td>CA_CERT_PATH</td><td>none</td></tr>
 *   <tr><td>--namespace</td><td>NAMESPACE</td><td>assisted-installer</td></tr>
 *   <tr><td>--control-plane-count</td><td>CONTROL_PLANE_COUNT</td><td>3</td></tr>
 *   <tr><td>--check-cluster-version</td><td>CHECK_CLUSTER_VERSION</td><td>false</td></tr>
 *   <tr><td>--must-gather-image</td><td>MUST_GATHER_IMAGE</td><td>""</td></tr>
 *   <tr><td>--notify-num-reboots</td><td>NOTIFY_NUM_REBOOTS</td><td>false</td></tr>
 *   <tr><td>--dry-run</td><td>DRY_ENABLE</td><td>false</td></tr>
 *   <tr><td>--dry-run-time-scale</td><td>DRY_TIME_SCALE</td><td>0.01</td></tr>
 *   <tr><td>--dry-run-min-interval-seconds</td><td>DRY_MIN_INTERVAL_SECONDS</td><td>1</td></tr>
 *   <tr><td>--token-file</td><td>–</td><td>/etc/assisted-installer-controller/token, else PULL_SECRET_TOKEN</td></tr>
 *   <tr><td>--kubeconfig</td><td>–</td><td>bootstrap kubeconfig if present, else in-cluster / KUBECONFIG</td></tr>
 *   <tr><td>--check-interval-seconds etc.</td><td>–</td><td>upstream's timings, see {@link Timings}</td></tr>
 * </table>
 */
public final class ConfigLoader {

  public static final String DEFAULT_TOKEN_FILE = "/etc/assisted-installer-controller/token";
  public static final double DEFAULT_DRY_RUN_TIME_SCALE = 0.01;

  /** Flag → environment variable (null: flag only). */
  private static final Map<String, String> FLAGS = new LinkedHashMap<>();
  private static final Set<String> BOOLEANS = Set.of(
      "skip-cert-verification", "check-cluster-version", "notify-num-reboots", "dry-run");

  static {
    FLAGS.put("cluster-id", "CLUSTER_ID");
    FLAGS.put("inventory-url", "INVENTORY_URL");
    FLAGS.put("openshift-version", "OPENSHIFT_VERSION");
    FLAGS.put("skip-cert-verification", "SKIP_CERT_VERIFICATION");
    FLAGS.put("ca-cert-path", "CA_CERT_PATH");
    FLAGS.put("namespace", "NAMESPACE");
    FLAGS.put("control-plane-count", "CONTROL_PLANE_COUNT");
    FLAGS.put("check-cluster-version", "CHECK_CLUSTER_VERSION");
    FLAGS.put("must-gather-image", "MUST_GATHER_IMAGE");
    FLAGS.put("notify-num-reboots", "NOTIFY_NUM_REBOOTS");
    FLAGS.put("dry-run", "DRY_ENABLE");
    FLAGS.put("dry-run-time-scale", "DRY_TIME_SCALE");
    FLAGS.put("dry-run-min-interval-seconds", "DRY_MIN_INTERVAL_SECONDS");
    FLAGS.put("handover-hosts", "RDV_HANDOVER_HOSTS");
    FLAGS.put("token-file", null);
    FLAGS.put("kubeconfig", null);
    FLAGS.put("check-interval-seconds", null);
    FLAGS.put("operator-poll-seconds", null);
    FLAGS.put("operators-timeout-seconds", null);
    FLAGS.put("wait-timeout-seconds", null);
    FLAGS.put("router-ca-interval-seconds", null);
    FLAGS.put("fetch-retry-interval-seconds", null);
    FLAGS.put("logs-upload-period-seconds", null);
    FLAGS.put("summary-logs-period-seconds", null);
    FLAGS.put("installation-poll-seconds", null);
    FLAGS.put("ready-poll-seconds", null);
    FLAGS.put("reaction-delay-seconds", null);
    FLAGS.put("request-timeout-seconds", null);
    FLAGS.put("retry-base-delay-ms", null);
    FLAGS.put("retry-max-delay-ms", null);
    FLAGS.put("max-retries", null);
    FLAGS.put("min-retries", null);
    FLAGS.put("log-tail-kib", null);
  }

  private final Map<String, String> env;
  private final Map<String, String> flags;

  private ConfigLoader(Map<String, String> env, Map<String, String> flags) {
    this.env = env;
    this.flags = flags;
  }

  public static ControllerConfig load(Map<String, String> env, String[] args) {
    return new ConfigLoader(env == null ? Map.of() : env, parseFlags(args == null ? new String[0] : args)).build();
  }

  /** The flag names this loader knows (for --help). */
  public static Set<String> flagNames() {
    return FLAGS.keySet();
  }

  static Map<String, String> parseFlags(String[] args) {
    Map<String, String> out = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (!a.startsWith("-") || a.equals("-") || a.equals("--")) {
        throw new ConfigException(a, "unexpected argument (flags are --name=value)");
      }
      String body = a.startsWith("--") ? a.substring(2) : a.substring(1);
      String name;
      String value;
      int eq = body.indexOf('=');
      if (eq >= 0) {
        name = body.substring(0, eq);
        value = body.substring(eq + 1);
      } else {
        name = body;
        if (BOOLEANS.contains(name)) {
          value = "true";
        } else if (i + 1 < args.length && !args[i + 1].startsWith("--")) {
          value = args[++i];
        } else {
          throw new ConfigException("--" + name, "needs a value (--" + name + "=...)");
        }
      }
      if (!FLAGS.containsKey(name)) {
        throw new ConfigException("--" + name, "unknown flag; known: --" + String.join(", --", FLAGS.keySet()));
      }
      out.put(name, value);
    }
    return out;
  }

  private ControllerConfig build() {
    String clusterId = required("cluster-id");
    try {
      UUID.fromString(clusterId);
    } catch (IllegalArgumentException e) {
      throw error("cluster-id", "not a UUID: '" + clusterId + "'");
    }
    URI url = url("inventory-url", required("inventory-url"));
    boolean dryRun = bool("dry-run", false);
    double scale = decimal("dry-run-time-scale", DEFAULT_DRY_RUN_TIME_SCALE);
    if (!(scale > 0) || scale > 1000) {
      throw error("dry-run-time-scale", "must be a number above 0 (1.0 = realistic durations), got " + scale);
    }
    Duration floor = seconds("dry-run-min-interval-seconds", Duration.ofSeconds(1), true);
    int controlPlane = integer("control-plane-count", 3);
    if (controlPlane < 1 || controlPlane > 5) {
      throw error("control-plane-count", "must be between 1 and 5, got " + controlPlane);
    }
    Optional<Path> ca = optional("ca-cert-path").map(Path::of);
    if (ca.isPresent() && !Files.isReadable(ca.get())) {
      throw error("ca-cert-path", "cannot read " + ca.get());
    }
    Optional<Path> kubeconfig = optional("kubeconfig").map(Path::of);
    if (kubeconfig.isPresent() && !Files.isReadable(kubeconfig.get())) {
      throw error("kubeconfig", "cannot read " + kubeconfig.get());
    }
    String namespace = value("namespace").filter(s -> !s.isBlank()).orElse("assisted-installer");
    if (!namespace.matches("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")) {
      throw error("namespace", "not a valid namespace name: '" + namespace + "'");
    }

    Timings base = Timings.upstream();
    if (dryRun) {
      base = base.scaledForDryRun(scale, floor);
    }
    Timings timings = new Timings(
        seconds("check-interval-seconds", base.checkInterval(), false),
        seconds("operator-poll-seconds", base.operatorPoll(), false),
        seconds("operators-timeout-seconds", base.operatorsTimeout(), false),
        seconds("wait-timeout-seconds", base.waitTimeout(), false),
        seconds("router-ca-interval-seconds", base.routerCaInterval(), false),
        seconds("fetch-retry-interval-seconds", base.fetchRetryInterval(), false),
        seconds("logs-upload-period-seconds", base.logsUploadPeriod(), false),
        seconds("summary-logs-period-seconds", base.summaryLogsPeriod(), false),
        seconds("installation-poll-seconds", base.installationPoll(), false),
        seconds("ready-poll-seconds", base.readyPoll(), false),
        seconds("reaction-delay-seconds", base.reactionDelay(), true),
        seconds("request-timeout-seconds", base.requestTimeout(), false));

    RetryPolicy defaults = RetryPolicy.controllerDefault();
    if (dryRun) {
      defaults = new RetryPolicy(Timings.scale(defaults.baseDelay(), scale), Timings.scale(defaults.maxDelay(), scale),
          defaults.maxRetries(), defaults.minRetries());
    }
    RetryPolicy retry = new RetryPolicy(
        millis("retry-base-delay-ms", defaults.baseDelay()),
        millis("retry-max-delay-ms", defaults.maxDelay()),
        integer("max-retries", defaults.maxRetries()),
        integer("min-retries", defaults.minRetries()));

    int tailKib = integer("log-tail-kib", dryRun ? 64 : 2048);
    if (tailKib < 1) {
      throw error("log-tail-kib", "must be at least 1");
    }

    return new ControllerConfig(
        clusterId,
        url,
        value("openshift-version").orElse(""),
        bool("skip-cert-verification", false),
        ca,
        namespace,
        controlPlane,
        bool("check-cluster-version", false),
        value("must-gather-image").orElse(""),
        bool("notify-num-reboots", false),
        token(),
        kubeconfig,
        dryRun,
        scale,
        timings,
        retry,
        tailKib * 1024,
        handoverHosts());
  }

  /** The cluster's hosts as the Job carries them (base64 of the service's host list JSON), for when it is gone. */
  private String handoverHosts() {
    Optional<String> v = optional("handover-hosts");
    if (v.isEmpty()) {
      return null;
    }
    try {
      return new String(java.util.Base64.getDecoder().decode(v.get()), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw error("handover-hosts", "is not base64");
    }
  }

  /** Upstream: the Secret mounted as a file wins, else PULL_SECRET_TOKEN. */
  private String token() {
    Path file = Path.of(value("token-file").orElse(DEFAULT_TOKEN_FILE));
    if (Files.isRegularFile(file)) {
      try {
        String t = Files.readString(file, StandardCharsets.UTF_8).trim();
        if (!t.isEmpty()) {
          return t;
        }
      } catch (IOException e) {
        throw error("token-file", "cannot read " + file + ": " + e.getMessage());
      }
    } else if (flags.containsKey("token-file")) {
      throw error("token-file", "no such file: " + file);
    }
    String t = env.get("PULL_SECRET_TOKEN");
    if (t == null || t.isBlank()) {
      throw new ConfigException("PULL_SECRET_TOKEN",
          "required: the agent token, in " + DEFAULT_TOKEN_FILE + " (or --token-file) or PULL_SECRET_TOKEN");
    }
    return t.trim();
  }

  // ---- typed lookups ------------------------------------------------------------------------------------

  private Optional<String> value(String flag) {
    String v = flags.get(flag);
    if (v == null) {
      String envName = FLAGS.get(flag);
      v = envName == null ? null : env.get(envName);
    }
    return Optional.ofNullable(v).map(String::trim);
  }

  private Optional<String> optional(String flag) {
    return value(flag).filter(s -> !s.isEmpty());
  }

  private String required(String flag) {
    return optional(flag).orElseThrow(() -> error(flag, "required"));
  }

  private boolean bool(String flag, boolean dflt) {
    Optional<String> v = optional(flag);
    if (v.isEmpty()) {
      return dflt;
    }
    // Go's strconv.ParseBool, which envconfig uses
    switch (v.get()) {
      case "1", "t", "T", "TRUE", "true", "True":
        return true;
      case "0", "f", "F", "FALSE", "false", "False":
        return false;
      default:
        throw error(flag, "not a boolean: '" + v.get() + "'");
    }
  }

  private int integer(String flag, int dflt) {
    Optional<String> v = optional(flag);
    if (v.isEmpty()) {
      return dflt;
    }
    try {
      return Integer.parseInt(v.get());
    } catch (NumberFormatException e) {
      throw error(flag, "not an integer: '" + v.get() + "'");
    }
  }

  private double decimal(String flag, double dflt) {
    Optional<String> v = optional(flag);
    if (v.isEmpty()) {
      return dflt;
    }
    try {
      return Double.parseDouble(v.get());
    } catch (NumberFormatException e) {
      throw error(flag, "not a number: '" + v.get() + "'");
    }
  }

  private Duration seconds(String flag, Duration dflt, boolean zeroAllowed) {
    Optional<String> v = optional(flag);
    if (v.isEmpty()) {
      return dflt;
    }
    double s;
    try {
      s = Double.parseDouble(v.get());
    } catch (NumberFormatException e) {
      throw error(flag, "not a number of seconds: '" + v.get() + "'");
    }
    if (Double.isNaN(s) || s < 0 || (s == 0 && !zeroAllowed) || s > 1e7) {
      throw error(flag, "must be a positive number of seconds, got " + v.get());
    }
    return Duration.ofNanos((long) (s * 1e9));
  }

  private Duration millis(String flag, Duration dflt) {
    Optional<String> v = optional(flag);
    if (v.isEmpty()) {
      return dflt;
    }
    try {
      long ms = Long.parseLong(v.get());
      if (ms < 0) {
        throw error(flag, "must not be negative");
      }
      return Duration.ofMillis(ms);
    } catch (NumberFormatException e) {
      throw error(flag, "not a number of milliseconds: '" + v.get() + "'");
    }
  }

  private static URI url(String flag, String v) {
    try {
      URI u = new URI(v);
      String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
      if (!(scheme.equals("http") || scheme.equals("https")) || u.getHost() == null) {
        throw error(flag, "not an http(s) URL: '" + v + "'");
      }
      return u;
    } catch (URISyntaxException e) {
      throw error(flag, "not a URL: '" + v + "'");
    }
  }

  private static ConfigException error(String flag, String reason) {
    String envName = FLAGS.get(flag);
    return new ConfigException(envName == null ? "--" + flag : envName + " (--" + flag + ")", reason);
  }
}
