package dev.rendezvous.app;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Real agent processes as hosts, each in its own network namespace on one bridge (agent/src/test/netns),
 * so each has its own address and the connectivity between them is measured for real.
 */
final class NetnsAgents implements AutoCloseable {
  static final Path ROOT = Path.of(System.getProperty("user.dir")).getParent();
  static final Path SCRIPT = ROOT.resolve("agent/src/test/netns/rdv-netns.sh");
  static final Path JAR = ROOT.resolve("agent/target/rendezvous-agent.jar");
  static final String BRIDGE_ADDRESS = "10.250.0.1";

  private final int count;
  private final Process[] agents;
  private final Path logs;
  private final List<String> loopDevices = new ArrayList<>();

  private NetnsAgents(int count, Path logs) {
    this.count = count;
    this.agents = new Process[count + 1];
    this.logs = logs;
  }

  /** Why this machine cannot run the test, or null when it can. */
  static String unavailable() {
    if (!Files.isRegularFile(JAR)) {
      return "the agent jar " + JAR + " is not built (mvn -pl agent package)";
    }
    try {
      Process p = new ProcessBuilder("bash", SCRIPT.toString(), "check").redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes()).strip();
      if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0 || !out.startsWith("ok")) {
        return "network namespaces are not available here (needs root, iproute2, ping): " + out;
      }
      return null;
    } catch (IOException | InterruptedException e) {
      return "network namespaces are not available here: " + e;
    }
  }

  static NetnsAgents up(int count, Path logs) throws Exception {
    run("down");
    try {
      run("up", Integer.toString(count), "10.250.0.0/24");
    } catch (IOException e) {
      run("down"); // nothing half made is left on the machine
      throw e;
    }
    return new NetnsAgents(count, logs);
  }

  /**
   * A real disk cannot be given to a namespace here, so each host gets the nearest real thing: a sparse
   * file attached as a loop block device (the agents run with --include-loop-disks). Every namespace
   * shares the machine's /dev, so each agent reports all of them.
   */
  void fileBackedDisks(long sizeBytes) throws IOException, InterruptedException {
    for (int i = 1; i <= count; i++) {
      Path image = logs.resolve("disk-" + i + ".img");
      try (var f = new java.io.RandomAccessFile(image.toFile(), "rw")) {
        f.setLength(sizeBytes);
      }
      loopDevices.add(exec("losetup", "--find", "--show", image.toString()).strip());
    }
  }

  /**
   * DNS records as the user would create them for the cluster: {@code ip netns exec} mounts
   * /etc/netns/NAME/hosts over /etc/hosts inside the namespace, where the agents' resolver reads it.
   */
  void dnsRecords(String hostsFileLines) throws IOException {
    for (int i = 1; i <= count; i++) {
      Path dir = Path.of("/etc/netns", "rdv-ns" + i);
      Files.createDirectories(dir);
      Files.writeString(dir.resolve("hosts"), "127.0.0.1 localhost\n" + hostsFileLines);
    }
  }

  /**
   * Host i's own root (--host-root), for an agent that installs: the machine's /proc, /sys, /dev, /etc and /run
   * seen through symlinks, so the inventory reads the same, while what the installer writes under the host's root
   * (the bootstrap's /opt/openshift/manifests) stays in this host's directory, not on the machine.
   */
  Path hostRoot(int i) throws IOException {
    Path root = logs.resolve("root-" + i);
    if (!Files.isDirectory(root)) {
      Files.createDirectories(root);
      for (String d : List.of("proc", "sys", "dev", "etc", "run")) {
        Files.createSymbolicLink(root.resolve(d), Path.of("/", d));
      }
    }
    return root;
  }

  /** Starts agent i (1-based) in namespace rdv-ns{i}, as host {@code hostId}. */
  void start(int i, String apiPort, String infraEnvId, String hostId, String token) throws IOException {
    start(i, apiPort, infraEnvId, hostId, token, null);
  }

  /** As {@link #start(int, String, String, String, String)}, the agent reading {@code hostRoot} when not null. */
  void start(int i, String apiPort, String infraEnvId, String hostId, String token, Path hostRoot) throws IOException {
    List<String> cmd = new ArrayList<>(List.of("ip", "netns", "exec", "rdv-ns" + i, "java", "-Xmx128m",
        "-XX:TieredStopAtLevel=1", "-jar", JAR.toString(),
        "--url", "http://" + BRIDGE_ADDRESS + ":" + apiPort, "--infra-env-id", infraEnvId,
        "--host-id", hostId, "--hostname", "host-" + i, "--include-loop-disks"));
    if (hostRoot != null) {
      cmd.addAll(List.of("--host-root", hostRoot.toString()));
    }
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(logs.resolve("agent-" + i + ".log").toFile()));
    pb.environment().put("RDV_AGENT_TOKEN", token);
    agents[i] = pb.start();
  }

  /** Kills agent i the hard way, as a host losing power would. */
  void kill(int i) throws InterruptedException {
    if (agents[i] != null) {
      agents[i].destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      agents[i] = null;
    }
  }

  /** The loop device attached for host i by {@link #fileBackedDisks(long)}, e.g. /dev/loop7. */
  String loopDevice(int i) {
    return loopDevices.get(i - 1);
  }

  /** The file behind host i's loop device. */
  Path diskFile(int i) {
    return logs.resolve("disk-" + i + ".img");
  }

  String address(int i) {
    return "10.250.0." + (i + 1);
  }

  @Override
  public void close() throws Exception {
    // every part torn down even when one fails: loop devices and namespaces are the machine's
    Exception first = null;
    for (int i = 1; i <= count; i++) {
      try {
        kill(i);
        deleteRecursively(Path.of("/etc/netns", "rdv-ns" + i));
      } catch (Exception e) {
        first = first == null ? e : first;
      }
    }
    for (String loop : loopDevices) {
      try {
        exec("losetup", "-d", loop);
      } catch (Exception e) {
        first = first == null ? e : first;
      }
    }
    run("down");
    if (first != null) {
      throw first;
    }
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (Files.exists(dir)) {
      try (var files = Files.walk(dir)) {
        for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
  }

  private static String exec(String... cmd) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IOException(String.join(" ", cmd) + " failed: " + out);
    }
    return out;
  }

  private static void run(String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("bash", SCRIPT.toString()));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IOException("rdv-netns.sh " + String.join(" ", args) + " failed: " + out);
    }
  }
}
