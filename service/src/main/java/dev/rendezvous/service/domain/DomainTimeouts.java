package dev.rendezvous.service.domain;

import dev.rendezvous.service.domain.cluster.FinalizingStage;
import dev.rendezvous.service.domain.host.HostStage;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;

/**
 * Every timeout the state machines apply (assisted-v2-api.md §3.5 and §4), upstream defaults. The
 * machines compare them against the {@code now} they are given, so tests drive time directly.
 */
public record DomainTimeouts(
    Duration hostDisconnection,
    Duration bootstrapExtraDisconnection,
    Duration hostPreparation,
    Duration installingWithoutProgress,
    Map<HostStage, Duration> hostStages,
    Duration hostStageDefault,
    Duration snoRebooting,
    Duration installingPendingUserAction,
    Duration reclaim,
    Duration hostLogCollection,
    Duration hostLogPending,
    Duration clusterPreparation,
    Duration clusterInstallation,
    Duration clusterFinalizing,
    Duration clusterLogCollection,
    Duration clusterLogPending,
    Map<String, Duration> finalizingStages,
    Duration finalizingStageDefault) {

  public DomainTimeouts {
    hostStages = Map.copyOf(hostStages);
    finalizingStages = Map.copyOf(finalizingStages);
  }

  public static DomainTimeouts defaults() {
    Map<HostStage, Duration> stages = new EnumMap<>(HostStage.class);
    stages.put(HostStage.STARTING_INSTALLATION, Duration.ofMinutes(30));
    stages.put(HostStage.WAITING_FOR_CONTROL_PLANE, Duration.ofMinutes(60));
    stages.put(HostStage.WAITING_FOR_CONTROLLER, Duration.ofMinutes(60));
    stages.put(HostStage.WAITING_FOR_BOOTKUBE, Duration.ofMinutes(60));
    stages.put(HostStage.INSTALLING, Duration.ofMinutes(60));
    stages.put(HostStage.JOINED, Duration.ofMinutes(60));
    stages.put(HostStage.WRITING_IMAGE_TO_DISK, Duration.ofMinutes(30));
    stages.put(HostStage.COPYING_REGISTRY_DATA_TO_DISK, Duration.ofMinutes(90));
    stages.put(HostStage.REBOOTING, Duration.ofMinutes(40));
    stages.put(HostStage.CONFIGURING, Duration.ofMinutes(60));
    stages.put(HostStage.WAITING_FOR_IGNITION, Duration.ofHours(24));
    return new DomainTimeouts(
        Duration.ofMinutes(3),
        Duration.ofMinutes(2),
        Duration.ofMinutes(8),
        Duration.ofMinutes(20),
        stages,
        Duration.ofMinutes(60),
        Duration.ofMinutes(80),
        Duration.ofMinutes(60),
        Duration.ofMinutes(60),
        Duration.ofMinutes(10),
        Duration.ofMinutes(2),
        Duration.ofMinutes(10),
        Duration.ofHours(24),
        Duration.ofHours(5),
        Duration.ofMinutes(60),
        Duration.ofMinutes(10),
        Map.of(
            FinalizingStage.WAITING_FOR_CLUSTER_OPERATORS, Duration.ofHours(10),
            FinalizingStage.APPLYING_OLM_MANIFESTS, Duration.ofMinutes(10),
            FinalizingStage.WAITING_FOR_OLM_OPERATOR_SETUP_JOBS, Duration.ofMinutes(10)),
        Duration.ofMinutes(70));
  }

  /** Same timeouts with another disconnection limit (e.g. shorter in tests, longer on slow labs). */
  public DomainTimeouts withHostDisconnection(Duration d) {
    return new DomainTimeouts(d, bootstrapExtraDisconnection, hostPreparation, installingWithoutProgress, hostStages,
        hostStageDefault, snoRebooting, installingPendingUserAction, reclaim, hostLogCollection, hostLogPending,
        clusterPreparation, clusterInstallation, clusterFinalizing, clusterLogCollection, clusterLogPending,
        finalizingStages, finalizingStageDefault);
  }

  /** The name a user gives a timeout ({@code RDV_TIMEOUTS=name=duration,...}): kebab-case of what it times. */
  private static String kebab(String words) {
    return words.trim().toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9]+", "-");
  }

  /** Every timeout by its name, as these values are. */
  public java.util.SortedMap<String, Duration> byName() {
    java.util.SortedMap<String, Duration> m = new java.util.TreeMap<>();
    m.put("host-disconnection", hostDisconnection);
    m.put("bootstrap-extra-disconnection", bootstrapExtraDisconnection);
    m.put("host-preparation", hostPreparation);
    m.put("installing-without-progress", installingWithoutProgress);
    for (HostStage s : HostStage.values()) {
      m.put("host-stage-" + kebab(s.wire()), hostStages.getOrDefault(s, hostStageDefault));
    }
    m.put("host-stage-default", hostStageDefault);
    m.put("sno-rebooting", snoRebooting);
    m.put("installing-pending-user-action", installingPendingUserAction);
    m.put("reclaim", reclaim);
    m.put("host-log-collection", hostLogCollection);
    m.put("host-log-pending", hostLogPending);
    m.put("cluster-preparation", clusterPreparation);
    m.put("cluster-installation", clusterInstallation);
    m.put("cluster-finalizing", clusterFinalizing);
    m.put("cluster-log-collection", clusterLogCollection);
    m.put("cluster-log-pending", clusterLogPending);
    for (String stage : FinalizingStage.ORDER) {
      m.put("finalizing-stage-" + kebab(stage), finalizingStages.getOrDefault(stage, finalizingStageDefault));
    }
    m.put("finalizing-stage-default", finalizingStageDefault);
    return m;
  }

  /**
   * These timeouts with some replaced by name ({@link #byName()}'s names); an unknown name is refused, listing the
   * names there are. A host stage or finalizing stage not named keeps its own value.
   */
  public DomainTimeouts withOverrides(Map<String, Duration> overrides) {
    java.util.SortedMap<String, Duration> names = byName();
    for (Map.Entry<String, Duration> e : overrides.entrySet()) {
      if (!names.containsKey(e.getKey())) {
        throw new IllegalArgumentException("timeouts: '" + e.getKey() + "' is not a timeout; there are " + names.keySet());
      }
      if (e.getValue() == null || e.getValue().isNegative() || e.getValue().isZero()) {
        throw new IllegalArgumentException("timeouts: " + e.getKey() + " must be positive");
      }
    }
    java.util.function.Function<String, Duration> v = n -> overrides.getOrDefault(n, names.get(n));
    Map<HostStage, Duration> stages = new EnumMap<>(HostStage.class);
    stages.putAll(hostStages);
    for (HostStage s : HostStage.values()) {
      Duration d = overrides.get("host-stage-" + kebab(s.wire()));
      if (d != null) {
        stages.put(s, d);
      }
    }
    Map<String, Duration> finalizing = new java.util.HashMap<>(finalizingStages);
    for (String stage : FinalizingStage.ORDER) {
      Duration d = overrides.get("finalizing-stage-" + kebab(stage));
      if (d != null) {
        finalizing.put(stage, d);
      }
    }
    return new DomainTimeouts(v.apply("host-disconnection"), v.apply("bootstrap-extra-disconnection"),
        v.apply("host-preparation"), v.apply("installing-without-progress"), stages, v.apply("host-stage-default"),
        v.apply("sno-rebooting"), v.apply("installing-pending-user-action"), v.apply("reclaim"),
        v.apply("host-log-collection"), v.apply("host-log-pending"), v.apply("cluster-preparation"),
        v.apply("cluster-installation"), v.apply("cluster-finalizing"), v.apply("cluster-log-collection"),
        v.apply("cluster-log-pending"), finalizing, v.apply("finalizing-stage-default"));
  }

  /**
   * A duration as upstream's environment writes them (Go's: {@code 90s}, {@code 30m}, {@code 1h30m}, {@code 500ms}),
   * or plain seconds.
   */
  public static Duration parse(String text) {
    String t = text.trim();
    if (t.matches("\\d+")) {
      return Duration.ofSeconds(Long.parseLong(t));
    }
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d+)(ms|h|m|s)").matcher(t);
    Duration d = Duration.ZERO;
    int end = 0;
    while (m.find() && m.start() == end) {
      long n = Long.parseLong(m.group(1));
      d = d.plus(switch (m.group(2)) {
        case "h" -> Duration.ofHours(n);
        case "m" -> Duration.ofMinutes(n);
        case "s" -> Duration.ofSeconds(n);
        default -> Duration.ofMillis(n);
      });
      end = m.end();
    }
    if (end == 0 || end != t.length()) {
      throw new IllegalArgumentException("'" + text + "' is not a duration (e.g. 90s, 30m, 1h30m)");
    }
    return d;
  }

  /** Upstream HostStageTimeout plus the SNO reboot extension. */
  public Duration stageTimeout(HostStage stage, boolean singleNode) {
    if (stage == HostStage.REBOOTING && singleNode) {
      return snoRebooting;
    }
    return stage == null ? hostStageDefault : hostStages.getOrDefault(stage, hostStageDefault);
  }

  /** Hard-mode finalizing stage timeout; soft mode caps "Waiting for cluster operators" at 70 min. */
  public Duration finalizingStageTimeout(String stage, boolean softTimeouts) {
    if (softTimeouts && FinalizingStage.WAITING_FOR_CLUSTER_OPERATORS.equals(stage)) {
      return Duration.ofMinutes(70);
    }
    return finalizingStages.getOrDefault(stage, finalizingStageDefault);
  }

  public Duration disconnection(boolean bootstrap) {
    return bootstrap ? hostDisconnection.plus(bootstrapExtraDisconnection) : hostDisconnection;
  }
}
