package dev.rendezvous.agent.step;

import java.io.IOException;
import java.time.Duration;
import java.util.List;

/** Runs host commands (ping, arping, lsblk, chronyc...). Blocking: call only from step worker threads. */
public interface CommandRunner {
  /**
   * Runs {@code command} (argv, no shell) and waits at most {@code timeout}, killing it after.
   *
   * @throws IOException when the program cannot be started (e.g. not installed)
   */
  CommandResult run(List<String> command, Duration timeout) throws IOException, InterruptedException;

  /** Whether {@code program} is on the PATH (or an existing absolute path). */
  boolean available(String program);
}
