package dev.rendezvous.agent.fleet;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A swarm's agents spread over worker processes ({@link SwarmWorkerMain}) when one process may not open the files
 * they need: a dry-run host holds its agent's websocket, and while it installs its installer's and controller's
 * connections; 10,000 single-node sites in one process ran out of this machine's 20,000 files per process and 1,784
 * clusters failed on "Too many open files". Clusters go to the workers in turn, as they are created.
 */
final class SwarmProcesses implements AutoCloseable {
  /**
   * Files a dry-run host and a cluster may hold at once, an estimate from the 10,000-site run (it failed at 20,000
   * files with most sites between ready and finalizing), with room to spare: the agent's websocket, its installer's
   * and its controller's connections; the cluster's shared HTTP clients.
   */
  static final int FILES_PER_HOST = 3;
  static final int FILES_PER_CLUSTER = 2;
  /** What a process keeps free of its limit for itself (its jars, logs, its API client, the JVM). */
  static final int RESERVE = 256;

  private static final ObjectMapper JSON = new ObjectMapper();
  private final List<Process> workers = new ArrayList<>();
  private int next;

  /** How many processes a fleet needs under a per-process limit of {@code limit} files (at least one). */
  static int needed(int clusters, int hostsPerCluster, long limit) {
    long files = (long) clusters * (hostsPerCluster * FILES_PER_HOST + FILES_PER_CLUSTER);
    long usable = Math.max(1, limit - RESERVE);
    return (int) Math.max(1, (files + usable - 1) / usable);
  }

  /** This process's open-files limit (the soft one), from /proc; a large number where it cannot be read. */
  static long openFilesLimit() {
    try (Stream<String> lines = Files.lines(Path.of("/proc/self/limits"))) {
      return lines.filter(l -> l.startsWith("Max open files")).findFirst()
          .map(l -> l.substring("Max open files".length()).trim().split("\\s+")[0])
          .map(v -> v.equals("unlimited") ? Long.MAX_VALUE : Long.parseLong(v)).orElse(Long.MAX_VALUE);
    } catch (IOException | RuntimeException e) {
      return Long.MAX_VALUE;
    }
  }

  /** The controller's bound on its JVM's concurrent service calls ({@code SharedRuntime}). */
  static final String CONTROLLER_CALLS = "rdv.controller.serviceCallThreads";
  static final int CONTROLLER_CALLS_PER_WORKER = 32;

  /**
   * A worker's JVM options: this JVM's {@code -X} and {@code -D} ones, and more service-call threads for its dry-run
   * controllers. A worker's thousands of controllers share them, where real ones each have their own connection: at
   * the controller's default of 8, the controllers of 10,000 sites queued minutes for a call and their hosts sat in
   * "Waiting for bootkube" (docs/benchmarks.md, session 33). A {@code -D} given to the swarm wins.
   */
  static List<String> workerOptions(List<String> jvmArguments) {
    List<String> options = new ArrayList<>(jvmArguments.stream()
        .filter(o -> o.startsWith("-X") || o.startsWith("-D")).toList());
    if (options.stream().noneMatch(o -> o.startsWith("-D" + CONTROLLER_CALLS + "="))) {
      options.add("-D" + CONTROLLER_CALLS + "=" + CONTROLLER_CALLS_PER_WORKER);
    }
    return options;
  }

  /** Starts {@code n} workers: this JVM's java, class path and options; their output goes where this one's goes. */
  static SwarmProcesses start(int n) throws IOException {
    SwarmProcesses p = new SwarmProcesses();
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> options = workerOptions(ManagementFactory.getRuntimeMXBean().getInputArguments());
    try {
      for (int i = 0; i < n; i++) {
        List<String> cmd = new ArrayList<>(List.of(java));
        cmd.addAll(options);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), SwarmWorkerMain.class.getName()));
        Process w = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.INHERIT)
            .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        p.workers.add(w);
      }
    } catch (IOException e) {
      p.close();
      throw e;
    }
    return p;
  }

  int size() {
    return workers.size();
  }

  /** One cluster's agents, to the next worker in turn; they start at once there. */
  void launch(List<String> agentArgs, String token, int count, Duration bootSpread) throws IOException {
    int i = next++ % workers.size();
    if (!workers.get(i).isAlive()) {
      throw new IOException("swarm worker " + i + " ended (exit " + workers.get(i).exitValue() + ")");
    }
    Map<String, Object> line = new LinkedHashMap<>();
    line.put("args", agentArgs);
    line.put("token", token);
    line.put("count", count);
    line.put("boot_spread_ms", bootSpread.toMillis());
    OutputStream in = workers.get(i).getOutputStream();
    in.write((JSON.writeValueAsString(line) + "\n").getBytes(StandardCharsets.UTF_8));
    in.flush();
  }

  /** Ends the workers: their input closes, they stop their agents and exit (killed if they take over a minute). */
  @Override
  public void close() {
    for (Process w : workers) {
      try {
        w.getOutputStream().close();
      } catch (IOException e) {
        // the worker is gone already
      }
    }
    for (Process w : workers) {
      try {
        if (!w.waitFor(60, TimeUnit.SECONDS)) {
          w.destroyForcibly();
        }
      } catch (InterruptedException e) {
        w.destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }
  }
}
