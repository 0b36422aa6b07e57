package dev.rendezvous.agentbased.image;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ISO's two launchers run as bash would run them on a host, with a stand-in {@code jre/bin/java} that prints the
 * arguments it got: their default JVM options, and the environment's options in their place.
 */
class AgentIgnitionLaunchersTest {
  @TempDir Path dir;

  @Test
  void theAgentsLauncherHasItsDefaultsAndTakesTheEnvironmentsOptionsInstead() throws Exception {
    String jar = "$RT/" + RuntimeBundle.AGENT_JAR;
    assertEquals(List.of("-Xmx256m", "-XX:+ExitOnOutOfMemoryError", "-jar", jar, "--url", "http://x"),
        run(AgentIgnition.agentLauncher(), Map.of(), "--url", "http://x"));
    assertEquals(List.of("-Xmx1g", "-XX:TieredStopAtLevel=1", "-jar", jar, "--url", "http://x"),
        run(AgentIgnition.agentLauncher(), Map.of("RDV_AGENT_JAVA_OPTS", "-Xmx1g -XX:TieredStopAtLevel=1"),
            "--url", "http://x"));
  }

  @Test
  void theServicesLauncherHasItsDefaultsAndTakesTheEnvironmentsOptionsInstead() throws Exception {
    List<String> tail = List.of("-Djava.io.tmpdir=" + dir.resolve("var"), "-cp", "$RT/lib/*",
        "dev.rendezvous.app.RendezvousMain", "run", "--api-port=8090");
    assertEquals(concat(List.of("-XX:MaxRAMPercentage=25", "-XX:+ExitOnOutOfMemoryError",
        "-XX:+IgnoreUnrecognizedVMOptions", "-XX:-UseCodeCacheFlushing"), tail), run(service(), Map.of(), "run",
        "--api-port=8090"));
    assertEquals(concat(List.of("-Xmx768m"), tail), run(service(), Map.of("RDV_JAVA_OPTS", "-Xmx768m"), "run",
        "--api-port=8090"));
  }

  /** The service's launcher with its data directory in the test's (it makes it). */
  private String service() {
    return AgentIgnition.serviceLauncher().replace("/var/lib/rendezvous", dir.resolve("var").toString());
  }

  /** The launcher's java arguments, one per line, with the runtime's directory written as $RT. */
  private List<String> run(String launcher, Map<String, String> env, String... args) throws Exception {
    Path runtime = Files.createDirectories(dir.resolve("runtime"));
    Path java = Files.createDirectories(runtime.resolve("jre/bin")).resolve("java");
    Files.writeString(java, "#!/bin/bash\nprintf '%s\\n' \"$@\"\n");
    Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path script = dir.resolve("launcher");
    Files.writeString(script, launcher);
    List<String> cmd = new java.util.ArrayList<>(List.of("bash", script.toString()));
    cmd.addAll(List.of(args));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().remove("RDV_JAVA_OPTS");
    pb.environment().remove("RDV_AGENT_JAVA_OPTS");
    pb.environment().put("RDV_RUNTIME_DIR", runtime.toString());
    pb.environment().putAll(env);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(true, p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0, out);
    return out.lines().map(l -> l.replace(runtime.toString(), "$RT")).toList();
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> all = new java.util.ArrayList<>(a);
    all.addAll(b);
    return all;
  }
}
