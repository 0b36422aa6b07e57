package dev.rendezvous.agent.reclaim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.rendezvous.agent.executor.UpgradeAgentExecutor;
import dev.rendezvous.agent.step.CommandResult;
import dev.rendezvous.agent.step.CommandRunner;
import dev.rendezvous.agent.step.HostRoot;
import dev.rendezvous.agent.step.StepOutcome;
import dev.rendezvous.agent.wire.Step;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reclaim steps on a host file system that is a directory of the test (never this machine's boot): the discovery
 * kernel and initrd fetched over real HTTP into boot/discovery with upstream's boot entry, only on an installed
 * CoreOS, nothing half-written on a failed fetch; the reboot left alone where the host is not this machine.
 */
class ReclaimExecutorsTest {
  @TempDir Path dir;
  private HttpServer server;
  private String base;
  private final List<List<String>> commandsRun = new ArrayList<>();
  private final CommandRunner commands = new CommandRunner() {
    @Override
    public CommandResult run(List<String> command, java.time.Duration timeout) {
      commandsRun.add(command);
      return new CommandResult(0, "", "", false);
    }

    @Override
    public boolean available(String program) {
      return true;
    }
  };
  private final UpgradeAgentExecutor.Fetch http = (url, to) -> {
    HttpResponse<Path> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url)).build(),
        HttpResponse.BodyHandlers.ofFile(to));
    if (r.statusCode() != 200) {
      throw new java.io.IOException("HTTP " + r.statusCode());
    }
  };

  @BeforeEach
  void serve() throws Exception {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/boot-artifacts/kernel", x -> reply(x, 200, "KERNEL"));
    server.createContext("/images/ie/pxe-initrd", x -> reply(x, 200, "INITRD-" + x.getRequestURI().getQuery()));
    server.createContext("/gone", x -> reply(x, 404, "{}"));
    server.start();
    base = "http://127.0.0.1:" + server.getAddress().getPort();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private static void reply(com.sun.net.httpserver.HttpExchange x, int status, String body) throws java.io.IOException {
    byte[] b = body.getBytes(StandardCharsets.UTF_8);
    x.sendResponseHeaders(status, b.length);
    x.getResponseBody().write(b);
    x.close();
  }

  private Step download(String initrdPath, String mountDir) {
    return new Step("download-boot-artifacts", "download-boot-artifacts-1", List.of("{\"kernel_url\":\"" + base
        + "/boot-artifacts/kernel\",\"rootfs_url\":\"" + base + "/boot-artifacts/rootfs?arch=x86_64\",\"initrd_url\":\""
        + base + initrdPath + "\",\"host_fs_mount_dir\":\"" + mountDir + "\"}"));
  }

  private Path coreos(Path root) throws Exception {
    Files.createDirectories(root.resolve("run"));
    Files.writeString(root.resolve("run/ostree-booted"), "");
    Files.createDirectories(root.resolve("boot/loader/entries"));
    Files.writeString(root.resolve("boot/loader/entries/ostree-1-rhcos.conf"), "title Red Hat Enterprise Linux CoreOS");
    return root;
  }

  @Test
  void anInstalledCoreosGetsTheDiscoveryKernelInitrdAndABootEntryThatSortsFirst() throws Exception {
    Path host = coreos(dir.resolve("root"));
    StepOutcome out = new DownloadBootArtifactsExecutor(new HostRoot(host), commands, http)
        .execute(download("/images/ie/pxe-initrd?api_key=t", "/host"));
    assertEquals(0, out.exitCode(), out.error());
    assertEquals("Successfully downloaded boot artifacts", out.output());
    assertEquals("KERNEL", Files.readString(host.resolve("boot/discovery/vmlinuz")));
    assertEquals("INITRD-api_key=t", Files.readString(host.resolve("boot/discovery/initrd")));
    String entry = Files.readString(host.resolve("boot/loader/entries/00-assisted-discovery.conf"));
    assertTrue(entry.startsWith("title Assisted Installer Discovery\nversion 999\n"), entry);
    assertTrue(entry.contains("'coreos.live.rootfs_url=" + base + "/boot-artifacts/rootfs?arch=x86_64'"), entry);
    assertTrue(entry.contains("linux /boot/discovery/vmlinuz\ninitrd /boot/discovery/initrd"), entry);
    assertTrue(Files.exists(host.resolve("boot/loader/entries/ostree-1-rhcos.conf")), "the installed entry stays");
    assertEquals(List.of(), commandsRun, "not this machine's /boot: nothing remounted");
  }

  @Test
  void theHostsFileSystemIsWhereTheServiceSaysWhenItIsMountedThere() throws Exception {
    Path agentRoot = dir.resolve("container");
    Path host = coreos(agentRoot.resolve("host"));
    StepOutcome out = new DownloadBootArtifactsExecutor(new HostRoot(agentRoot), commands, http)
        .execute(download("/images/ie/pxe-initrd", "/host"));
    assertEquals(0, out.exitCode(), out.error());
    assertTrue(Files.exists(host.resolve("boot/loader/entries/00-assisted-discovery.conf")));
    assertFalse(Files.exists(agentRoot.resolve("boot")), "nothing in the container's own /boot");
  }

  @Test
  void aFailedFetchLeavesTheBootEntriesAsTheyWereAndNoPartialFile() throws Exception {
    Path host = coreos(dir.resolve("root"));
    StepOutcome out = new DownloadBootArtifactsExecutor(new HostRoot(host), commands, http)
        .execute(download("/gone?api_key=secret", "/host"));
    assertEquals(1, out.exitCode());
    assertTrue(out.error().startsWith("download-boot-artifacts: fetching " + base + "/gone?api_key=***: "), out.error());
    assertFalse(out.error().contains("secret"), "the credential stays out of the answer");
    assertFalse(Files.exists(host.resolve("boot/loader/entries/00-assisted-discovery.conf")));
    try (Stream<Path> s = Files.walk(host)) {
      assertEquals(List.of(), s.filter(p -> p.toString().endsWith(".part")).toList());
    }
  }

  @Test
  void aMachineThatIsNotAnInstalledCoreosIsLeftAlone() throws Exception {
    Path host = dir.resolve("laptop");
    Files.createDirectories(host.resolve("boot/loader/entries"));
    StepOutcome out = new DownloadBootArtifactsExecutor(new HostRoot(host), commands, http)
        .execute(download("/images/ie/pxe-initrd", "/host"));
    assertEquals(1, out.exitCode());
    assertTrue(out.error().contains("is not an installed CoreOS"), out.error());
    assertFalse(Files.exists(host.resolve("boot/discovery")));
    StepOutcome reboot = new RebootForReclaimExecutor(new HostRoot(host), commands)
        .execute(new Step("reboot-for-reclaim", "reboot-for-reclaim-1", List.of("{\"host_fs_mount_dir\":\"/host\"}")));
    assertEquals(1, reboot.exitCode());
    assertEquals(List.of(), commandsRun);
  }

  @Test
  void aHostFileSystemThatIsNotThisMachinesIsNotRebooted() throws Exception {
    Path host = coreos(dir.resolve("root"));
    StepOutcome out = new RebootForReclaimExecutor(new HostRoot(host), commands)
        .execute(new Step("reboot-for-reclaim", "reboot-for-reclaim-1", List.of("{\"host_fs_mount_dir\":\"/host\"}")));
    assertEquals(0, out.exitCode(), out.error());
    assertTrue(out.output().contains("not this machine's: not rebooting"), out.output());
    assertEquals(List.of(), commandsRun);
  }

  @Test
  void aRequestWithoutItsUrlsIsAnError() {
    Step bad = new Step("download-boot-artifacts", "d-1", List.of("{\"kernel_url\":\"http://x/k\"}"));
    IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> DownloadBootArtifactsExecutor.request(bad));
    assertEquals("download-boot-artifacts: initrd_url is missing", e.getMessage());
  }
}
