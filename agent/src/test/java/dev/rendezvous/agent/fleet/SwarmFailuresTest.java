package dev.rendezvous.agent.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.agent.fleet.SwarmFailures.FailedHost;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The swarm's last line about clusters in error: which the load generator failed, which the service. */
class SwarmFailuresTest {
  private static final String OUT_OF_FILES =
      "installation command failed: install failed: java.io.IOException: Too many open files";

  @Test
  void aHostOutOfFilesThreadsOrMemoryIsTheLoadGeneratorsAnyOtherReasonIsNot() {
    assertTrue(SwarmFailures.loadGenerators(OUT_OF_FILES));
    assertTrue(SwarmFailures.loadGenerators("dry-run installation failed: java.lang.OutOfMemoryError: unable to create native thread"));
    assertTrue(SwarmFailures.loadGenerators("write: Cannot allocate memory"));
    assertFalse(SwarmFailures.loadGenerators("Host failed to install because its installation stage Rebooting took longer than expected 1h10m0s"));
    assertFalse(SwarmFailures.loadGenerators(""));
    assertFalse(SwarmFailures.loadGenerators(null));
  }

  @Test
  void theSummaryCountsClustersNotHostsAndNamesTheMostCommonReasonOfEachKind() {
    String timeout = "Host failed to install: timeout while connecting to host during the installation phase";
    String line = SwarmFailures.summary(Map.of(
        // two hosts out of files: one cluster of the load generator's
        "a", List.of(new FailedHost("error", OUT_OF_FILES), new FailedHost("error", OUT_OF_FILES)),
        // one host out of files beside one the service timed out: the load generator's too
        "b", List.of(new FailedHost("error", timeout), new FailedHost("error", OUT_OF_FILES)),
        // a reason of the load generator's on a host not in error does not count
        "c", List.of(new FailedHost("installed", OUT_OF_FILES), new FailedHost("error", timeout)),
        "d", List.of(new FailedHost("error", timeout)),
        "e", List.of(new FailedHost("error", "Cluster installation was cancelled"))));
    assertEquals("fleet: 5 clusters in error, 2 of them the load generator's (a swarm process out of files, threads or "
        + "memory), most often: \"" + OUT_OF_FILES + "\"; 3 for other reasons, most often: \"" + timeout + "\"", line);
  }

  @Test
  void aClusterWhoseHostsSayNothingIsStillCounted() {
    assertEquals("fleet: 1 cluster in error, 0 of them the load generator's (a swarm process out of files, threads or "
        + "memory); 1 for other reasons, most often: \"no host in error said why\"",
        SwarmFailures.summary(Map.of("a", List.of(new FailedHost("installing-in-progress", "")))));
  }
}
