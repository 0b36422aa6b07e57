package dev.rendezvous.agent.step;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Real processes (coreutils are on every machine these tests run on). */
class ProcessCommandRunnerTest {
  final ProcessCommandRunner runner = new ProcessCommandRunner();

  @Test
  void capturesOutputAndExitCode() throws Exception {
    CommandResult r = runner.run(List.of("sh", "-c", "echo out; echo err >&2; exit 3"), Duration.ofSeconds(5));
    assertEquals(new CommandResult(3, "out\n", "err\n", false), r);
    assertEquals("err", r.failureText());
  }

  @Test
  void killsACommandAtItsTimeLimit() throws Exception {
    long t0 = System.nanoTime();
    CommandResult r = runner.run(List.of("sleep", "30"), Duration.ofMillis(300));
    assertTrue(r.timedOut());
    assertEquals(124, r.exitCode());
    assertTrue(System.nanoTime() - t0 < 5_000_000_000L);
  }

  @Test
  void aMissingProgramIsAnIOException() {
    assertThrows(IOException.class, () -> runner.run(List.of("rdv-no-such-program"), Duration.ofSeconds(1)));
    assertFalse(runner.available("rdv-no-such-program"));
    assertTrue(runner.available("sh"));
  }
}
