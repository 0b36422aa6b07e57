package dev.rendezvous.agent.fleet;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Which of a swarm's failed clusters the load generator failed rather than the service. Every simulated host's
 * agent, installer and controller runs in the swarm's own processes, so a host that ran out of files, threads or
 * memory says so in its {@code status_info} (the installer's "install failed: java.io.IOException: Too many open
 * files") and is the swarm's failure; any other reason (the service's refusal or timeout, a bug of either) is worth
 * a look. Pure: the swarm reads the hosts, this sorts them.
 */
final class SwarmFailures {
  /** What a process of this machine running out of a resource says (Java's and the kernel's words). */
  static final List<String> LOAD_GENERATORS = List.of("Too many open files", "unable to create native thread",
      "OutOfMemoryError", "Cannot allocate memory");

  private SwarmFailures() {}

  /** A failed host of a cluster in {@code error}: its {@code status} and {@code status_info}. */
  record FailedHost(String status, String statusInfo) {}

  /** Whether a host's reason is the load generator running out of something. */
  static boolean loadGenerators(String statusInfo) {
    return statusInfo != null && LOAD_GENERATORS.stream().anyMatch(statusInfo::contains);
  }

  /**
   * The line the swarm prints for its clusters in {@code error}: how many, how many of them the load generator's (a
   * cluster is when one of its hosts in error gave such a reason), and the most common reason of each kind.
   */
  static String summary(Map<String, List<FailedHost>> hostsByCluster) {
    Map<String, Integer> own = new TreeMap<>();
    Map<String, Integer> other = new TreeMap<>();
    for (List<FailedHost> hosts : hostsByCluster.values()) {
      List<String> reasons = hosts.stream().filter(h -> "error".equals(h.status())).map(FailedHost::statusInfo)
          .filter(s -> s != null && !s.isBlank()).toList();
      // a load generator's reason on any host in error makes the cluster the load generator's
      String reason = reasons.stream().filter(SwarmFailures::loadGenerators).findFirst()
          .orElse(reasons.isEmpty() ? "no host in error said why" : reasons.get(0));
      (loadGenerators(reason) ? own : other).merge(reason, 1, Integer::sum);
    }
    int owns = own.values().stream().mapToInt(Integer::intValue).sum();
    int others = other.values().stream().mapToInt(Integer::intValue).sum();
    StringBuilder line = new StringBuilder(String.format("fleet: %,d %s in error, %,d of them the load "
        + "generator's (a swarm process out of files, threads or memory)", owns + others,
        owns + others == 1 ? "cluster" : "clusters", owns));
    if (owns > 0) {
      line.append(", most often: \"").append(mostCommon(own)).append('"');
    }
    if (others > 0) {
      line.append(String.format("; %,d for other reasons, most often: \"%s\"", others, mostCommon(other)));
    }
    return line.toString();
  }

  private static String mostCommon(Map<String, Integer> reasons) {
    return reasons.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey).orElse("");
  }
}
