package dev.rendezvous.containers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The images the build made (target/*.tar, target/images.txt), read with Debian's skopeo and umoci, never a Docker
 * daemon or a registry: each tarball's digest is the one images.txt names, and each image's own process (its
 * config's entry point, arguments, environment and user) starts from its unpacked root file system. A container
 * runtime is stood in for by unshare (own mount and pid namespaces: /proc and /dev as a runtime mounts them, gone
 * with the process) and chroot; so the network, cgroups and seccomp of a real runtime are not exercised.
 */
class ContainersTest {
  static final Path TARGET = Path.of("target").toAbsolutePath();
  static final ObjectMapper JSON = new ObjectMapper();
  static final String AGENT = "rendezvous-agent";
  static final String CONTROLLER = "rendezvous-controller";
  static final String SERVICE = "rendezvous";

  /** images.txt: name, then tag, then name@sha256:digest, by name. */
  static Map<String, String[]> images;

  @BeforeAll
  static void readImagesTxt() throws IOException {
    images = new LinkedHashMap<>();
    for (String line : Files.readAllLines(TARGET.resolve("images.txt"))) {
      String[] f = line.strip().split(" ");
      assertEquals(3, f.length, "images.txt: name, tag, reference by digest: " + line);
      images.put(f[0].substring(f[0].lastIndexOf('/') + 1), f);
    }
  }

  @Test
  void imagesTxtNamesEachTarballByTheDigestSkopeoReads() throws Exception {
    assertEquals(List.of(AGENT, CONTROLLER, SERVICE), List.copyOf(images.keySet()));
    for (String name : images.keySet()) {
      String[] line = images.get(name);
      JsonNode inspect = JSON.readTree(run(List.of("skopeo", "inspect", "oci-archive:" + tar(name)), 60).out());
      String digest = inspect.path("Digest").asText();
      assertTrue(digest.matches("sha256:[0-9a-f]{64}"), name + ": " + inspect);
      assertEquals(line[0] + "@" + digest, line[2], name + ": images.txt names the tarball's manifest digest");
      assertEquals(digest, Files.readString(TARGET.resolve("jib/" + name + ".digest")).strip(), "Jib's digest file");
      assertEquals("linux", inspect.path("Os").asText());
      assertEquals("amd64", inspect.path("Architecture").asText());
    }
    assertEquals(3, images.values().stream().map(l -> l[2]).distinct().count(), "three different images");
  }

  @Test
  void theThreeImagesShareOneRuntimeLayerAndTheServiceCarriesTheAgentsJar() throws Exception {
    List<String> agent = layers(AGENT);
    List<String> controller = layers(CONTROLLER);
    List<String> service = layers(SERVICE);
    // Jib's own (tiny) argument-file layer, then the runtime; then each program
    assertEquals(agent.subList(0, 2), controller.subList(0, 2), "agent and controller on the same runtime layer");
    assertEquals(agent.subList(0, 2), service.subList(0, 2), "agent and service on the same runtime layer");
    assertEquals(3, agent.size(), "agent: " + agent);
    assertEquals(3, controller.size(), "controller: " + controller);
    assertNotEquals(agent.get(2), controller.get(2));
    assertTrue(service.contains(agent.get(2)), "the service image holds the agent image's jar layer, served to hosts");
  }

  @Test
  void eachImageSaysHowItStarts() throws Exception {
    JsonNode agent = config(AGENT);
    assertEquals(List.of("/opt/java/bin/java", "-jar", "/opt/rendezvous/rendezvous-agent.jar"), strings(agent.path("Entrypoint")));
    assertTrue(agent.path("User").asText("").isEmpty(), "the agent runs as root, as upstream's agent container does");
    JsonNode controller = config(CONTROLLER);
    assertEquals(List.of("/opt/java/bin/java", "-jar", "/opt/rendezvous/rendezvous-controller.jar"),
        strings(controller.path("Entrypoint")));
    assertEquals("65532:65532", controller.path("User").asText());
    JsonNode service = config(SERVICE);
    assertEquals("/opt/java/bin/java", service.path("Entrypoint").path(0).asText());
    assertTrue(strings(service.path("Entrypoint")).contains("@/opt/rendezvous/java-args"), service.toString());
    assertEquals(List.of("run"), strings(service.path("Cmd")));
    assertEquals("65532:65532", service.path("User").asText());
    assertEquals("/var/lib/rendezvous", service.path("WorkingDir").asText());
    assertTrue(strings(service.path("Env")).contains("RDV_AGENT_JAR=/opt/rendezvous/rendezvous-agent.jar"),
        service.toString());
  }

  @Test
  void theControllerImageRunsHelpFromItsLayout() throws Exception {
    Bundle b = unpack(CONTROLLER);
    Result r = b.run(List.of("--help"), 60);
    assertEquals(0, r.code(), r.out());
    assertTrue(r.out().startsWith("usage: rendezvous-controller"), r.out());
    assertTrue(r.out().contains("--inventory-url"), r.out());
  }

  @Test
  void theAgentImageStartsItsAgent() throws Exception {
    Bundle b = unpack(AGENT);
    Result r = b.run(List.of("--help"), 60);
    assertEquals(0, r.code(), r.out());
    assertTrue(r.out().startsWith("usage: rendezvous-agent --url URL --infra-env-id UUID"), r.out());
    // without its flags the agent refuses to start and says what is missing
    Result bare = b.run(List.of(), 60);
    assertEquals(2, bare.code(), bare.out());
    assertTrue(bare.out().startsWith("rendezvous-agent: "), bare.out());
  }

  /**
   * The service image's own entry point as its own user, with its working directory, starts the whole system
   * (embedded PostgreSQL through /bin/sh, embedded Kafka) and answers /ready; then it is stopped.
   */
  @Test
  void theServiceImageStartsTheWholeSystemAndAnswersReady() throws Exception {
    Bundle b = unpack(SERVICE);
    Result help = b.run(List.of("help"), 60);
    assertTrue(help.out().contains("usage: rendezvous run"), help.out());
    int api = freePort();
    int image = freePort();
    // C1 only, as the repository's test JVMs (an operator's JAVA_TOOL_OPTIONS): the broker starts faster on 2 cores
    Process p = b.start(List.of("run", "--api-port=" + api, "--image-port=" + image),
        Map.of("JAVA_TOOL_OPTIONS", "-XX:TieredStopAtLevel=1"));
    try {
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
      String ready = null;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(150);
      while (ready == null && System.nanoTime() < deadline && p.isAlive()) {
        try {
          HttpResponse<String> resp = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + api + "/ready"))
              .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
          if (resp.statusCode() == 200) {
            ready = resp.body();
          }
        } catch (IOException notYet) {
          // not listening yet
        }
        if (ready == null) {
          Thread.sleep(500);
        }
      }
      String log = Files.readString(b.log);
      assertTrue(ready != null, "the service in the image never answered /ready:\n" + tail(log));
      assertEquals(JSON.readTree("{\"status\":\"ready\",\"database\":true,\"kafka\":true}"), JSON.readTree(ready));
      // its data where the image says: ./data under the working directory, owned by the image's user
      Path data = b.rootfs.resolve("var/lib/rendezvous/data");
      assertTrue(Files.isRegularFile(data.resolve("admin-token")), tail(log));
      assertTrue(Files.isDirectory(data.resolve("postgres")), tail(log));
      assertEquals(65532, (int) Files.getAttribute(data.resolve("postgres"), "unix:uid"));
      // stopped as a runtime stops a container: SIGTERM to its first process (unshare itself ignores it)
      p.toHandle().children().forEach(ProcessHandle::destroy);
      assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the service did not stop on SIGTERM:\n" + tail(Files.readString(b.log)));
    } finally {
      // --kill-child: the pid namespace's first process goes with unshare, and with it every process in it
      p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  // --- helpers

  static Path tar(String name) {
    return TARGET.resolve(name + ".tar");
  }

  static List<String> layers(String name) throws Exception {
    return strings(JSON.readTree(run(List.of("skopeo", "inspect", "oci-archive:" + tar(name)), 60).out()).path("Layers"));
  }

  static JsonNode config(String name) throws Exception {
    return JSON.readTree(run(List.of("skopeo", "inspect", "--config", "oci-archive:" + tar(name)), 60).out())
        .path("config");
  }

  static List<String> strings(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }

  /**
   * An image unpacked by umoci: its root file system and the process of the runtime configuration umoci wrote from the
   * image's config (entry point and Cmd, environment, working directory, user); {@code cmdCount} of its arguments are
   * the image's Cmd, which a run's own arguments replace.
   */
  record Bundle(Path rootfs, List<String> args, int cmdCount, List<String> env, String cwd, String userspec, Path log) {

    /** The image's process with {@code extra} in place of its Cmd, as {@code docker run IMAGE extra...}. */
    ProcessBuilder builder(List<String> extra) {
      List<String> argv = new ArrayList<>(List.of("/usr/bin/unshare", "--mount", "--pid", "--fork", "--kill-child",
          // own mount and pid namespaces: /proc and /dev mounted into the root file system as a runtime mounts them,
          // gone with the namespace; chroot as the image's user; the image's working directory through its own
          // /bin/sh when it is not /
          "/bin/sh", "-c", "r=\"$0\"; u=\"$1\"; shift; "
              + "/usr/bin/mount -t proc proc \"$r/proc\" && /usr/bin/mount --rbind /dev \"$r/dev\" && "
              + "exec /usr/sbin/chroot --userspec=\"$u\" \"$r\" "
              + (cwd.equals("/") ? "" : "/bin/sh -c 'cd \"$0\" && exec \"$@\"' " + "'" + cwd + "' ") + "\"$@\"",
          rootfs.toString(), userspec));
      argv.addAll(args.subList(0, args.size() - cmdCount));
      argv.addAll(extra);
      ProcessBuilder pb = new ProcessBuilder(argv);
      // the image's environment only (the host's LANG, for one, names a locale the image does not have: initdb fails)
      pb.environment().clear();
      for (String e : env) {
        int eq = e.indexOf('=');
        pb.environment().put(e.substring(0, eq), e.substring(eq + 1));
      }
      return pb.redirectErrorStream(true);
    }

    Result run(List<String> extra, int seconds) throws Exception {
      return ContainersTest.run(builder(extra), seconds);
    }

    Process start(List<String> extra, Map<String, String> moreEnv) throws IOException {
      ProcessBuilder pb = builder(extra);
      pb.environment().putAll(moreEnv);
      return pb.redirectOutput(log.toFile()).start();
    }
  }

  /** umoci unpack of the image's tarball (an OCI layout once untarred), into target/bundles/NAME. */
  static Bundle unpack(String name) throws Exception {
    Assumptions.assumeTrue(new com.sun.security.auth.module.UnixSystem().getUid() == 0,
        "starting an image's process needs root (unshare, mount, chroot)");
    Path dir = TARGET.resolve("bundles/" + name);
    run(List.of("rm", "-rf", dir.toString()), 60);
    Files.createDirectories(dir.resolve("layout"));
    run(List.of("tar", "-xf", tar(name).toString(), "-C", dir.resolve("layout").toString()), 60);
    String[] line = images.get(name);
    // Jib's index names the manifest NAME:TAG (org.opencontainers.image.ref.name), which umoci takes as the tag
    run(List.of("umoci", "unpack", "--image", dir.resolve("layout") + ":" + line[0] + ":" + line[1],
        dir.resolve("bundle").toString()), 120);
    JsonNode process = JSON.readTree(dir.resolve("bundle/config.json").toFile()).path("process");
    Path rootfs = dir.resolve("bundle/rootfs");
    Files.createDirectories(rootfs.resolve("proc"));
    Files.createDirectories(rootfs.resolve("dev"));
    JsonNode user = process.path("user");
    return new Bundle(rootfs, strings(process.path("args")), strings(config(name).path("Cmd")).size(),
        strings(process.path("env")).stream().filter(e -> !e.startsWith("TERM=")).toList(),
        process.path("cwd").asText("/"), user.path("uid").asInt() + ":" + user.path("gid").asInt(),
        dir.resolve("process.log"));
  }

  record Result(int code, String out) {}

  static Result run(List<String> command, int seconds) throws Exception {
    return run(new ProcessBuilder(command).redirectErrorStream(true), seconds);
  }

  static Result run(ProcessBuilder pb, int seconds) throws Exception {
    Process p;
    try {
      p = pb.start();
    } catch (IOException e) {
      throw new AssertionError(pb.command().get(0) + " did not start (skopeo and umoci are Debian packages; "
          + "scripts/install-test-tools installs them): " + e.getMessage(), e);
    }
    p.getOutputStream().close();
    java.util.concurrent.CompletableFuture<String> out = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
      try {
        return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        return e.toString();
      }
    });
    if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError(String.join(" ", pb.command()) + " did not end in " + seconds + " s: " + out.getNow(""));
    }
    Result r = new Result(p.exitValue(), out.get(10, TimeUnit.SECONDS));
    String tool = Path.of(pb.command().get(0)).getFileName().toString();
    if ((tool.equals("skopeo") || tool.equals("umoci") || tool.equals("tar") || tool.equals("rm")) && r.code() != 0) {
      throw new AssertionError(String.join(" ", pb.command()) + " failed (" + r.code + "): " + r.out());
    }
    return r;
  }

  static int freePort() throws IOException {
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  static String tail(String log) {
    return log.length() <= 6000 ? log : log.substring(log.length() - 6000);
  }
}
