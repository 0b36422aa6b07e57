package dev.rendezvous.app;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A child instance's "rendezvous started" line, printed into the test class's output: a restart that takes a minute
 * under CI's load then says which step of start-up took it.
 */
final class StartupLine {
  private static final Pattern MILLIS = Pattern.compile("\"startup_ms\":(\\d+)");
  private static final Pattern PHASES = Pattern.compile("\"startup_phases\":\"([^\"]*)\"");

  private StartupLine() {}

  /** Called once the child answers {@code /ready}; its line follows a moment later (the API is up first). */
  static void print(String who, Path log) {
    long deadline = System.nanoTime() + 5_000_000_000L;
    Optional<String> line = started(log);
    while (line.isEmpty() && System.nanoTime() < deadline) {
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      line = started(log);
    }
    if (line.isEmpty()) {
      System.out.println(who + ": no \"rendezvous started\" line in its log 5 s after it was ready");
      return;
    }
    Matcher millis = MILLIS.matcher(line.get());
    Matcher phases = PHASES.matcher(line.get());
    System.out.printf(Locale.ROOT, "%s started in %s: %s%n", who,
        millis.find() ? String.format(Locale.ROOT, "%.1f s", Long.parseLong(millis.group(1)) / 1000.0) : "?",
        phases.find() ? phases.group(1) : "(no phases logged)");
  }

  private static Optional<String> started(Path log) {
    try (var lines = Files.lines(log)) {
      return lines.filter(l -> l.contains("\"message\":\"rendezvous started\"")).reduce((a, b) -> b);
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }
}
