package dev.rendezvous.controller.config;

import java.time.Duration;

/**
 * Every interval and timeout of the controller (upstream's package-level variables, which its tests shrink too).
 *
 * @param checkInterval GeneralWaitInterval (30 s): nodes, CSRs, node labels, waiting for finalizing, OLM waits
 * @param operatorPoll GeneralProgressUpdateInt (60 s): cluster operators wait, complete-installation retry
 * @param operatorsTimeout CVOMaxTimeout (10 h): how long to wait for console/cvo before failing the installation
 * @param waitTimeout WaitTimeout (70 min): SetReadyState's limit, and how long final log uploads are retried
 * @param routerCaInterval 10 s between attempts to read and upload the ingress CA
 * @param fetchRetryInterval FetchRetryInterval (10 s): fetching the monitored OLM operators
 * @param logsUploadPeriod LogsUploadPeriod (5 min): periodic controller log snapshots
 * @param summaryLogsPeriod SummaryLogsPeriod (30 s): retry of the final log bundle
 * @param installationPoll waitForInstallationInterval (1 min): polling the cluster's status
 * @param readyPoll 1 s: SetReadyState's poll
 * @param reactionDelay least time between two rounds of a loop woken by watch events (bursts cost one round)
 * @param requestTimeout limit of one HTTP request to the service
 */
public record Timings(
    Duration checkInterval,
    Duration operatorPoll,
    Duration operatorsTimeout,
    Duration waitTimeout,
    Duration routerCaInterval,
    Duration fetchRetryInterval,
    Duration logsUploadPeriod,
    Duration summaryLogsPeriod,
    Duration installationPoll,
    Duration readyPoll,
    Duration reactionDelay,
    Duration requestTimeout) {

  public static Timings upstream() {
    return new Timings(
        Duration.ofSeconds(30),
        Duration.ofSeconds(60),
        Duration.ofHours(10),
        Duration.ofMinutes(70),
        Duration.ofSeconds(10),
        Duration.ofSeconds(10),
        Duration.ofMinutes(5),
        Duration.ofSeconds(30),
        Duration.ofMinutes(1),
        Duration.ofSeconds(1),
        Duration.ofSeconds(1),
        Duration.ofSeconds(60));
  }

  /**
   * How long a dry-run controller waits for a service it cannot reach (WaitTimeout, scaled) at the least: a restart or
   * a rolling upgrade of the service takes real time, not simulated time (at a scale of 0.002 WaitTimeout was 8.4 s,
   * and a controller gave its cluster up while the service's replacement started).
   */
  static final Duration DRY_RUN_SERVICE_PATIENCE = Duration.ofMinutes(5);

  /**
   * The dry-run world runs {@code scale} times faster, so are the controller's polls (a compressed world watched
   * at real-time intervals would idle): each interval is scaled, but not below {@code floor} (a swarm of thousands
   * must not hammer the service), and the log snapshot period not below 30 s. Timeouts of the simulated cluster are
   * scaled without a floor; the wait for the service not below {@link #DRY_RUN_SERVICE_PATIENCE}.
   */
  public Timings scaledForDryRun(double scale, Duration floor) {
    Duration logsFloor = floor.compareTo(Duration.ofSeconds(30)) > 0 ? floor : Duration.ofSeconds(30);
    return new Timings(
        scaledAtLeast(checkInterval, scale, floor),
        scaledAtLeast(operatorPoll, scale, floor),
        scale(operatorsTimeout, scale),
        scaledAtLeast(waitTimeout, scale, DRY_RUN_SERVICE_PATIENCE),
        scaledAtLeast(routerCaInterval, scale, floor),
        scaledAtLeast(fetchRetryInterval, scale, floor),
        scaledAtLeast(logsUploadPeriod, scale, logsFloor),
        scaledAtLeast(summaryLogsPeriod, scale, floor),
        scaledAtLeast(installationPoll, scale, floor),
        scaledAtLeast(readyPoll, scale, floor),
        scaledAtLeast(reactionDelay, scale, Duration.ZERO),
        requestTimeout);
  }

  private static Duration scaledAtLeast(Duration d, double scale, Duration floor) {
    Duration s = scale(d, scale);
    return s.compareTo(floor) < 0 ? floor : s;
  }

  static Duration scale(Duration d, double scale) {
    return Duration.ofNanos(Math.max(1_000_000L, (long) (d.toNanos() * scale)));
  }
}
