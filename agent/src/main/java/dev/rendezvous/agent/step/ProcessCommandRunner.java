package dev.rendezvous.agent.step;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Runs commands with {@link ProcessBuilder}. Output goes to temporary files rather than pipes so the
 * time limit holds even when a command floods its output; each stream is kept up to {@link #MAX_OUTPUT}.
 * LC_ALL=C keeps the output in the format the parsers expect.
 */
public final class ProcessCommandRunner implements CommandRunner {
  static final int MAX_OUTPUT = 16 * 1024 * 1024;
  private final Map<String, Boolean> availability = new ConcurrentHashMap<>();

  @Override
  public CommandResult run(List<String> command, Duration timeout) throws IOException, InterruptedException {
    Path out = Files.createTempFile("rdv-agent-cmd", ".out");
    Path err = Files.createTempFile("rdv-agent-cmd", ".err");
    try {
      ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
      pb.environment().put("LC_ALL", "C");
      Process p = pb.start();
      boolean finished;
      try {
        finished = p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        p.destroyForcibly();
        throw e;
      }
      if (!finished) {
        p.destroyForcibly();
        p.waitFor(2, TimeUnit.SECONDS);
      }
      return new CommandResult(finished ? p.exitValue() : 124, readCapped(out), readCapped(err), !finished);
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }

  @Override
  public boolean available(String program) {
    return availability.computeIfAbsent(program, ProcessCommandRunner::onPath);
  }

  private static boolean onPath(String program) {
    if (program.contains("/")) {
      return Files.isExecutable(Path.of(program));
    }
    String path = System.getenv().getOrDefault("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
    for (String dir : (path + ":/usr/sbin:/sbin").split(File.pathSeparator)) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, program))) {
        return true;
      }
    }
    return false;
  }

  private static String readCapped(Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      return new String(in.readNBytes(MAX_OUTPUT), StandardCharsets.UTF_8);
    }
  }
}
