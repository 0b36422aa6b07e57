package dev.rendezvous.app;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The cluster an installation brings up, SIMULATED: no OpenShift can run here, so its API is fabric8's Kubernetes
 * mock server in CRUD mode (the controller module's MockClusterMain, in a JVM of its own because the mock server
 * needs the controller's Jackson), and the test plays what would act in it: bootkube applying the bootstrap's
 * manifests (it starts the controller the Job describes), the kubelets (CSRs, nodes, Ready) and the operators.
 * The controller itself is the real one, its own jar, as the Job's container would run it.
 */
final class NewCluster implements AutoCloseable {
  static final Path CONTROLLER = NetnsAgents.ROOT.resolve("controller");
  static final Path CONTROLLER_JAR = CONTROLLER.resolve("target/rendezvous-controller.jar");
  static final Path TEST_CLASSPATH = CONTROLLER.resolve("target/test-classpath.txt");
  private static final String REPLY = "mock-cluster> ";

  private final Process api;
  private final Writer commands;
  private final BufferedReader answers;
  private final Path kubeconfig;
  private final Path logs;
  private Process controller;

  private NewCluster(Process api, Path kubeconfig, BufferedReader answers, Path logs) {
    this.api = api;
    this.commands = new java.io.OutputStreamWriter(api.getOutputStream(), StandardCharsets.UTF_8);
    this.answers = answers;
    this.kubeconfig = kubeconfig;
    this.logs = logs;
  }

  /** Why the new cluster cannot be simulated here, or null. */
  static String unavailable() {
    if (!Files.isRegularFile(CONTROLLER_JAR)) {
      return "the controller jar " + CONTROLLER_JAR + " is not built (mvn -pl agent -am package)";
    }
    return Files.isRegularFile(TEST_CLASSPATH) ? null : TEST_CLASSPATH + " is missing (the controller's test build writes it)";
  }

  /** The new cluster's API, up; its log goes to {@code logs}/mock-cluster.log. */
  static NewCluster start(Path logs) throws IOException {
    String cp = String.join(java.io.File.pathSeparator, CONTROLLER.resolve("target/test-classes").toString(),
        CONTROLLER.resolve("target/classes").toString(), Files.readString(TEST_CLASSPATH).strip());
    Process p = new ProcessBuilder(ChildJvm.command("256m", "-cp", cp,
        "dev.rendezvous.controller.testing.MockClusterMain", logs.toString()))
        .redirectError(ProcessBuilder.Redirect.appendTo(logs.resolve("mock-cluster.log").toFile())).start();
    BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
    String first = answer(in, logs);
    if (!first.startsWith("ok ")) {
      p.destroyForcibly();
      throw new IOException("the mock cluster did not start: " + first);
    }
    return new NewCluster(p, Path.of(first.substring(3)), in, logs);
  }

  /** Sends one command; its answer (after "ok", trimmed), or an exception with the mock cluster's error. */
  synchronized String send(String command) {
    try {
      commands.write(command + "\n");
      commands.flush();
      String a = answer(answers, logs);
      if (!a.startsWith("ok")) {
        throw new IllegalStateException(command + ": " + a);
      }
      return a.substring(2).strip();
    } catch (IOException e) {
      throw new IllegalStateException("mock cluster gone: " + e, e);
    }
  }

  /** The next answer; log lines on the way go to the mock cluster's log. */
  private static String answer(BufferedReader answers, Path logs) throws IOException {
    for (String line; (line = answers.readLine()) != null; ) {
      if (line.startsWith(REPLY)) {
        return line.substring(REPLY.length());
      }
      Files.writeString(logs.resolve("mock-cluster.log"), line + "\n", java.nio.file.StandardOpenOption.APPEND,
          java.nio.file.StandardOpenOption.CREATE);
    }
    throw new IOException("the mock cluster's process ended");
  }

  // ---- bootkube ---------------------------------------------------------------------------------------------

  /** The controller's settings as the Job in the bootstrap's manifest gives them: env values, the token's Secret. */
  record JobSettings(Map<String, String> env) {
    private static final Pattern ENV = Pattern.compile("- \\{name: (\\w+), value: \"([^\"]*)\"}");
    private static final Pattern TOKEN = Pattern.compile("pull-secret-token: \"([^\"]*)\"");

    static JobSettings parse(String manifest) {
      Map<String, String> env = new HashMap<>();
      Matcher m = ENV.matcher(manifest);
      while (m.find()) {
        env.put(m.group(1), m.group(2));
      }
      // the Job takes PULL_SECRET_TOKEN from the Secret in the same file (secretKeyRef)
      Matcher t = TOKEN.matcher(manifest);
      if (!manifest.contains("kind: Job") || !manifest.contains("secretKeyRef") || !t.find()) {
        throw new IllegalStateException("not the controller's Job and Secret:\n" + manifest);
      }
      env.put("PULL_SECRET_TOKEN", t.group(1));
      return new JobSettings(Map.copyOf(env));
    }
  }

  /**
   * As bootkube would apply the Job: the real controller, its own jar, with the Job's environment, outside the
   * cluster through the mock API's kubeconfig. Its polls are shortened by flags so the test runs in seconds.
   */
  void startController(JobSettings job) throws IOException {
    List<String> cmd = ChildJvm.command("256m", "-jar",
        CONTROLLER_JAR.toString(), "--kubeconfig=" + kubeconfig,
        "--check-interval-seconds=0.5", "--operator-poll-seconds=0.5", "--router-ca-interval-seconds=0.5",
        "--fetch-retry-interval-seconds=0.5", "--installation-poll-seconds=1", "--ready-poll-seconds=0.5",
        "--reaction-delay-seconds=0.1", "--summary-logs-period-seconds=5", "--logs-upload-period-seconds=600",
        "--retry-base-delay-ms=100", "--retry-max-delay-ms=1000", "--request-timeout-seconds=10");
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(logs.resolve("controller.log").toFile()));
    pb.environment().putAll(job.env());
    controller = pb.start();
  }

  /** The kubeconfig of the mock cluster's API (what auth/kubeconfig would reach on a real cluster). */
  Path kubeconfig() {
    return kubeconfig;
  }

  boolean controllerStarted() {
    return controller != null;
  }

  /** The controller's exit status once it ended on its own, else null. */
  Integer controllerExit() {
    return controller != null && !controller.isAlive() ? controller.exitValue() : null;
  }

  // ---- kubelets and operators ---------------------------------------------------------------------------------

  /** A kubelet registering: its client CSR and its node, not Ready yet. */
  void kubeletRegisters(String node, String ip, String role) {
    send("csr csr-" + node + " " + node);
    send("node " + node + " " + ip + " " + role);
  }

  boolean csrApproved(String node) {
    return Boolean.parseBoolean(send("approved csr-" + node));
  }

  void nodeReady(String node) {
    send("node-ready " + node);
  }

  boolean controllerReadyEvent() {
    return Boolean.parseBoolean(send("event assisted-installer AssistedControllerIsReady"));
  }

  /** What the operators do once the control plane is up: console and the cluster version Available, the ingress CA. */
  void operatorsAvailable(String version, String ingressCaPem) {
    send("cluster-version " + version);
    send("operator console " + version);
    send("ingress-ca " + Base64.getEncoder().encodeToString(ingressCaPem.getBytes(StandardCharsets.UTF_8)));
  }

  @Override
  public void close() throws Exception {
    if (controller != null) {
      controller.destroy();
      if (!controller.waitFor(10, TimeUnit.SECONDS)) {
        controller.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    }
    try {
      commands.write("quit\n");
      commands.flush();
    } catch (IOException e) {
      // already gone
    }
    if (!api.waitFor(10, TimeUnit.SECONDS)) {
      api.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }
}
