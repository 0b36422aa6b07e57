package dev.rendezvous.agent.installer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Five dry-run installers of one cluster (bootstrap, two masters, two workers) against an HTTP double of the
 * service that records each host's stages and, like the controller, marks a rebooted master Joined.
 */
class InstallerTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String HOST_IGNITION = "{\"ignition\":{\"version\":\"3.2.0\",\"config\":{\"merge\":[{\"source\":"
      + "\"https://api-int.c.example.com:22623/config/master\"}]}}}";
  private final String cluster = UUID.randomUUID().toString();
  private final String infraEnv = UUID.randomUUID().toString();
  private final Map<String, List<String>> stages = new ConcurrentHashMap<>();
  private final Map<String, String> roles = new ConcurrentHashMap<>();
  private final Map<String, String> current = new ConcurrentHashMap<>();
  private final List<String> tokens = new CopyOnWriteArrayList<>();
  /** Stages the service answers 409 for (as it does for a stage a host already passed). */
  private final java.util.Set<String> refused = ConcurrentHashMap.newKeySet();
  private volatile String mastersBecome = "Done";
  private HttpServer server;
  private ScheduledExecutorService timers;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", this::handle);
    server.setExecutor(Executors.newFixedThreadPool(4));
    server.start();
    timers = Executors.newScheduledThreadPool(2);
  }

  @AfterEach
  void stop() {
    server.stop(0);
    timers.shutdownNow();
  }

  private void handle(HttpExchange ex) throws IOException {
    tokens.add(ex.getRequestHeaders().getFirst("X-Secret-Key"));
    String path = ex.getRequestURI().getPath();
    byte[] out = new byte[0];
    int code = 200;
    if (ex.getRequestMethod().equals("PUT") && path.endsWith("/progress")) {
      String host = path.split("/")[7];
      String stage = JSON.readTree(ex.getRequestBody()).path("current_stage").asText();
      stages.computeIfAbsent(host, h -> new CopyOnWriteArrayList<>()).add(stage);
      if (refused.contains(stage)) {
        byte[] no = "{\"code\":\"409\",\"reason\":\"Can't assign lower stage\"}".getBytes(StandardCharsets.UTF_8);
        ex.sendResponseHeaders(409, no.length);
        ex.getResponseBody().write(no);
        ex.close();
        return;
      }
      // the controller's part: a master's node joins once it rebooted, and is Ready (Done) unless the test holds it
      current.put(host, stage.equals("Rebooting") && roles.get(host).equals("master") ? mastersBecome : stage);
    } else if (path.endsWith("/clusters/" + cluster + "/hosts")) {
      ArrayNode hosts = JSON.createArrayNode();
      boolean mastersOnly = "role=master".equals(ex.getRequestURI().getRawQuery()); // as the service filters
      roles.forEach((id, role) -> {
        if (mastersOnly && role.equals("worker")) {
          return;
        }
        ObjectNode h = hosts.addObject().put("id", id).put("role", role.equals("bootstrap") ? "master" : role)
            .put("bootstrap", role.equals("bootstrap"));
        h.putObject("progress").put("current_stage", current.getOrDefault(id, ""));
      });
      out = JSON.writeValueAsBytes(hosts);
    } else if (path.startsWith("/api/assisted-install/v2/infra-env/" + infraEnv + "/hosts/") && path.endsWith("/downloads/ignition")) {
      out = HOST_IGNITION.getBytes(StandardCharsets.UTF_8);
    } else if (path.equals("/slow-metal.raw")) {
      // a 32 MiB image: 12 MiB at 10 MiB/s, then a 4 s stall (a slow mirror) in which the installer is stopped
      ex.sendResponseHeaders(200, 32L << 20);
      try (var body = ex.getResponseBody()) {
        for (int i = 0; i < 32; i++) {
          body.write(new byte[1 << 20]);
          body.flush();
          Thread.sleep(i == 11 ? 4000 : 100);
        }
      } catch (IOException | InterruptedException gone) {
        // the installer stopped reading
      }
      ex.close();
      return;
    } else if (path.endsWith("/downloads/files") && "file_name=bootstrap.ign".equals(ex.getRequestURI().getQuery())) {
      out = "{\"ignition\":{\"version\":\"3.2.0\"}}".getBytes(StandardCharsets.UTF_8);
    } else {
      code = 404;
    }
    ex.sendResponseHeaders(code, out.length == 0 ? -1 : out.length);
    if (out.length > 0) {
      ex.getResponseBody().write(out);
    }
    ex.close();
  }

  private InstallRequest request(String host, String role, int controlPlane) {
    return request(host, role, controlPlane, "/dev/disk/by-id/wwn-0x1");
  }

  private InstallRequest request(String host, String role, int controlPlane, String bootDevice) {
    roles.put(host, role);
    return InstallRequest.parse("{\"cluster_id\":\"" + cluster + "\",\"infra_env_id\":\"" + infraEnv + "\",\"host_id\":\""
        + host + "\",\"role\":\"" + role + "\",\"boot_device\":\"" + bootDevice + "\",\"control_plane_count\":"
        + controlPlane + ",\"openshift_version\":\"4.18\",\"installer_args\":[],\"disks_to_format\":[],"
        + "\"metal_image_url\":null,\"some_future_field\":true}");
  }

  private Installer installer(InstallRequest r, ControllerLauncher launcher) {
    String url = "http://127.0.0.1:" + server.getAddress().getPort();
    ServiceCalls calls = new ServiceCalls(HttpClient.newHttpClient(), url, "agent-token", timers, 3);
    return new Installer(r, calls, timers, launcher, url, "agent-token",
        new Installer.Timings(Duration.ofMillis(5), Duration.ofMillis(20), Duration.ofSeconds(20)));
  }

  /** A controller double: ready at once, finished when the test says. */
  static final class FakeController implements ControllerLauncher.Running {
    final CompletableFuture<Void> ready = new CompletableFuture<>();
    final CompletableFuture<Void> finished = new CompletableFuture<>();

    @Override
    public CompletableFuture<?> ready() {
      return ready;
    }

    @Override
    public CompletableFuture<?> finished() {
      return finished;
    }

    @Override
    public void close() {
      finished.complete(null);
    }
  }

  @Test
  void aWorkerRebootsOnlyOnceTwoMastersAreDoneNotMerelyJoined() throws Exception {
    mastersBecome = "Joined";
    ControllerLauncher none = (r, url, token) -> {
      throw new AssertionError("no controller here");
    };
    List<String> masters = List.of(UUID.randomUUID().toString(), UUID.randomUUID().toString());
    masters.forEach(m -> installer(request(m, "master", 3), none).run().join());
    String worker = UUID.randomUUID().toString();
    CompletableFuture<Void> run = installer(request(worker, "worker", 3), none).run();
    Thread.sleep(300); // many polls of the hosts
    assertEquals("Waiting for control plane", stages.get(worker).get(stages.get(worker).size() - 1),
        "joined masters are not enough: " + stages.get(worker));
    masters.forEach(m -> current.put(m, "Done")); // their nodes Ready
    run.get(10, TimeUnit.SECONDS);
    assertEquals("Rebooting", stages.get(worker).get(stages.get(worker).size() - 1));
  }

  @Test
  void eachRoleReportsUpstreamsStagesInOrderAndOnlyTheBootstrapStartsTheController() throws Exception {
    AtomicInteger launches = new AtomicInteger();
    FakeController controller = new FakeController();
    ControllerLauncher launcher = (r, url, token) -> {
      launches.incrementAndGet();
      assertEquals("agent-token", token);
      timers.schedule(() -> controller.ready.complete(null), 50, TimeUnit.MILLISECONDS);
      return controller;
    };
    List<String> masters = List.of(UUID.randomUUID().toString(), UUID.randomUUID().toString());
    List<String> workers = List.of(UUID.randomUUID().toString(), UUID.randomUUID().toString());
    String bootstrap = UUID.randomUUID().toString();
    List<CompletableFuture<Void>> runs = new ArrayList<>();
    runs.add(installer(request(bootstrap, "bootstrap", 3), launcher).run());
    masters.forEach(m -> runs.add(installer(request(m, "master", 3), launcher).run()));
    workers.forEach(w -> runs.add(installer(request(w, "worker", 3), launcher).run()));
    CompletableFuture.allOf(runs.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);

    List<String> image = List.of("Writing image to disk", "Writing image to disk", "Writing image to disk",
        "Writing image to disk");
    List<String> master = new ArrayList<>(List.of("Starting installation", "Installing"));
    master.addAll(image);
    master.add("Rebooting");
    masters.forEach(m -> assertEquals(master, stages.get(m), "master"));
    List<String> worker = new ArrayList<>(master.subList(0, master.size() - 1));
    worker.addAll(List.of("Waiting for control plane", "Rebooting"));
    workers.forEach(w -> assertEquals(worker, stages.get(w), "worker"));
    List<String> boot = new ArrayList<>(master.subList(0, master.size() - 1));
    boot.addAll(List.of("Waiting for control plane", "Waiting for bootkube", "Waiting for controller", "Rebooting"));
    assertEquals(boot, stages.get(bootstrap), "bootstrap");
    assertEquals(1, launches.get(), "only the bootstrap runs the controller");
    assertTrue(tokens.stream().allMatch("agent-token"::equals), "every call carries the agent token");
  }

  @Test
  void aRefusedReportIsPassedOverAndTheInstallationGoesOn() throws Exception {
    refused.add("Installing"); // e.g. the retry of a report whose slow first attempt had landed
    String worker = UUID.randomUUID().toString();
    ControllerLauncher none = (r, url, token) -> {
      throw new AssertionError("no controller here");
    };
    installer(request(worker, "master", 3), none).run().get(20, TimeUnit.SECONDS);
    List<String> seen = stages.get(worker);
    assertTrue(seen.contains("Installing"), seen.toString());
    assertEquals("Rebooting", seen.get(seen.size() - 1), "went on to the end, not Failed: " + seen);
  }

  @Test
  void aFailureIsReportedAsFailedWithItsReason() throws Exception {
    String host = UUID.randomUUID().toString();
    ControllerLauncher broken = (r, url, token) -> {
      throw new IllegalStateException("no controller image");
    };
    CompletableFuture<Void> run = installer(request(host, "bootstrap", 1), broken).run();
    assertThrows(Exception.class, () -> run.get(20, TimeUnit.SECONDS));
    List<String> reported = stages.get(host);
    assertEquals("Failed", reported.get(reported.size() - 1), reported.toString());
  }

  @Test
  void aStoppedInstallationBreaksOffItsDiskWriteAndReportsNothingMore(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
      throws Exception {
    java.nio.file.Path disk = dir.resolve("sdb.img");
    try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(disk.toFile(), "rw")) {
      f.setLength(64L << 20);
    }
    String host = UUID.randomUUID().toString();
    roles.put(host, "worker");
    String url = "http://127.0.0.1:" + server.getAddress().getPort();
    InstallRequest r = InstallRequest.parse("{\"cluster_id\":\"" + cluster + "\",\"infra_env_id\":\"" + infraEnv
        + "\",\"host_id\":\"" + host + "\",\"role\":\"worker\",\"boot_device\":\"" + disk + "\","
        + "\"control_plane_count\":3,\"openshift_version\":\"4.18\",\"metal_image_url\":\"" + url + "/slow-metal.raw\"}");
    HttpClient http = HttpClient.newHttpClient();
    ServiceCalls calls = new ServiceCalls(http, url, "agent-token", timers, 3);
    Installer installer = new Installer(r, calls, timers, (x, y, z) -> {
      throw new AssertionError("a worker starts no controller");
    }, url, "agent-token", new Installer.Timings(Duration.ZERO, Duration.ofMillis(20), Duration.ofSeconds(20)),
        new RealDisk(calls, http, Executors.newSingleThreadExecutor(), dir));
    CompletableFuture<Void> run = installer.run();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    // stopped in the stall, once 30 % arrived: the write waits on the network, where an interrupt alone is lost
    while (writeReports(host) < 3 && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertEquals(3, writeReports(host), String.valueOf(stages.get(host)));
    Thread.sleep(400);
    long stoppedAt = System.nanoTime();
    installer.stop();
    Exception e = assertThrows(Exception.class, () -> run.get(10, TimeUnit.SECONDS));
    assertTrue(System.nanoTime() - stoppedAt < TimeUnit.SECONDS.toNanos(3), "the stalled download was broken off");
    int reportsAtStop = stages.get(host).size();
    Thread.sleep(500);
    List<String> reported = stages.get(host);
    assertEquals(reportsAtStop, reported.size(), "nothing is reported after the stop: " + reported);
    assertTrue(!reported.contains("Failed") && !reported.contains("Rebooting"), reported.toString());
    assertTrue(String.valueOf(e.getCause()).contains("stopped") || e instanceof java.util.concurrent.CancellationException,
        String.valueOf(e));
  }

  private long writeReports(String host) {
    return List.copyOf(stages.getOrDefault(host, List.of())).stream().filter("Writing image to disk"::equals).count();
  }

  @Test
  void aRequestWithoutItsIdsIsRefused() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> InstallRequest.parse("{\"role\":\"master\"}"));
    assertTrue(e.getMessage().contains("cluster_id"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> InstallRequest.parse("not json"));
  }

  @Test
  void aRealMasterWritesItsDiskWithTheHostIgnition(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
      throws Exception {
    java.nio.file.Path disk = dir.resolve("sda.img"); // a file-backed disk: no physical disk is written here
    try (java.io.RandomAccessFile f = new java.io.RandomAccessFile(disk.toFile(), "rw")) {
      f.setLength(64L << 20);
    }
    String host = UUID.randomUUID().toString();
    InstallRequest r = request(host, "master", 3, disk.toString());
    String url = "http://127.0.0.1:" + server.getAddress().getPort();
    HttpClient http = HttpClient.newHttpClient();
    ServiceCalls calls = new ServiceCalls(http, url, "agent-token", timers, 3);
    new Installer(r, calls, timers, (x, y, z) -> {
      throw new AssertionError("a master starts no controller");
    }, url, "agent-token", new Installer.Timings(Duration.ZERO, Duration.ofMillis(20), Duration.ofSeconds(20)),
        new RealDisk(calls, http, Executors.newSingleThreadExecutor(), dir)).run().get(30, TimeUnit.SECONDS);

    List<String> reported = stages.get(host);
    assertEquals(List.of("Starting installation", "Installing"), reported.subList(0, 2));
    assertEquals("Rebooting", reported.get(reported.size() - 1));
    assertTrue(reported.stream().filter("Writing image to disk"::equals).count() >= 2, reported.toString());
    byte[] raw = java.nio.file.Files.readAllBytes(disk);
    assertEquals("EFI PART", new String(raw, 512, 8, StandardCharsets.US_ASCII));
    java.nio.file.Path part = dir.resolve("boot.ext4");
    java.nio.file.Files.write(part, java.util.Arrays.copyOfRange(raw, 2048 * 512, 2048 * 512 + (32 << 20)));
    Process p = new ProcessBuilder("debugfs", "-R", "cat /ignition/config.ign", part.toString())
        .redirectError(ProcessBuilder.Redirect.DISCARD).start();
    assertEquals(HOST_IGNITION, new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
  }

  /**
   * Only a machine booted from the discovery image is rebooted, after Rebooting is reported, as upstream's installer
   * reboots it (nsenter into the host, shutdown -r +1); a host whose /proc/cmdline has no live image's arguments is
   * not. No machine is rebooted here: the commands are recorded.
   */
  @Test
  void aDiscoveryHostIsRebootedAfterRebootingAndNoOtherHostIs(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
      throws Exception {
    for (boolean live : new boolean[] {true, false}) {
      java.nio.file.Path root = dir.resolve(live ? "live" : "installed");
      java.nio.file.Files.createDirectories(root.resolve("proc"));
      java.nio.file.Files.writeString(root.resolve("proc/cmdline"), live
          ? "BOOT_IMAGE=/images/pxeboot/vmlinuz coreos.liveiso=rhcos-418 ignition.firstboot ignition.platform.id=metal\n"
          : "BOOT_IMAGE=(hd0,gpt3)/ostree/rhcos/vmlinuz root=UUID=1 rw\n");
      dev.rendezvous.agent.FixtureCommands commands = new dev.rendezvous.agent.FixtureCommands()
          .on(List.of("nsenter"), "", 0);
      DiscoveryHost host = DiscoveryHost.detect(new dev.rendezvous.agent.step.HostRoot(root), commands);
      assertEquals(live, host.live());
      String id = UUID.randomUUID().toString();
      InstallRequest r = request(id, "master", 3, "/dev/sdz");
      String url = "http://127.0.0.1:" + server.getAddress().getPort();
      ServiceCalls calls = new ServiceCalls(HttpClient.newHttpClient(), url, "agent-token", timers, 3);
      Installer.Disk disk = new Installer.Disk() {
        @Override
        public CompletableFuture<Void> write(InstallRequest request, java.util.function.IntConsumer percent) {
          percent.accept(100);
          return CompletableFuture.completedFuture(null);
        }

        @Override
        public boolean reboots() {
          return host.live();
        }

        @Override
        public void reboot() throws Exception {
          assertEquals("Rebooting", stages.get(id).get(stages.get(id).size() - 1), "reported before the reboot");
          host.reboot();
        }
      };
      new Installer(r, calls, timers, (x, y, z) -> {
        throw new AssertionError("a master starts no controller");
      }, url, "agent-token", new Installer.Timings(Duration.ZERO, Duration.ofMillis(20), Duration.ofSeconds(20)), disk)
          .run().get(30, TimeUnit.SECONDS);
      assertEquals(live ? List.of(List.of("nsenter", "-t", "1", "-m", "--", "shutdown", "-r", "+1",
          "Installation completed, server is going to reboot.")) : List.of(), commands.calls());
    }
  }

  /** A second install step while the installer runs starts nothing and is answered as upstream's podman answers it. */
  @Test
  void aSecondInstallStepWhileInstallingStartsNothing() {
    java.util.List<CompletableFuture<Void>> started = new java.util.ArrayList<>();
    InstallExecutor exec = new InstallExecutor(r -> {
      CompletableFuture<Void> f = new CompletableFuture<>();
      started.add(f);
      return f;
    });
    String req = "{\"cluster_id\":\"" + cluster + "\",\"infra_env_id\":\"" + infraEnv + "\",\"host_id\":\""
        + UUID.randomUUID() + "\",\"role\":\"master\"}";
    dev.rendezvous.agent.wire.Step step = new dev.rendezvous.agent.wire.Step("install", "install-1", List.of(req));
    assertEquals(0, exec.execute(step).exitCode());
    var again = exec.execute(step);
    assertEquals(125, again.exitCode());
    assertTrue(again.error().contains("container name assisted-installer is already in use"), again.error());
    assertEquals(1, started.size(), "one installer");
    started.get(0).complete(null); // it ended (a reset follows, then a new installation)
    assertEquals(0, exec.execute(step).exitCode());
    assertEquals(2, started.size());
  }
}
