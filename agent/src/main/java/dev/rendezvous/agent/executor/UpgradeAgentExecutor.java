package dev.rendezvous.agent.executor;

import dev.rendezvous.agent.AgentVersion;
import dev.rendezvous.agent.wire.Step;
import dev.rendezvous.agent.step.StepExecutor;
import dev.rendezvous.agent.step.StepOutcome;
import dev.rendezvous.agent.wire.StepModels;
import dev.rendezvous.agent.wire.WireJson;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * {@code upgrade-agent}: args[0] = {"agent_image": "<version>"}. Upstream's agent pulls that container image; this one
 * fetches the service's agent jar (where its launcher fetched it from at boot, {@code RDV_AGENT_JAR_URL}), checks the
 * jar is that version, and puts it in place of the jar it runs from (a rename: the running JVM keeps the old file
 * open). On success the agent ends once the reply is delivered and systemd's {@code Restart=always} starts the launcher
 * again, which runs the new jar. Nothing is replaced when anything does not match: the answer says why.
 */
public final class UpgradeAgentExecutor implements StepExecutor {
  /** Fetches a URL into a file (the agent's gateway client, with its token and TLS settings). */
  public interface Fetch {
    void download(String url, Path to) throws Exception;
  }

  private final Optional<String> jarUrl;
  private final Optional<Path> ownJar;
  private final Fetch fetch;

  public UpgradeAgentExecutor(Optional<String> jarUrl, Optional<Path> ownJar, Fetch fetch) {
    this.jarUrl = jarUrl.filter(u -> !u.isBlank());
    this.ownJar = ownJar;
    this.fetch = fetch;
  }

  /** The jar this agent runs from; empty when it runs from classes (a build tree), not a jar. */
  public static Optional<Path> runningJar() {
    try {
      Path p = Path.of(AgentVersion.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      return Files.isRegularFile(p) && p.toString().endsWith(".jar") ? Optional.of(p) : Optional.empty();
    } catch (Exception e) {
      return Optional.empty();
    }
  }

  @Override
  public StepOutcome execute(Step step) throws Exception {
    String wanted = requested(step);
    if (jarUrl.isEmpty() || ownJar.isEmpty()) {
      return failed(wanted, "this agent was not started by its launcher (no RDV_AGENT_JAR_URL, or not run from a jar): "
          + "there is nothing for it to replace");
    }
    Path jar = ownJar.get();
    Path part = jar.resolveSibling(jar.getFileName() + ".upgrade");
    try {
      fetch.download(jarUrl.get(), part);
      String got = versionOf(part);
      if (!wanted.equals(got)) {
        return failed(wanted, "the service's agent jar is version " + got + ", not " + wanted);
      }
      Files.move(part, jar, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      return StepOutcome.ok(WireJson.write(new StepModels.UpgradeAgentResponse(wanted,
          StepModels.UpgradeAgentResponse.SUCCESS)));
    } catch (Exception e) {
      return failed(wanted, "fetching " + jarUrl.get() + ": " + e.getMessage());
    } finally {
      Files.deleteIfExists(part);
    }
  }

  public static String requested(Step step) {
    if (step.arg(0) == null || step.arg(0).isBlank()) {
      throw new IllegalArgumentException("upgrade-agent: args[0] ({\"agent_image\": ...}) is missing");
    }
    String v = WireJson.read(step.arg(0), StepModels.UpgradeAgentRequest.class).agentImage();
    if (v == null || v.isBlank()) {
      throw new IllegalArgumentException("upgrade-agent: agent_image is missing");
    }
    return v.strip();
  }

  /** The version a jar says it is ({@link AgentVersion#RESOURCE}); an error when it is no agent jar. */
  public static String versionOf(Path jar) throws IOException {
    try (ZipFile z = new ZipFile(jar.toFile())) {
      ZipEntry e = z.getEntry(AgentVersion.RESOURCE);
      if (e == null) {
        throw new IOException(jar + " is no agent jar (it has no " + AgentVersion.RESOURCE + ")");
      }
      try (InputStream in = z.getInputStream(e)) {
        return new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
      }
    }
  }

  private static StepOutcome failed(String wanted, String why) {
    return new StepOutcome(1, WireJson.write(new StepModels.UpgradeAgentResponse(wanted,
        StepModels.UpgradeAgentResponse.FAILURE)), "upgrade-agent: " + why);
  }

  /** Whether a reply says the agent was upgraded (then it ends, to start again as the new version). */
  public static Optional<String> upgradedTo(String stepType, int exitCode, String output) {
    if (!dev.rendezvous.agent.wire.StepTypes.UPGRADE_AGENT.equals(stepType) || exitCode != 0 || output == null) {
      return Optional.empty();
    }
    try {
      StepModels.UpgradeAgentResponse r = WireJson.read(output, StepModels.UpgradeAgentResponse.class);
      return StepModels.UpgradeAgentResponse.SUCCESS.equals(r.result()) ? Optional.ofNullable(r.agentImage())
          : Optional.empty();
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }
}
