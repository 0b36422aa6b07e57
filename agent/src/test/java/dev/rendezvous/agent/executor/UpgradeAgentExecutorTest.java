package dev.rendezvous.agent.executor;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.agent.AgentVersion;
import dev.rendezvous.agent.step.StepOutcome;
import dev.rendezvous.agent.wire.Step;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** upgrade-agent on a real host: the jar the agent runs from is replaced by the service's, only when it is that version. */
class UpgradeAgentExecutorTest {
  @TempDir Path dir;

  private static Path jar(Path p, String version) throws Exception {
    try (OutputStream out = Files.newOutputStream(p); ZipOutputStream z = new ZipOutputStream(out)) {
      z.putNextEntry(new ZipEntry(AgentVersion.RESOURCE));
      z.write((version + "\n").getBytes(StandardCharsets.UTF_8));
      z.closeEntry();
    }
    return p;
  }

  private static Step step(String version) {
    return new Step("upgrade-agent", "upgrade-agent-1", List.of("{\"agent_image\":\"" + version + "\"}"));
  }

  @Test
  void theServicesJarOfTheAskedVersionReplacesTheRunningOne() throws Exception {
    Path running = jar(dir.resolve("rendezvous-agent.jar"), "0.0.9");
    Path served = jar(dir.resolve("served.jar"), "0.2.0");
    List<String> fetched = new java.util.ArrayList<>();
    UpgradeAgentExecutor x = new UpgradeAgentExecutor(Optional.of("https://svc/agent.jar"), Optional.of(running),
        (url, to) -> {
          fetched.add(url);
          Files.copy(served, to);
        });
    StepOutcome out = x.execute(step("0.2.0"));
    assertEquals(0, out.exitCode(), out.error());
    assertEquals("{\"agent_image\":\"0.2.0\",\"result\":\"success\"}", out.output());
    assertEquals(List.of("https://svc/agent.jar"), fetched);
    assertArrayEquals(Files.readAllBytes(served), Files.readAllBytes(running));
    assertEquals("0.2.0", UpgradeAgentExecutor.versionOf(running));
    assertEquals(Optional.of("0.2.0"), UpgradeAgentExecutor.upgradedTo("upgrade-agent", 0, out.output()));
    assertEquals(List.of("rendezvous-agent.jar", "served.jar"),
        Files.list(dir).map(p -> p.getFileName().toString()).sorted().toList(), "no download left behind");
  }

  @Test
  void anotherVersionOrNoJarOrNoLauncherReplacesNothingAndSaysWhy() throws Exception {
    Path running = jar(dir.resolve("rendezvous-agent.jar"), "0.0.9");
    byte[] before = Files.readAllBytes(running);
    Path served = jar(dir.resolve("served.jar"), "0.1.5");
    StepOutcome wrong = new UpgradeAgentExecutor(Optional.of("https://svc/agent.jar"), Optional.of(running),
        (url, to) -> Files.copy(served, to)).execute(step("0.2.0"));
    assertEquals(1, wrong.exitCode());
    assertEquals("{\"agent_image\":\"0.2.0\",\"result\":\"failure\"}", wrong.output());
    assertTrue(wrong.error().contains("the service's agent jar is version 0.1.5, not 0.2.0"), wrong.error());
    assertEquals(Optional.empty(), UpgradeAgentExecutor.upgradedTo("upgrade-agent", wrong.exitCode(), wrong.output()));

    StepOutcome notAJar = new UpgradeAgentExecutor(Optional.of("https://svc/agent.jar"), Optional.of(running),
        (url, to) -> Files.writeString(to, "<html>a proxy's page</html>")).execute(step("0.2.0"));
    assertEquals(1, notAJar.exitCode());
    assertTrue(notAJar.error().startsWith("upgrade-agent: fetching https://svc/agent.jar: "), notAJar.error());

    StepOutcome unreachable = new UpgradeAgentExecutor(Optional.of("https://svc/agent.jar"), Optional.of(running),
        (url, to) -> {
          throw new java.net.ConnectException("Connection refused");
        }).execute(step("0.2.0"));
    assertTrue(unreachable.error().contains("Connection refused"), unreachable.error());

    StepOutcome noLauncher = new UpgradeAgentExecutor(Optional.empty(), Optional.of(running),
        (url, to) -> Files.copy(served, to)).execute(step("0.2.0"));
    assertEquals(1, noLauncher.exitCode());
    assertTrue(noLauncher.error().contains("not started by its launcher"), noLauncher.error());

    assertArrayEquals(before, Files.readAllBytes(running), "the running jar is untouched");
    assertEquals(List.of("rendezvous-agent.jar", "served.jar"),
        Files.list(dir).map(p -> p.getFileName().toString()).sorted().toList());
  }
}
