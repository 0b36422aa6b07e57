package dev.rendezvous.agent.step;

/** What a command printed and how it ended; {@code timedOut} means it was killed at its time limit. */
public record CommandResult(int exitCode, String stdout, String stderr, boolean timedOut) {
  public boolean ok() {
    return exitCode == 0 && !timedOut;
  }

  /** stderr if it has something, else stdout: the text to show when a command failed. */
  public String failureText() {
    String s = stderr.isBlank() ? stdout : stderr;
    return s.strip();
  }
}
