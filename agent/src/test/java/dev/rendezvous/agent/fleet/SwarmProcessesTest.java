package dev.rendezvous.agent.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** How many processes a swarm needs under an open-file limit, and the limit read from /proc. */
class SwarmProcessesTest {
  @Test
  void aFleetIsSpreadOverAsManyProcessesAsItsFilesNeed() {
    // the run that failed: 10,000 single-node sites under this machine's 20,000 files per process
    assertEquals(3, SwarmProcesses.needed(10_000, 1, 20_000));
    assertEquals(1, SwarmProcesses.needed(3, 3, 20_000), "a small fleet stays in one process");
    assertEquals(1, SwarmProcesses.needed(1_000, 1, 20_000));
    assertEquals(2, SwarmProcesses.needed(40, 1, 400), "a few hundred files forced");
    assertEquals(1, SwarmProcesses.needed(1, 1, 300), "never fewer than one");
    assertEquals(1, SwarmProcesses.needed(10_000, 5, Long.MAX_VALUE), "no limit read");
  }

  @Test
  void workersGetThisJvmsOptionsAndMoreServiceCallsForTheirControllersUnlessTheSwarmWasGivenANumber() {
    assertEquals(java.util.List.of("-Xmx2g", "-Dfoo=1", "-Drdv.controller.serviceCallThreads=32"),
        SwarmProcesses.workerOptions(java.util.List.of("-Xmx2g", "--add-opens=x", "-Dfoo=1")));
    assertEquals(java.util.List.of("-Drdv.controller.serviceCallThreads=4"),
        SwarmProcesses.workerOptions(java.util.List.of("-Drdv.controller.serviceCallThreads=4")));
  }

  @Test
  void theLimitIsThisProcesssOwn() {
    long limit = SwarmProcesses.openFilesLimit();
    assertTrue(limit > SwarmProcesses.RESERVE, "a limit this JVM could run under: " + limit);
  }
}
