package dev.rendezvous.app;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.agentbased.cli.AgentCli;
import dev.rendezvous.agentbased.image.AgentIgnition;
import dev.rendezvous.agentbased.image.AgentIso;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The agent-based installer's proof: {@code agent create image} makes one ISO from a site's install-config.yaml and
 * agent-config.yaml; each host of the site, a network namespace of the rig with a file-backed loop disk, boots it as
 * far as a namespace can (rdv-netns-live.sh: the ISO's files at /run/media/iso, the Ignition READ BACK FROM THE
 * ISO laid down, its units started as systemd would); the host holding rendezvousIP runs Rendezvous itself from the
 * ISO's runtime, registers the site, and starts the installation once every host is known; {@code agent wait-for
 * install-complete} follows it to the end. Simulated, and said so: the new cluster is fabric8's mock API
 * ({@link NewCluster}; the test plays bootkube, the kubelets and the operators), hosts do not reboot (a host's disk is
 * read back when it reports Rebooting; the rendezvous host's live system is then ended, as its reboot would end it),
 * and no registry is in reach (container-images-available is turned off through the ISO's service arguments).
 */
@ExtendWith(NetnsExclusive.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AgentBasedInstallTest {
  static final Duration PATIENCE = Duration.ofSeconds(240);
  static final Path WORK = Path.of("target", "agent-based").toAbsolutePath();
  static final Path LIVE = NetnsAgents.ROOT.resolve("agent/src/test/netns/rdv-netns-live.sh");
  static final String VERSION = "4.22.0";
  static final String INGRESS_CA = "-----BEGIN CERTIFICATE-----\nMIIBagentbased\n-----END CERTIFICATE-----\n";
  /** What this small machine and sandbox need of the site's service: lower minimums, no registry to pull from. */
  static final String SERVICE_ARGS = "--hw-min-cpu-cores=1 --hw-min-ram-mib=512 --hw-min-disk-gb=1"
      + " --gateway-check-in-interval-seconds=2 --gateway-heartbeat-seconds=2"
      + " --disabled-host-validations=container-images-available";
  static String skip;
  static NetnsAgents hosts;

  @BeforeAll
  static void rig() throws Exception {
    skip = NetnsAgents.unavailable();
    skip = skip != null ? skip : NewCluster.unavailable();
    skip = skip != null ? skip : AgentIso.xorrisoProblem();
    for (String tool : List.of("mkfs.ext4", "debugfs", "unshare")) {
      if (skip == null && new ProcessBuilder("sh", "-c", "command -v " + tool).start().waitFor() != 0) {
        skip = tool + " is not installed (scripts/install-test-tools installs it)";
      }
    }
    if (skip == null && !Files.readString(Path.of("/proc/filesystems")).contains("\toverlay\n")) {
      skip = "the kernel has no overlay filesystem (rdv-netns-live.sh keeps each host's writes off the machine with it)";
    }
    if (skip == null && !Files.isRegularFile(Path.of("target/classpath.txt"))) {
      skip = "target/classpath.txt is missing (the app's runtime class path, written by mvn package)";
    }
    if (skip != null) {
      return;
    }
    deleteTree(WORK);
    hosts = NetnsAgents.up(4, Files.createDirectories(WORK.resolve("logs")));
    hosts.fileBackedDisks(1L << 30);
  }

  @AfterAll
  static void tearDown() throws Exception {
    if (hosts != null) {
      hosts.close();
    }
    for (int i = 1; i <= 4; i++) {
      Files.deleteIfExists(WORK.resolve("logs/disk-" + i + ".img"));
    }
    try (var isos = Files.exists(WORK) ? Files.walk(WORK) : java.util.stream.Stream.<Path>empty()) {
      for (Path iso : isos.filter(p -> p.toString().endsWith(".iso")).toList()) {
        Files.delete(iso); // hundreds of MiB each; the logs and the Ignition stay
      }
    }
    for (String site : List.of("compact", "sno")) {
      deleteTree(WORK.resolve(site).resolve("media"));
    }
  }

  /** The single-node site, installed beside the compact one (they share nothing but the machine): started once. */
  static CompletableFuture<Run> singleNodeSite;

  static synchronized CompletableFuture<Run> singleNodeSite() {
    if (singleNodeSite == null) {
      singleNodeSite = CompletableFuture.supplyAsync(() -> {
        try {
          Run run = Site.write("sno", List.of(4), 4, 1, "none").boot();
          run.playUntilWaitForEnds();
          return run;
        } catch (Exception | AssertionError e) {
          throw new java.util.concurrent.CompletionException(e);
        }
      }, r -> {
        Thread t = new Thread(r, "single-node-site");
        t.setDaemon(true);
        t.start();
      });
    }
    return singleNodeSite;
  }

  @Test
  @Order(1)
  void aCompactSiteInstallsFromItsOwnIsoWithTheRendezvousHostLast() throws Exception {
    Assumptions.assumeTrue(skip == null, () -> "skipped: " + skip);
    singleNodeSite(); // at the same time, on its own host: the two installations take half the time of one after the other
    // the rendezvous host is host 2, not the first: which host runs the service is the ISO's own decision
    Site site = Site.write("compact", List.of(1, 2, 3), 2, 3, "baremetal");
    Run run = site.boot();
    run.playUntilWaitForEnds();
    assertEquals(0, run.waitFor.get(), "agent wait-for install-complete:\n" + run.output());
    assertTrue(run.output().contains("Bootstrap is complete"), run.output());
    assertTrue(run.output().contains("Cluster is installed"), run.output());

    String rendezvousHost = run.idOf(2);
    assertEquals(rendezvousHost, run.bootstrap, "the rendezvous host (its MAC) is the bootstrap");
    List<String> rebooted = run.rebootOrder;
    assertEquals(3, rebooted.size(), rebooted.toString());
    assertEquals(rendezvousHost, rebooted.get(2), "the rendezvous host reboots last: " + rebooted);
    for (int i : List.of(1, 2, 3)) {
      assertEquals("master", run.roles.get(run.idOf(i)), "host-" + i + " of a compact site is a master");
      assertEquals("site-host-" + i, run.hostnames.get(run.idOf(i)), "hostname from agent-config.yaml");
      assertEquals("/dev/" + Path.of(hosts.loopDevice(i)).getFileName(), run.disks.get(run.idOf(i)),
          "installation disk chosen by rootDeviceHints");
    }
    run.assertCredentialsHandedOver();
  }

  @Test
  @Order(2)
  void aSingleNodeSiteInstallsItselfFromItsIso() throws Exception {
    Assumptions.assumeTrue(skip == null, () -> "skipped: " + skip);
    Run run;
    try {
      run = singleNodeSite().get(PATIENCE.toSeconds() * 2, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException e) {
      Throwable cause = e.getCause() instanceof java.util.concurrent.CompletionException c ? c.getCause() : e.getCause();
      if (cause instanceof AssertionError a) {
        throw a;
      }
      throw e;
    }
    assertEquals(0, run.waitFor.get(), "agent wait-for install-complete:\n" + run.output());
    assertEquals(List.of(run.idOf(4)), run.rebootOrder);
    assertEquals(run.idOf(4), run.bootstrap, "the single node is the bootstrap and the rendezvous host");
    assertEquals("/dev/" + Path.of(hosts.loopDevice(4)).getFileName(), run.disks.get(run.idOf(4)));
    run.assertCredentialsHandedOver();
  }

  /** A site's directory: the two files, then what agent create image writes. */
  record Site(String name, Path dir, List<Integer> nums, int rendezvous) {

    static Site write(String name, List<Integer> nums, int rendezvous, int masters, String platform) throws IOException {
      Path dir = Files.createDirectories(WORK.resolve(name));
      StringBuilder install = new StringBuilder()
          .append("apiVersion: v1\nbaseDomain: example.com\nmetadata:\n  name: ").append(name).append('\n')
          .append("networking:\n  networkType: OVNKubernetes\n  machineNetwork:\n  - cidr: 10.250.0.0/24\n")
          .append("  clusterNetwork:\n  - cidr: 10.128.0.0/14\n    hostPrefix: 23\n  serviceNetwork:\n  - 172.30.0.0/16\n")
          .append("controlPlane:\n  name: master\n  replicas: ").append(masters).append('\n')
          .append("compute:\n- name: worker\n  replicas: 0\n");
      if (platform.equals("baremetal")) {
        install.append("platform:\n  baremetal:\n    apiVIPs:\n    - 10.250.0.200\n    ingressVIPs:\n    - 10.250.0.201\n");
      } else {
        install.append("platform:\n  none: {}\n");
      }
      install.append("pullSecret: '").append(Api.PULL_SECRET).append("'\nsshKey: '").append(Api.SSH_KEY).append("'\n");
      Files.writeString(dir.resolve("install-config.yaml"), install);
      StringBuilder agent = new StringBuilder()
          .append("apiVersion: v1beta1\nkind: AgentConfig\nmetadata:\n  name: ").append(name).append('\n')
          .append("rendezvousIP: ").append(hosts.address(rendezvous)).append("\nhosts:\n");
      for (int i : nums) {
        agent.append("- hostname: site-host-").append(i).append("\n  role: master\n")
            .append("  interfaces:\n  - name: eno1\n    macAddress: ").append(NetnsAgents.mac(i)).append('\n')
            .append("  rootDeviceHints:\n    deviceName: ").append(hosts.loopDevice(i)).append('\n')
            .append("  networkConfig:\n    interfaces:\n    - name: eno1\n      type: ethernet\n      state: up\n")
            .append("      mac-address: ").append(NetnsAgents.mac(i)).append('\n')
            .append("      ipv4:\n        enabled: true\n        dhcp: false\n        address:\n        - ip: ")
            .append(hosts.address(i)).append("\n          prefix-length: 24\n")
            .append("    dns-resolver:\n      config:\n        server:\n        - ").append(NetnsAgents.BRIDGE_ADDRESS).append('\n')
            .append("    routes:\n      config:\n      - destination: 0.0.0.0/0\n        next-hop-address: ")
            .append(NetnsAgents.BRIDGE_ADDRESS).append("\n        next-hop-interface: eno1\n");
      }
      Files.writeString(dir.resolve("agent-config.yaml"), agent);
      return new Site(name, dir, nums, rendezvous);
    }

    /** agent create image, then every host booted from the ISO it wrote. */
    Run boot() throws Exception {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      List<String> classPath = new ArrayList<>(List.of(Path.of("target/classes").toAbsolutePath().toString()));
      classPath.addAll(List.of(Files.readString(Path.of("target/classpath.txt")).strip().split(java.io.File.pathSeparator)));
      int created = AgentCli.run(List.of("create", "image", "--dir", dir.toString(),
          "--base-iso=" + TestSystem.baseIso(), "--openshift-version=4.22", "--agent-jar=" + NetnsAgents.JAR,
          "--runtime-classpath=" + String.join(java.io.File.pathSeparator, classPath), "--service-args=" + SERVICE_ARGS),
          new PrintStream(out, true), new PrintStream(out, true));
      assertEquals(0, created, out.toString());
      Path iso = dir.resolve("agent.x86_64.iso");
      for (String f : List.of("auth/kubeconfig", "auth/kubeadmin-password", "auth/rendezvous-admin-token")) {
        assertTrue(Files.isRegularFile(dir.resolve(f)), f + " written: " + out);
      }
      Files.writeString(dir.resolve("create-image.log"), out.toString());

      // the ISO's own Ignition, read back from where CoreOS reads it, laid down per host as Ignition would
      JsonObject ignition = new JsonObject(new String(AgentIso.readIgnition(iso), StandardCharsets.UTF_8));
      Map<String, String> files = ignitionFiles(ignition);
      for (int i : nums) {
        String mac = NetnsAgents.mac(i);
        assertTrue(files.entrySet().stream().anyMatch(e -> e.getKey().startsWith("/etc/assisted/network/host")
            && e.getKey().endsWith("mac_interface.ini") && e.getValue().contains(mac)),
            "the ISO carries host-" + i + "'s static networking, matched by its MAC " + mac);
      }
      // the boot medium's files, read out of the ISO by xorriso (this kernel may not mount iso9660), shared read-only
      Path media = dir.resolve("media");
      deleteTree(media);
      Process x = new ProcessBuilder("xorriso", "-osirrox", "on", "-indev", iso.toString(), "-extract", "/", media.toString())
          .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("xorriso.log").toFile())).start();
      assertTrue(x.waitFor(120, TimeUnit.SECONDS) && x.exitValue() == 0, "xorriso extracted the ISO");
      Map<Integer, Process> live = new LinkedHashMap<>();
      Map<Integer, String> ids = new LinkedHashMap<>();
      for (int i : nums) {
        MetalImage.wipe(Path.of(hosts.loopDevice(i)));
        Path host = dir.resolve("host-" + i);
        deleteTree(host);
        layDown(ignition, host.resolve("ignition"));
        Files.writeString(host.resolve("hosts"), "127.0.0.1 localhost\n10.250.0.200 api." + name + ".example.com api-int."
            + name + ".example.com\n10.250.0.201 console-openshift-console.apps." + name + ".example.com\n");
        List<String> cmd = new ArrayList<>(List.of("ip", "netns", "exec", "rdv-ns" + i, "unshare", "-m", "bash",
            LIVE.toString(), host.toString(), media.toString()));
        cmd.addAll(AgentIgnition.unitsInStartOrder());
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(host.resolve("live.log").toFile()));
        // what a namespace cannot give each host by itself: its own machine id, and its loop disk counted as a disk
        ids.put(i, UUID.randomUUID().toString());
        pb.environment().put("RDV_AGENT_HOST_ID", ids.get(i));
        pb.environment().put("RDV_AGENT_INCLUDE_LOOP_DISKS", "true");
        // the ISO's launchers with the options every child JVM of the tests gets (two sites' services and four
        // agents start at once on two cores)
        pb.environment().put("RDV_JAVA_OPTS", "-XX:+ExitOnOutOfMemoryError " + ChildJvm.options("768m"));
        pb.environment().put("RDV_AGENT_JAVA_OPTS", "-XX:+ExitOnOutOfMemoryError " + ChildJvm.options("256m"));
        live.put(i, pb.start());
      }
      return new Run(this, live, ids);
    }
  }

  /** A site being installed: its hosts' live systems, the wait-for command, the new cluster the test plays. */
  static final class Run {
    final Site site;
    final Map<Integer, Process> live;
    final Map<Integer, String> ids;
    final Map<String, String> roles = new LinkedHashMap<>();
    final Map<String, String> hostnames = new LinkedHashMap<>();
    final Map<String, String> disks = new LinkedHashMap<>();
    final List<String> rebootOrder = new ArrayList<>();
    final Set<Integer> ended = new java.util.HashSet<>();
    final ByteArrayOutputStream waitForOutput = new ByteArrayOutputStream();
    CompletableFuture<Integer> waitFor;
    String bootstrap;
    String serviceKubeconfig;
    final Api api;

    Run(Site site, Map<Integer, Process> live, Map<Integer, String> ids) throws IOException {
      this.site = site;
      this.live = live;
      this.ids = ids;
      this.api = new Api(hosts.address(site.rendezvous()), AgentIgnition.API_PORT,
          Files.readString(site.dir().resolve("auth/rendezvous-admin-token")).strip());
    }

    String idOf(int i) {
      return ids.get(i);
    }

    String output() {
      return waitForOutput.toString(StandardCharsets.UTF_8);
    }

    /**
     * Plays the new cluster while wait-for follows the installation: the controller started as the bootstrap's Job
     * says, each host's disk read back when it reports Rebooting and then its kubelet registering (Ready once the
     * controller approved its CSR), the rendezvous host's live system ended when it reboots, the operators
     * Available once every node is Ready.
     */
    void playUntilWaitForEnds() throws Exception {
      Path logs = Files.createDirectories(site.dir().resolve("cluster"));
      try (NewCluster kube = NewCluster.start(logs)) {
        PrintStream ps = new PrintStream(waitForOutput, true, StandardCharsets.UTF_8);
        waitFor = CompletableFuture.supplyAsync(() -> AgentCli.run(List.of("wait-for", "install-complete", "--dir",
            site.dir().toString(), "--kubeconfig=" + kube.kubeconfig(), "--poll-seconds=1", "--timeout-minutes=4",
            "--host-timeout-minutes=3"), ps, ps), r -> {
          Thread t = new Thread(r, "wait-for-" + site.name()); // its own thread: the common pool may have only one
          t.setDaemon(true);
          t.start();
        });
        Set<String> ready = new LinkedHashSet<>();
        boolean operators = false;
        String clusterId = null;
        String infraEnv = null;
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (!waitFor.isDone() && System.nanoTime() < deadline) {
          for (Map.Entry<Integer, Process> e : live.entrySet()) {
            if (!e.getValue().isAlive() && !ended.contains(e.getKey())) {
              Path log = site.dir().resolve("host-" + e.getKey()).resolve("live.log");
              throw new AssertionError("host-" + e.getKey() + "'s live system ended by itself: "
                  + (Files.exists(log) ? Files.readString(log) : "no log"));
            }
          }
          boolean serviceUp = live.get(site.rendezvous()).isAlive();
          if (serviceUp) {
            try {
              JsonArray clusters = api.get("/clusters").array();
              if (clusterId == null && !clusters.isEmpty()) {
                clusterId = clusters.getJsonObject(0).getString("id");
              }
              if (clusterId != null) {
                // the credentials while the site's service is up: endRendezvousHost waits for them before it powers
                // the rendezvous host off
                if (serviceKubeconfig == null && Set.of("installing", "finalizing")
                    .contains(api.get("/clusters/" + clusterId).json().getString("status"))) {
                  Api.Reply k = api.get("/clusters/" + clusterId + "/downloads/credentials?file_name=kubeconfig-noingress");
                  serviceKubeconfig = k.status() == 200 ? k.body() : null;
                }
                JsonArray hs = api.get("/clusters/" + clusterId + "/hosts").array();
                for (Object o : hs) {
                  observe((JsonObject) o, kube);
                  infraEnv = ((JsonObject) o).getString("infra_env_id");
                }
              }
            } catch (RuntimeException e) {
              // the service starting, or gone between two calls
            }
            startControllerWhenApplied(kube);
          }
          endRendezvousHost();
          for (String id : new ArrayList<>(rebootOrder)) {
            String node = hostnames.get(id);
            if (!ready.contains(id) && kube.csrApproved(node)) {
              kube.nodeReady(node);
              ready.add(id);
            }
          }
          if (!operators && ready.size() == site.nums().size()) {
            kube.operatorsAvailable(VERSION, INGRESS_CA);
            operators = true;
          }
          Thread.sleep(500);
        }
        assertTrue(waitFor.isDone(), "wait-for ended in time:\n" + output());
      } finally {
        for (Map.Entry<Integer, Process> e : live.entrySet()) {
          hosts.powerOff(e.getKey());
          stop(e.getValue());
        }
        Files.writeString(site.dir().resolve("wait-for.log"), output());
      }
    }

    private void observe(JsonObject h, NewCluster kube) throws Exception {
      String id = h.getString("id");
      roles.put(id, h.getString("role"));
      hostnames.put(id, h.getString("requested_hostname"));
      disks.put(id, h.getString("installation_disk_path"));
      if (h.getBoolean("bootstrap", false)) {
        bootstrap = id;
      }
      String stage = h.getJsonObject("progress", new JsonObject()).getString("current_stage", "");
      if (!rebootOrder.contains(id) && Set.of("Rebooting", "Joined", "Done").contains(stage)) {
        int num = ids.entrySet().stream().filter(e -> e.getValue().equals(id)).findFirst().orElseThrow().getKey();
        byte[] ignition = api.bytes("/infra-env/" + h.getString("infra_env_id") + "/hosts/" + id + "/downloads/ignition");
        assertArrayEquals(ignition, ignitionOnDisk(Path.of(hosts.loopDevice(num)), site.dir()),
            "host-" + num + "'s disk holds its own Ignition");
        rebootOrder.add(id);
        if (num == site.rendezvous()) {
          rendezvousRebootSeenAt = System.nanoTime(); // its reboot ends the site's Rendezvous: endRendezvousHost
        }
        kube.kubeletRegisters(hostnames.get(id), hosts.address(num), "master");
      }
    }

    private void startControllerWhenApplied(NewCluster kube) throws IOException {
      if (kube.controllerStarted()) {
        return;
      }
      // bootkube would apply the bootstrap's manifest: the rendezvous host's installer wrote it under /opt (WORK/opt)
      Path job = site.dir().resolve("host-" + site.rendezvous()).resolve("opt/openshift/manifests/assisted-installer-controller.yaml");
      if (Files.exists(job)) {
        NewCluster.JobSettings settings;
        try {
          settings = NewCluster.JobSettings.parse(Files.readString(job));
        } catch (IllegalStateException partlyWritten) {
          // the installer may be writing it right now (seen empty on a loaded machine): read again next round,
          // but a file that stays unreadable is a real failure
          if (jobUnreadableSince == 0) {
            jobUnreadableSince = System.nanoTime();
          }
          if (System.nanoTime() - jobUnreadableSince > 15_000_000_000L) {
            throw partlyWritten;
          }
          return;
        }
        kube.startController(settings);
      }
    }

    private long jobUnreadableSince;
    private long rendezvousRebootSeenAt;

    /**
     * The rendezvous host's reboot ends its live system, and the site's Rendezvous (its PostgreSQL too) with it: once
     * this test has the credentials from it, or 20 s after it reported Rebooting (a real host takes that long to go
     * down). A dry-run single node goes from installing to Rebooting within one look: wait-for may never see its
     * installation start, and reads the cluster's API once the service is gone.
     */
    private void endRendezvousHost() throws Exception {
      int num = site.rendezvous();
      if (rendezvousRebootSeenAt == 0 || ended.contains(num)) {
        return;
      }
      if (serviceKubeconfig != null || System.nanoTime() - rendezvousRebootSeenAt > 20_000_000_000L) {
        ended.add(num);
        hosts.powerOff(num);
        stop(live.get(num));
      }
    }

    void assertCredentialsHandedOver() throws IOException {
      assertTrue(serviceKubeconfig != null, "the site's service served the cluster's kubeconfig");
      assertEquals(Files.readString(site.dir().resolve("auth/kubeconfig")), serviceKubeconfig,
          "the kubeconfig agent create image wrote is the one the cluster was installed with");
    }
  }

  /** The Ignition's files (path → text) from their data URLs. */
  static Map<String, String> ignitionFiles(JsonObject ignition) {
    Map<String, String> out = new LinkedHashMap<>();
    for (Object o : ignition.getJsonObject("storage").getJsonArray("files")) {
      JsonObject f = (JsonObject) o;
      String src = f.getJsonObject("contents").getString("source");
      out.put(f.getString("path"), new String(Base64.getDecoder().decode(src.substring(src.indexOf(',') + 1)),
          StandardCharsets.UTF_8));
    }
    return out;
  }

  /** The Ignition's files and units under {@code root}, as Ignition writes them on a host's first boot. */
  static void layDown(JsonObject ignition, Path root) throws IOException {
    for (Map.Entry<String, String> f : ignitionFiles(ignition).entrySet()) {
      Path p = root.resolve(f.getKey().substring(1));
      Files.createDirectories(p.getParent());
      Files.writeString(p, f.getValue());
    }
    for (Object o : ignition.getJsonObject("storage").getJsonArray("files")) {
      JsonObject f = (JsonObject) o;
      Path p = root.resolve(f.getString("path").substring(1));
      int mode = f.getInteger("mode", 0644);
      Files.setPosixFilePermissions(p, java.nio.file.attribute.PosixFilePermissions.fromString(perms(mode)));
    }
    Path units = Files.createDirectories(root.resolve("etc/systemd/system"));
    for (Object o : ignition.getJsonObject("systemd").getJsonArray("units")) {
      JsonObject u = (JsonObject) o;
      if (u.getString("contents") != null) {
        Files.writeString(units.resolve(u.getString("name")), u.getString("contents"));
      }
    }
  }

  private static String perms(int mode) {
    String all = "rwxrwxrwx";
    StringBuilder s = new StringBuilder();
    for (int b = 8; b >= 0; b--) {
      s.append((mode & (1 << b)) != 0 ? all.charAt(8 - b) : '-');
    }
    return s.toString();
  }

  /**
   * The Ignition the installer put on a disk without an OS image (disconnected: none to fetch): the GPT's first
   * partition, "boot", an ext4 file system read with debugfs, its {@code ignition/config.ign}.
   */
  static byte[] ignitionOnDisk(Path disk, Path scratch) throws Exception {
    ByteBuffer head = ByteBuffer.allocate(512 * 34).order(ByteOrder.LITTLE_ENDIAN);
    try (FileChannel in = FileChannel.open(disk, StandardOpenOption.READ)) {
      while (head.hasRemaining() && in.read(head, head.position()) > 0) {
        // until full
      }
      assertEquals("EFI PART", new String(head.array(), 512, 8, StandardCharsets.US_ASCII), disk + ": a GPT");
      long entries = head.getLong(512 + 72);
      int at = (int) (entries * 512);
      long first = head.getLong(at + 32);
      long last = head.getLong(at + 40);
      String name = new String(head.array(), at + 56, 8, StandardCharsets.UTF_16LE);
      assertEquals("boot", name, disk + ": the first partition");
      Path fs = scratch.resolve("boot-readback.ext4");
      try (FileChannel out = FileChannel.open(fs, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
          StandardOpenOption.TRUNCATE_EXISTING)) {
        long pos = 0;
        long size = (last - first + 1) * 512;
        while (pos < size) {
          pos += in.transferTo(first * 512 + pos, size - pos, out);
        }
      }
      try {
        return MetalImage.debugfsCat(fs, "/ignition/config.ign");
      } finally {
        Files.deleteIfExists(fs);
      }
    }
  }

  /** Ends a host's live system and everything it started (its Rendezvous, PostgreSQL, the agent). */
  static void stop(Process p) throws InterruptedException {
    if (p == null || !p.isAlive()) {
      return;
    }
    List<ProcessHandle> all = new ArrayList<>(p.descendants().toList());
    all.forEach(ProcessHandle::destroyForcibly);
    p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
  }

  private static void deleteTree(Path dir) throws IOException {
    if (Files.exists(dir)) {
      try (var walk = Files.walk(dir)) {
        for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
  }
}
