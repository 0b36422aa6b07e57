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
  static final Path NM_SCRIPT = ROOT.resolve("agent/src/test/netns/rdv-netns-nm.sh");
  static final Path JAR = ROOT.resolve("agent/target/rendezvous-agent.jar");
  static final String BRIDGE_ADDRESS = "10.250.0.1";

  private final int count;
  private final Process[] agents;
  private final Process[] networkManagers;
  private final Path logs;
  private final List<String> loopDevices = new ArrayList<>();
  private Process dhcpServer;

  private NetnsAgents(int count, Path logs) {
    this.count = count;
    this.agents = new Process[count + 1];
    this.networkManagers = new Process[count + 1];
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
    return up(count, logs, false);
  }

  /**
   * As {@link #up(int, Path)}, but each host's NIC left down without address or route when {@code unaddressed}:
   * for a NetworkManager in the namespace to configure ({@link #startNetworkManager}).
   */
  static NetnsAgents up(int count, Path logs, boolean unaddressed) throws Exception {
    run("down");
    try {
      if (unaddressed) {
        run("up", Integer.toString(count), "10.250.0.0/24", "unaddressed");
      } else {
        run("up", Integer.toString(count), "10.250.0.0/24");
      }
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
    List<String> cmd = new ArrayList<>(List.of("ip", "netns", "exec", "rdv-ns" + i));
    cmd.addAll(ChildJvm.command("128m", "-jar", JAR.toString(),
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

  /** Why NetworkManager cannot run in a namespace here (see rdv-netns-nm.sh), or null when it can. */
  static String networkManagerUnavailable() {
    List<String> dirs = new ArrayList<>(List.of(System.getenv().getOrDefault("PATH", "").split(":")));
    dirs.addAll(List.of("/usr/sbin", "/sbin"));
    for (String tool : List.of("NetworkManager", "dbus-daemon", "unshare")) {
      if (dirs.stream().noneMatch(d -> !d.isEmpty() && Files.isExecutable(Path.of(d, tool)))) {
        return tool + " is not installed (Debian packages network-manager, dbus, util-linux; scripts/install-test-tools)";
      }
    }
    try {
      if (!Files.readString(Path.of("/proc/filesystems")).contains("\toverlay\n")) {
        return "the kernel has no overlay filesystem (rdv-netns-nm.sh keeps NetworkManager's writes off the machine with it)";
      }
    } catch (IOException e) {
      return "cannot read /proc/filesystems: " + e;
    }
    return null;
  }

  /**
   * Starts a real NetworkManager in namespace i (rdv-netns-nm.sh): {@code work/ignition} holds the discovery
   * Ignition's network files at their paths; {@code execStart} (the Ignition unit's command) runs before it.
   * Its log is {@code networkmanager-i.log}; it ends with {@link #close()}.
   */
  void startNetworkManager(int i, Path work, String execStart) throws IOException {
    ProcessBuilder pb = new ProcessBuilder("ip", "netns", "exec", "rdv-ns" + i, "unshare", "-m",
        "bash", NM_SCRIPT.toString(), work.toString(), execStart).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(logs.resolve("networkmanager-" + i + ".log").toFile()));
    networkManagers[i] = pb.start();
  }

  /** Whether NetworkManager i is still running. */
  boolean networkManagerAlive(int i) {
    return networkManagers[i] != null && networkManagers[i].isAlive();
  }

  /** Ends NetworkManager i and its D-Bus (its child), by their process ids. */
  void stopNetworkManager(int i) throws InterruptedException {
    Process nm = networkManagers[i];
    if (nm != null) {
      List<ProcessHandle> children = nm.descendants().toList();
      nm.destroy();
      if (!nm.waitFor(10, TimeUnit.SECONDS)) {
        nm.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
      for (ProcessHandle c : children) {
        c.destroy();
        try {
          c.onExit().get(5, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
          c.destroyForcibly();
        }
      }
      networkManagers[i] = null;
    }
  }

  /** The MAC address the rig gives host i's NIC. */
  static String mac(int i) {
    return String.format("02:52:44:56:%02x:%02x", i >> 8, i & 255);
  }

  /** Kills agent i the hard way, as a host losing power would. */
  void kill(int i) throws InterruptedException {
    if (agents[i] != null) {
      agents[i].destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      agents[i] = null;
    }
  }

  /** Ends every process in namespace i at once, daemons too, as the host losing power or rebooting would. */
  void powerOff(int i) throws IOException, InterruptedException {
    String pids = exec("ip", "netns", "pids", "rdv-ns" + i).strip();
    if (!pids.isEmpty()) {
      List<String> cmd = new ArrayList<>(List.of("kill", "-9"));
      cmd.addAll(List.of(pids.split("\\s+")));
      new ProcessBuilder(cmd).redirectErrorStream(true).start().waitFor(10, TimeUnit.SECONDS);
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

  /**
   * A real DHCP server on the hosts' network (Debian's dnsmasq, DHCP only, on the bridge in the root namespace)
   * leasing {@code first}..{@code last}; its lease file is returned, to see what it granted to which MAC.
   */
  Path dhcpServer(String first, String last) throws IOException {
    Path leases = logs.resolve("dnsmasq.leases");
    String dnsmasq = Files.isExecutable(Path.of("/usr/sbin/dnsmasq")) ? "/usr/sbin/dnsmasq" : "dnsmasq";
    dhcpServer = new ProcessBuilder(dnsmasq, "--keep-in-foreground", "--no-resolv", "--no-hosts", "--port=0",
        "--interface=rdv-br0", "--bind-interfaces", "--dhcp-authoritative", "--dhcp-leasefile=" + leases,
        "--pid-file=" + logs.resolve("dnsmasq.pid"), "--dhcp-range=" + first + "," + last + ",255.255.255.0,10m",
        "--log-dhcp", "--log-facility=" + logs.resolve("dnsmasq.log"))
        .redirectErrorStream(true).redirectOutput(logs.resolve("dnsmasq.out").toFile()).start();
    // serving once it logged its range: an agent's allocation that finds no server is tried again only with its next
    // plan, a minute later
    Path log = logs.resolve("dnsmasq.log");
    Await.until("dnsmasq serving DHCP (" + log + ")", java.time.Duration.ofSeconds(30), () -> {
      if (!dhcpServer.isAlive()) {
        throw new AssertionError("dnsmasq ended: " + read(logs.resolve("dnsmasq.out")));
      }
      return read(log).contains("DHCP, IP range " + first);
    });
    return leases;
  }

  private static String read(Path file) {
    try {
      return Files.exists(file) ? Files.readString(file) : "";
    } catch (IOException e) {
      return "";
    }
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
        stopNetworkManager(i);
        deleteRecursively(Path.of("/etc/netns", "rdv-ns" + i));
      } catch (Exception e) {
        first = first == null ? e : first;
      }
    }
    if (dhcpServer != null) {
      dhcpServer.destroy();
      dhcpServer.waitFor(10, TimeUnit.SECONDS);
      dhcpServer.destroyForcibly();
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
