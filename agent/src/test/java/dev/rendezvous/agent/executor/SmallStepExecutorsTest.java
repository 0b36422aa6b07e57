package dev.rendezvous.agent.executor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.agent.FixtureCommands;
import dev.rendezvous.agent.Fixtures;
import dev.rendezvous.agent.step.CommandResult;
import dev.rendezvous.agent.step.StepOutcome;
import dev.rendezvous.agent.wire.Step;
import dev.rendezvous.agent.wire.StepModels;
import dev.rendezvous.agent.wire.WireJson;
import java.util.List;
import org.junit.jupiter.api.Test;

/** free-network-addresses, ntp-synchronizer, container-image-availability, stop-installation. */
class SmallStepExecutorsTest {

  static Step step(String type, String... args) {
    return new Step(type, type + "-1", List.of(args));
  }

  @Test
  void freeAddressesSweepsWithArpingOnTheLocalLink() throws Exception {
    FixtureCommands commands = new FixtureCommands().installed("ping").on(List.of("arping"), c -> {
      String ip = c.get(c.size() - 1);
      boolean up = ip.equals("192.0.2.1") || ip.equals("192.0.2.2");
      return new CommandResult(up ? 0 : 1, "", "", false);
    });
    StepOutcome out = new FreeAddressesExecutor(commands, ConnectivityCheckExecutorTest::vmInterfaces, 4)
        .execute(step("free-network-addresses", "[\"192.0.2.0/29\"]"));
    var result = WireJson.read(out.output(), WireJson.listOf(StepModels.FreeNetworkAddresses.class));
    assertEquals(List.of(new StepModels.FreeNetworkAddresses("192.0.2.0/29",
        List.of("192.0.2.0", "192.0.2.3", "192.0.2.4", "192.0.2.5", "192.0.2.6", "192.0.2.7"))), result);
    assertEquals(6, commands.calls().size(), "network and broadcast addresses are not probed");
    assertTrue(commands.calls().stream().allMatch(c -> c.containsAll(List.of("-I", "eth0"))));
  }

  @Test
  void verifyVipsFindsAVipSomethingAnswersAtOnTheLocalLinkAndPingsOffLink() throws Exception {
    FixtureCommands commands = new FixtureCommands().installed("ping").on(List.of("arping"), c -> {
      String ip = c.get(c.size() - 1);
      return new CommandResult(ip.equals("192.0.2.5") ? 0 : 1, "", "", false);
    }).on(List.of("ping"), c -> new CommandResult(c.get(c.size() - 1).equals("198.51.100.9") ? 0 : 1, "", "", false));
    StepOutcome out = new VerifyVipsExecutor(commands, ConnectivityCheckExecutorTest::vmInterfaces).execute(step("verify-vips",
        "[{\"vip\":\"192.0.2.5\",\"vip_type\":\"api\"},{\"vip\":\"192.0.2.6\",\"vip_type\":\"ingress\"},"
            + "{\"vip\":\"198.51.100.9\",\"vip_type\":\"api\"}]"));
    assertEquals(List.of(new StepModels.VerifiedVip("192.0.2.5", "api", "failed"),
        new StepModels.VerifiedVip("192.0.2.6", "ingress", "succeeded"),
        new StepModels.VerifiedVip("198.51.100.9", "api", "failed")),
        WireJson.read(out.output(), WireJson.listOf(StepModels.VerifiedVip.class)));
    assertTrue(commands.calls().stream().filter(c -> c.get(0).equals("arping")).allMatch(c -> c.containsAll(List.of("-I", "eth0"))),
        "on-link VIPs are asked by ARP from the NIC on their network: " + commands.calls());
    assertTrue(commands.calls().stream().anyMatch(c -> c.get(0).equals("ping") && c.contains("198.51.100.9")));
  }

  @Test
  void freeAddressesFallsBackToPingOffLink() throws Exception {
    FixtureCommands commands = new FixtureCommands().on(List.of("ping"), c -> new CommandResult(1, "", "", false));
    StepOutcome out = new FreeAddressesExecutor(commands, ConnectivityCheckExecutorTest::vmInterfaces, 4)
        .execute(step("free-network-addresses", "[\"198.51.100.0/30\"]"));
    assertEquals("[{\"network\":\"198.51.100.0/30\",\"free_addresses\":[\"198.51.100.0\",\"198.51.100.1\","
        + "\"198.51.100.2\",\"198.51.100.3\"]}]", out.output());
    // The sweep pings in parallel: the calls' order is not fixed, their set is.
    assertTrue(commands.calls().contains(List.of("ping", "-c", "1", "-W", "1", "198.51.100.1")), commands.calls().toString());
    assertTrue(commands.calls().stream().allMatch(c -> c.get(0).equals("ping")), commands.calls().toString());
  }

  @Test
  void freeAddressesRejectsANonCanonicalNetwork() {
    var e = assertThrows(IllegalArgumentException.class, () ->
        new FreeAddressesExecutor(new FixtureCommands().installed("ping"), List::of, 4)
            .execute(step("free-network-addresses", "[\"192.0.2.5/24\"]")));
    assertTrue(e.getMessage().contains("expected 192.0.2.0/24"), e.getMessage());
  }

  @Test
  void ntpNotAvailableWithoutChrony() throws Exception {
    StepOutcome out = new NtpSynchronizerExecutor(new FixtureCommands()).execute(step("ntp-synchronizer", "{\"ntp_source\":\"\"}"));
    assertEquals(1, out.exitCode());
    assertTrue(out.error().contains("not available: chronyc is not installed"), out.error());
  }

  @Test
  void ntpNotAvailableWhenChronydIsDown() throws Exception {
    FixtureCommands commands = new FixtureCommands()
        .onFixture(List.of("chronyc", "-c", "-n", "sources"), Fixtures.VM, "chronyc-no-daemon.txt");
    StepOutcome out = new NtpSynchronizerExecutor(commands).execute(step("ntp-synchronizer", "{\"ntp_source\":\"a\"}"));
    assertEquals(1, out.exitCode());
    assertTrue(out.error().contains("506 Cannot talk to daemon"), out.error());
  }

  @Test
  void ntpAddsUnknownSourcesAndReportsStates() throws Exception {
    FixtureCommands commands = new FixtureCommands()
        .onFixture(List.of("chronyc", "-c", "-n", "sources"), Fixtures.VM, "chronyc-sources.csv")
        .onFixture(List.of("chronyc", "add", "server"), Fixtures.VM, "chronyc-add-not-authorised.txt");
    StepOutcome out = new NtpSynchronizerExecutor(commands)
        .execute(step("ntp-synchronizer", "{\"ntp_source\":\"192.0.2.1, 192.0.2.200\"}"));
    assertEquals(0, out.exitCode());
    assertEquals(List.of(new StepModels.NtpSource("192.0.2.1", "unreachable"),
        new StepModels.NtpSource("192.0.2.123", "unreachable")),
        WireJson.read(out.output(), StepModels.NtpResponse.class).ntpSources());
    assertEquals(List.of(List.of("chronyc", "add", "server", "192.0.2.200", "iburst")),
        commands.calls().stream().filter(c -> c.get(1).equals("add")).toList(), "192.0.2.1 is already a source");
    assertTrue(out.error().contains("501 Not authorised"), out.error());
  }

  @Test
  void chronycStates() {
    assertEquals(List.of("synced", "combined", "not_combined", "unreachable", "error", "variable"),
        NtpSynchronizerExecutor.parseSources("^,*,a,2,6,377,1,0,0,0\n^,+,b,2,6,377,1,0,0,0\n^,-,c,2,6,377,1,0,0,0\n"
            + "^,?,d,0,6,0,1,0,0,0\n^,x,e,2,6,377,1,0,0,0\n^,~,f,2,6,377,1,0,0,0\n#,*,PPS,0,4,377,1,0,0,0\n")
            .stream().map(StepModels.NtpSource::sourceState).toList());
  }

  @Test
  void imagesFailWithAReasonWhenNoRuntimeWorks() throws Exception {
    String req = "{\"images\":[\"quay.io/openshift-release-dev/ocp-release:4.17.0-x86_64\"],\"timeout\":960}";
    StepOutcome none = new ContainerImageAvailabilityExecutor(new FixtureCommands()).execute(step("container-image-availability", req));
    assertEquals(2, none.exitCode());
    assertEquals("failure", WireJson.read(none.output(), StepModels.ImageAvailabilityResponse.class).images().get(0).result());
    assertTrue(none.error().contains("podman is not installed, docker is not installed"), none.error());

    // this machine's situation: a docker client without an engine
    FixtureCommands dockerNoEngine = new FixtureCommands().on(List.of("docker", "info"), c -> new CommandResult(1, "",
        "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?\n", false));
    StepOutcome noEngine = new ContainerImageAvailabilityExecutor(dockerNoEngine).execute(step("container-image-availability", req));
    assertEquals(2, noEngine.exitCode());
    assertTrue(noEngine.error().contains("docker has no engine (Cannot connect to the Docker daemon"), noEngine.error());
  }

  @Test
  void imagesPulledWithPodmanReportSizeTimeAndRate() throws Exception {
    FixtureCommands podman = new FixtureCommands()
        .on(List.of("podman", "image", "exists", "quay.io/a:1"), "", 1)
        .on(List.of("podman", "image", "exists", "quay.io/b:1"), "", 0)
        .on(List.of("podman", "image", "exists", "quay.io/c:1"), "", 1)
        .on(List.of("podman", "pull", "quay.io/a:1"), "sha256:abc\n", 0)
        .on(List.of("podman", "pull", "quay.io/b:1"), "sha256:def\n", 0)
        .on(List.of("podman", "pull", "quay.io/c:1"), c -> new CommandResult(125, "", "Error: manifest unknown\n", false))
        .on(List.of("podman", "image", "inspect"), "123456789\n", 0);
    StepOutcome out = new ContainerImageAvailabilityExecutor(podman).execute(step("container-image-availability",
        "{\"images\":[\"quay.io/a:1\",\"quay.io/b:1\",\"quay.io/c:1\"],\"timeout\":60}"));
    var images = WireJson.read(out.output(), StepModels.ImageAvailabilityResponse.class).images();
    assertEquals(2, out.exitCode(), "one failure makes exit 2");
    assertEquals("success", images.get(0).result());
    assertEquals(123456789L, images.get(0).sizeBytes());
    assertTrue(images.get(0).time() >= 0 && images.get(0).downloadRate() > 0);
    assertEquals("success", images.get(1).result());
    assertNull(images.get(1).sizeBytes(), "already local: no download figures");
    assertEquals("failure", images.get(2).result());
    assertTrue(out.error().contains("manifest unknown"));
  }

  @Test
  void stopInstallationWithoutPodmanHasNothingToStop() throws Exception {
    StepOutcome out = new StopInstallationExecutor(new FixtureCommands()).execute(step("stop-installation"));
    assertEquals(0, out.exitCode());
    FixtureCommands podman = new FixtureCommands().on(List.of("podman", "stop"), "assisted-installer\n", 0);
    assertEquals(0, new StopInstallationExecutor(podman).execute(step("stop-installation")).exitCode());
    assertEquals(List.of("podman", "stop", "-i", "-t", "5", "assisted-installer"), podman.calls().get(0));
  }

  @Test
  void stopInstallationStopsThisAgentsOwnInstallerFirst() throws Exception {
    java.util.concurrent.atomic.AtomicInteger stops = new java.util.concurrent.atomic.AtomicInteger();
    StepOutcome out = new StopInstallationExecutor(new FixtureCommands(), () -> stops.incrementAndGet() == 1)
        .execute(step("stop-installation"));
    assertEquals(1, stops.get());
    assertEquals(0, out.exitCode());
    assertEquals("stopped the installer", out.output());
  }
}
