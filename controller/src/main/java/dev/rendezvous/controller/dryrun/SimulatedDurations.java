package dev.rendezvous.controller.dryrun;

import java.time.Duration;

/**
 * How long things take in the simulated cluster. {@link #realistic()} holds upstream-realistic values (what a
 * bare-metal install shows); {@link #scaled(double)} multiplies all of them by the one dry-run knob
 * ({@code --dry-run-time-scale}, DRY_TIME_SCALE).
 *
 * @param boot from a host's {@code Rebooting} to its kubelet registering (the installer's one-minute shutdown
 *     delay, firmware, first boot with Ignition): node NotReady and a pending client CSR
 * @param ignitionFetch from {@code Rebooting} to the host fetching its Ignition from the machine-config server
 * @param nodeReady from the kubelet's CSR approval to the node being Ready (serving cert, CNI, static pods)
 * @param consoleProgressing from the last expected master being Ready to the console operator showing up
 * @param ingressCa from the last master Ready to the router's CA configmap
 * @param console from the last master Ready to the console operator Available
 * @param clusterVersion from the last master Ready to the ClusterVersion Available
 * @param olmCsvCreated from the last master Ready to an OLM operator's CSV existing
 * @param olmCsvSucceeded from the last master Ready to that CSV succeeding
 */
public record SimulatedDurations(
    Duration boot,
    Duration ignitionFetch,
    Duration nodeReady,
    Duration consoleProgressing,
    Duration ingressCa,
    Duration console,
    Duration clusterVersion,
    Duration olmCsvCreated,
    Duration olmCsvSucceeded) {

  public static SimulatedDurations realistic() {
    return new SimulatedDurations(
        Duration.ofSeconds(240),
        Duration.ofSeconds(150),
        Duration.ofSeconds(90),
        Duration.ofSeconds(300),
        Duration.ofSeconds(600),
        Duration.ofSeconds(1200),
        Duration.ofSeconds(1500),
        Duration.ofSeconds(300),
        Duration.ofSeconds(900));
  }

  public SimulatedDurations scaled(double scale) {
    return new SimulatedDurations(s(boot, scale), s(ignitionFetch, scale), s(nodeReady, scale),
        s(consoleProgressing, scale), s(ingressCa, scale), s(console, scale), s(clusterVersion, scale),
        s(olmCsvCreated, scale), s(olmCsvSucceeded, scale));
  }

  private static Duration s(Duration d, double scale) {
    return Duration.ofNanos((long) (d.toNanos() * scale));
  }
}
