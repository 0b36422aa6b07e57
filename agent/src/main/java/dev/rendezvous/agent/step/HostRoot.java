package dev.rendezvous.agent.step;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The host's file tree the agent reads (/proc, /sys, /dev, /etc). "/" on a real host; a captured copy
 * in tests, so every parser runs against real files without touching the test machine.
 */
public record HostRoot(Path root) {
  public static final HostRoot SYSTEM = new HostRoot(Path.of("/"));

  /** {@code absolute} like "/proc/meminfo" resolved under the root. */
  public Path path(String absolute) {
    return root.resolve(absolute.startsWith("/") ? absolute.substring(1) : absolute);
  }

  public boolean exists(String absolute) {
    return Files.exists(path(absolute));
  }

  /** The file's text, trimmed; empty when absent or unreadable (many sysfs files refuse reads, e.g. speed when down). */
  public Optional<String> read(String absolute) {
    try {
      return Optional.of(Files.readString(path(absolute), StandardCharsets.UTF_8).trim());
    } catch (IOException e) { // includes undecodable bytes (MalformedInputException)
      return Optional.empty();
    }
  }

  /** The file's full text (not trimmed), empty when absent. */
  public Optional<String> readRaw(String absolute) {
    try {
      return Optional.of(Files.readString(path(absolute), StandardCharsets.UTF_8));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** Names in a directory, sorted; empty when absent. */
  public List<String> list(String absolute) {
    Path dir = path(absolute);
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    } catch (IOException e) {
      return List.of();
    }
  }

  /** Target name of a symlink (last path element), e.g. by-id link → "sda"; empty when not a link. */
  public Optional<String> linkTargetName(String absolute) {
    try {
      Path target = Files.readSymbolicLink(path(absolute));
      return Optional.of(target.getFileName().toString());
    } catch (IOException | UnsupportedOperationException e) {
      return Optional.empty();
    }
  }
}
