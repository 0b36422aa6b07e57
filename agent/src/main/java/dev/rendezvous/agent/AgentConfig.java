package dev.rendezvous.agent;

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
import java.util.UUID;

/**
 * The agent's settings, from flags ({@code --name value} or {@code --name=value}) over {@code RDV_AGENT_*}
 * environment variables over defaults. The token comes from {@code --token-file}, {@code RDV_AGENT_TOKEN},
 * or upstream's {@code PULL_SECRET_TOKEN}, in that order.
 *
 * @param url gateway base URL (scheme, host, port, optional path prefix); API paths are appended
 * @param hostId override of the discovered host id (swarms, tests)
 * @param hostname override of the reported hostname (hosts in network namespaces share one UTS name)
 * @param hostRoot where /proc, /sys, /dev, /etc are read from ("/" normally; a copy of a host tree in tests)
 * @param stepTimeout default per-step time limit (disk speed and logs steps carry their own)
 * @param longPollWaitSeconds {@code wait_seconds} asked of the gateway on GET instructions
 * @param backoffBase first reconnect / retry delay (full jitter, doubled each failure)
 * @param backoffCap largest reconnect / retry delay
 * @param swarm number of dry-run agents to run in this process (0 = one real agent)
 * @param dryRunIndex index of this dry-run host (picks its canned address); derived from the host id if absent
 * @param dryRunCidr the network dry-run hosts pretend to live in
 * @param includeLoopDisks report loop devices as disks (upstream skips them): only for test rigs whose hosts'
 *     disks are file-backed loop devices ({@code --include-loop-disks})
 */
public record AgentConfig(
    URI url,
    String infraEnvId,
    String token,
    boolean insecure,
    Optional<Path> caCert,
    boolean dryRun,
    Optional<String> hostId,
    Optional<String> hostname,
    TransportMode transport,
    String agentVersion,
    Path hostRoot,
    Optional<Path> logFile,
    Duration stepTimeout,
    int stepThreads,
    int longPollWaitSeconds,
    Duration backoffBase,
    Duration backoffCap,
    int swarm,
    Optional<Integer> dryRunIndex,
    String dryRunCidr,
    boolean includeLoopDisks) {

  /** Flag name → environment variable. Flags without a value are booleans. */
  private static final Map<String, String> OPTIONS = new LinkedHashMap<>();

  static {
    for (String f :
        new String[] {
          "url", "infra-env-id", "token-file", "insecure", "cacert", "dry-run", "host-id", "hostname", "transport",
          "agent-version", "host-root", "log-file", "step-timeout-seconds", "step-threads", "long-poll-wait-seconds",
          "backoff-base-ms", "backoff-cap-ms", "swarm", "dry-run-index", "dry-run-cidr",
          "include-loop-disks"
        }) {
      OPTIONS.put(f, "RDV_AGENT_" + f.toUpperCase(Locale.ROOT).replace('-', '_'));
    }
  }

  private static final java.util.Set<String> BOOLEANS = java.util.Set.of("insecure", "dry-run", "include-loop-disks");

  public AgentConfig {
    if (url == null) {
      throw new ConfigException("url", "required (the gateway's base URL, e.g. https://gw.example:8443)");
    }
    if (infraEnvId == null || infraEnvId.isBlank()) {
      throw new ConfigException("infra-env-id", "required");
    }
    requireUuid("infra-env-id", infraEnvId);
    hostId.ifPresent(h -> requireUuid("host-id", h));
    if (token == null || token.isBlank()) {
      throw new ConfigException("token-file", "no token: give --token-file, RDV_AGENT_TOKEN or PULL_SECRET_TOKEN");
    }
    if (stepThreads < 1) {
      throw new ConfigException("step-threads", "must be at least 1");
    }
    if (longPollWaitSeconds < 0 || longPollWaitSeconds > 60) {
      throw new ConfigException("long-poll-wait-seconds", "must be within 0..60");
    }
    if (swarm < 0) {
      throw new ConfigException("swarm", "must not be negative");
    }
    if (swarm > 0 && !dryRun) {
      throw new ConfigException("swarm", "needs --dry-run (a swarm answers steps with canned data)");
    }
    if (backoffBase.isNegative() || backoffBase.isZero() || backoffCap.compareTo(backoffBase) < 0) {
      throw new ConfigException("backoff-base-ms", "needs 0 < base <= cap");
    }
  }

  /** Reads flags over environment; bad input is a {@link ConfigException} naming the flag. */
  public static AgentConfig parse(String[] args, Map<String, String> env) {
    Map<String, String> values = new HashMap<>();
    OPTIONS.forEach((flag, var) -> {
      String v = env.get(var);
      if (v != null && !v.isEmpty()) {
        values.put(flag, v);
      }
    });
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (!a.startsWith("--")) {
        throw new ConfigException(a, "unexpected argument (flags start with --)");
      }
      String name = a.substring(2);
      String value = null;
      int eq = name.indexOf('=');
      if (eq >= 0) {
        value = name.substring(eq + 1);
        name = name.substring(0, eq);
      }
      if (!OPTIONS.containsKey(name)) {
        throw new ConfigException(name, "unknown flag; known: " + String.join(", ", OPTIONS.keySet()));
      }
      if (value == null) {
        if (BOOLEANS.contains(name)) {
          value = "true";
        } else if (i + 1 < args.length) {
          value = args[++i];
        } else {
          throw new ConfigException(name, "needs a value");
        }
      }
      values.put(name, value);
    }

    String token = null;
    String tokenFile = values.get("token-file");
    if (tokenFile != null) {
      try {
        token = Files.readString(Path.of(tokenFile), StandardCharsets.UTF_8).trim();
      } catch (IOException e) {
        throw new ConfigException("token-file", "cannot read " + tokenFile + ": " + e.getMessage());
      }
    } else if (env.get("RDV_AGENT_TOKEN") != null && !env.get("RDV_AGENT_TOKEN").isBlank()) {
      token = env.get("RDV_AGENT_TOKEN").trim();
    } else if (env.get("PULL_SECRET_TOKEN") != null) {
      token = env.get("PULL_SECRET_TOKEN").trim();
    }

    return new AgentConfig(
        values.containsKey("url") ? parseUrl(values.get("url")) : null,
        values.get("infra-env-id"),
        token,
        bool(values, "insecure"),
        Optional.ofNullable(values.get("cacert")).map(p -> existingFile("cacert", p)),
        bool(values, "dry-run"),
        Optional.ofNullable(values.get("host-id")).map(s -> s.toLowerCase(Locale.ROOT)),
        Optional.ofNullable(values.get("hostname")),
        values.containsKey("transport") ? TransportMode.parse(values.get("transport")) : TransportMode.AUTO,
        values.getOrDefault("agent-version", AgentVersion.VERSION),
        Path.of(values.getOrDefault("host-root", "/")),
        Optional.ofNullable(values.get("log-file")).map(Path::of),
        Duration.ofSeconds(integer(values, "step-timeout-seconds", 600)),
        integer(values, "step-threads", 4),
        integer(values, "long-poll-wait-seconds", 30),
        Duration.ofMillis(integer(values, "backoff-base-ms", 1000)),
        Duration.ofMillis(integer(values, "backoff-cap-ms", 60_000)),
        integer(values, "swarm", 0),
        values.containsKey("dry-run-index") ? Optional.of(integer(values, "dry-run-index", 0)) : Optional.empty(),
        values.getOrDefault("dry-run-cidr", "10.200.0.0/16"),
        bool(values, "include-loop-disks"));
  }

  /** A copy for swarm member {@code index}: its own host id and dry-run address. */
  public AgentConfig forSwarmMember(int index, String memberHostId) {
    return new AgentConfig(url, infraEnvId, token, insecure, caCert, true, Optional.of(memberHostId), Optional.empty(),
        transport, agentVersion, hostRoot, logFile, stepTimeout, stepThreads, longPollWaitSeconds, backoffBase,
        backoffCap, 0, Optional.of(index), dryRunCidr, includeLoopDisks);
  }

  /** Same settings with another transport mode (tests, swarms). */
  public AgentConfig withTransport(TransportMode mode) {
    return new AgentConfig(url, infraEnvId, token, insecure, caCert, dryRun, hostId, hostname, mode, agentVersion,
        hostRoot, logFile, stepTimeout, stepThreads, longPollWaitSeconds, backoffBase, backoffCap, swarm, dryRunIndex,
        dryRunCidr, includeLoopDisks);
  }

  /** Same settings, reporting another agent version (a dry-run agent upgraded by the service). */
  public AgentConfig withAgentVersion(String version) {
    return new AgentConfig(url, infraEnvId, token, insecure, caCert, dryRun, hostId, hostname, transport, version,
        hostRoot, logFile, stepTimeout, stepThreads, longPollWaitSeconds, backoffBase, backoffCap, swarm, dryRunIndex,
        dryRunCidr, includeLoopDisks);
  }

  public boolean tls() {
    return "https".equalsIgnoreCase(url.getScheme());
  }

  /** The token never appears in logs. */
  @Override
  public String toString() {
    return "AgentConfig[url=" + url + ", infraEnvId=" + infraEnvId + ", token=***, insecure=" + insecure
        + ", caCert=" + caCert + ", dryRun=" + dryRun + ", hostId=" + hostId + ", transport=" + transport
        + ", hostRoot=" + hostRoot + ", swarm=" + swarm + "]";
  }

  private static URI parseUrl(String s) {
    try {
      URI u = new URI(s.trim());
      String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
      if (!scheme.equals("http") && !scheme.equals("https") || u.getHost() == null) {
        throw new ConfigException("url", "must be an http:// or https:// URL with a host (got '" + s + "')");
      }
      return u;
    } catch (URISyntaxException e) {
      throw new ConfigException("url", "not a URL: " + e.getMessage());
    }
  }

  private static Path existingFile(String flag, String p) {
    Path path = Path.of(p);
    if (!Files.isReadable(path)) {
      throw new ConfigException(flag, "cannot read " + p);
    }
    return path;
  }

  private static boolean bool(Map<String, String> values, String flag) {
    String v = values.get(flag);
    if (v == null) {
      return false;
    }
    return switch (v.trim().toLowerCase(Locale.ROOT)) {
      case "true", "1", "yes" -> true;
      case "false", "0", "no", "" -> false;
      default -> throw new ConfigException(flag, "must be true or false (got '" + v + "')");
    };
  }

  private static int integer(Map<String, String> values, String flag, int dflt) {
    String v = values.get(flag);
    if (v == null) {
      return dflt;
    }
    try {
      return Integer.parseInt(v.trim());
    } catch (NumberFormatException e) {
      throw new ConfigException(flag, "must be an integer (got '" + v + "')");
    }
  }

  private static void requireUuid(String flag, String value) {
    try {
      UUID.fromString(value);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(flag, "must be a UUID (got '" + value + "')");
    }
    if (value.length() != 36) {
      throw new ConfigException(flag, "must be a UUID in 8-4-4-4-12 form (got '" + value + "')");
    }
  }
}
