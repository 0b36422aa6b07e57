package dev.rendezvous.app;

import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;

/**
 * A child instance's "rendezvous started" line, printed into the test class's output: a restart that takes a minute
 * under CI's load then says which step of start-up took it.
 */
final class StartupLine {
  private StartupLine() {}

  /** Called once the child answers {@code /ready}; its line follows a moment later (the API is up first). */
  static void print(String who, Path log) {
    String line;
    try {
      line = Await.until("the \"rendezvous started\" line of " + log, Duration.ofSeconds(5),
          () -> started(log).orElse(null));
    } catch (AssertionError notYet) {
      System.out.println(who + ": no \"rendezvous started\" line in its log 5 s after it was ready");
      return;
    }
    JsonObject started = new JsonObject(line); // a JSON line: the child's output is no terminal
    System.out.printf(Locale.ROOT, "%s started in %.1f s: %s%n", who, started.getLong("startup_ms", 0L) / 1000.0,
        started.getString("startup_phases", "(no phases logged)"));
  }

  private static Optional<String> started(Path log) {
    try (var lines = Files.lines(log)) {
      return lines.filter(l -> l.startsWith("{") && l.contains("\"message\":\"rendezvous started\""))
          .reduce((a, b) -> b);
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }
}
