package dev.rendezvous.app;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A child instance's "rendezvous started" line, printed into the test class's output: a restart that takes a minute
 * under CI's load then says which step of start-up took it.
 */
final class StartupLine {
  private static final Pattern STARTED =
      Pattern.compile("\"startup_ms\":(\\d+).*?(?:\"startup_phases\":\"([^\"]*)\")?}");

  private StartupLine() {}

  static void print(String who, Path log) {
    try (var lines = Files.lines(log)) {
      lines.filter(l -> l.contains("\"message\":\"rendezvous started\"")).reduce((a, b) -> b).ifPresent(l -> {
        Matcher m = STARTED.matcher(l);
        if (m.find()) {
          System.out.printf("%s started in %.1f s: %s%n", who, Long.parseLong(m.group(1)) / 1000.0,
              m.group(2) == null ? "(no phases logged)" : m.group(2));
        }
      });
    } catch (IOException | RuntimeException e) {
      System.out.println(who + ": its log unreadable (" + e + ")");
    }
  }
}
