package dev.rendezvous.service.install;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The real generator: runs the cluster release's {@code openshift-install} as upstream does: {@code create
 * manifests} on the install-config, the custom manifests copied into {@code manifests/} and {@code openshift/},
 * then {@code create ignition-configs} (or {@code create single-node-ignition-config}, whose
 * {@code bootstrap-in-place-for-live-iso.ign} becomes bootstrap.ign), with the release image given through
 * {@code OPENSHIFT_INSTALL_RELEASE_IMAGE_OVERRIDE}. The binary is a configured path, or extracted once per release
 * from the release image with {@code oc adm release extract --command=openshift-install} into a cache directory.
 */
public final class OpenshiftInstallGenerator implements ClusterArtifactsGenerator {
  public static final String NAME = "openshift-install";

  /** Where the binary for a release comes from. */
  public interface BinaryResolver {
    Path resolve(GenerationRequest r) throws GenerationException;
  }

  private final BinaryResolver binary;
  private final Path workRoot;
  private final Duration timeout;

  public OpenshiftInstallGenerator(BinaryResolver binary, Path workRoot, Duration timeout) {
    this.binary = binary;
    this.workRoot = workRoot;
    this.timeout = timeout;
  }

  /** A fixed binary. */
  public static BinaryResolver path(Path p) {
    return r -> {
      if (!Files.isExecutable(p)) {
        throw new GenerationException("openshift-install " + p + " is not an executable file");
      }
      return p;
    };
  }

  /**
   * The release's own binary, extracted with {@code oc} (on the PATH) into {@code cache/<version>/} the first time,
   * authenticating to the registry with the cluster's pull secret.
   */
  public static BinaryResolver extractWithOc(Path cache, Duration timeout) {
    return r -> {
      Path dir = cache.resolve(r.openshiftVersion());
      Path bin = dir.resolve("openshift-install");
      if (Files.isExecutable(bin)) {
        return bin;
      }
      try {
        Files.createDirectories(dir);
        Path auth = Files.createTempFile(cache, "pull-secret", ".json");
        try {
          Files.writeString(auth, r.config().pullSecret(), StandardCharsets.UTF_8);
          run(List.of("oc", "adm", "release", "extract", "--command=openshift-install", "--to=" + dir,
              "--registry-config=" + auth, r.releaseImage()), dir, Map.of(), timeout, "oc adm release extract");
        } finally {
          Files.deleteIfExists(auth);
        }
      } catch (IOException e) {
        throw new GenerationException("could not extract openshift-install from " + r.releaseImage() + ": " + e.getMessage(), e);
      }
      if (!Files.isExecutable(bin)) {
        throw new GenerationException("oc adm release extract left no openshift-install in " + dir);
      }
      return bin;
    };
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public boolean realPayload() {
    return true;
  }

  @Override
  public ClusterArtifacts generate(GenerationRequest r) throws GenerationException {
    Path bin = binary.resolve(r);
    Path dir = null;
    try {
      Files.createDirectories(workRoot);
      dir = Files.createTempDirectory(workRoot, "cluster-" + r.clusterId() + "-");
      Files.writeString(dir.resolve("install-config.yaml"), r.installConfigYaml(), StandardCharsets.UTF_8);
      Map<String, String> env = Map.of("OPENSHIFT_INSTALL_RELEASE_IMAGE_OVERRIDE", r.releaseImage() == null ? "" : r.releaseImage());
      run(List.of(bin.toString(), "create", "manifests", "--dir", dir.toString()), dir, env, timeout, "openshift-install create manifests");
      for (GenerationRequest.Manifest m : r.manifests()) {
        Path folder = Files.createDirectories(dir.resolve(m.folder()));
        Files.writeString(folder.resolve(m.fileName()), m.content(), StandardCharsets.UTF_8);
      }
      boolean sno = r.config().singleNode();
      run(List.of(bin.toString(), "create", sno ? "single-node-ignition-config" : "ignition-configs", "--dir", dir.toString()),
          dir, env, timeout, "openshift-install create " + (sno ? "single-node-ignition-config" : "ignition-configs"));
      Map<String, byte[]> files = new LinkedHashMap<>();
      files.put(ClusterArtifacts.BOOTSTRAP, read(dir, sno ? "bootstrap-in-place-for-live-iso.ign" : "bootstrap.ign"));
      // a single node's host Ignition is merged over the master.ign bootkube renders; an empty config if none was made
      files.put(ClusterArtifacts.MASTER, sno && !Files.exists(dir.resolve("master.ign"))
          ? "{\"ignition\":{\"version\":\"3.2.0\"}}".getBytes(StandardCharsets.UTF_8) : read(dir, "master.ign"));
      if (Files.exists(dir.resolve("worker.ign")) || !sno) {
        files.put(ClusterArtifacts.WORKER, read(dir, "worker.ign"));
      }
      files.put(ClusterArtifacts.METADATA, read(dir, "metadata.json"));
      files.put(ClusterArtifacts.KUBECONFIG_NOINGRESS, read(dir, "auth/kubeconfig"));
      files.put(ClusterArtifacts.KUBEADMIN_PASSWORD, read(dir, "auth/kubeadmin-password"));
      files.put(ClusterArtifacts.INSTALL_CONFIG, r.installConfigYaml().getBytes(StandardCharsets.UTF_8));
      return new ClusterArtifacts(files, NAME, true);
    } catch (IOException e) {
      throw new GenerationException("openshift-install failed: " + e.getMessage(), e);
    } finally {
      delete(dir);
    }
  }

  private static byte[] read(Path dir, String name) throws GenerationException {
    Path p = dir.resolve(name);
    try {
      return Files.readAllBytes(p);
    } catch (IOException e) {
      throw new GenerationException("openshift-install left no " + name, e);
    }
  }

  /** Runs a command to its end (or the timeout); a non-zero exit is a failure whose reason is its output's tail. */
  static void run(List<String> cmd, Path dir, Map<String, String> env, Duration timeout, String what)
      throws GenerationException {
    try {
      Path log = Files.createTempFile("rdv-generate", ".log");
      try {
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
            .redirectOutput(log.toFile());
        pb.environment().putAll(env);
        Process p = pb.start();
        if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
          p.destroyForcibly();
          throw new GenerationException(what + " did not finish within " + timeout.toMinutes() + " minutes");
        }
        if (p.exitValue() != 0) {
          throw new GenerationException(what + " exited " + p.exitValue() + ": " + tail(Files.readString(log, StandardCharsets.UTF_8)));
        }
      } finally {
        Files.deleteIfExists(log);
      }
    } catch (IOException e) {
      throw new GenerationException(what + " could not run: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new GenerationException(what + " was interrupted", e);
    }
  }

  private static String tail(String s) {
    String t = s.strip();
    return t.length() <= 2000 ? t : "..." + t.substring(t.length() - 2000);
  }

  private static void delete(Path dir) {
    if (dir == null) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      List<Path> all = new ArrayList<>(s.sorted(Comparator.reverseOrder()).toList());
      for (Path p : all) {
        Files.deleteIfExists(p);
      }
    } catch (IOException ignored) {
      // a temporary directory left behind is harmless
    }
  }
}
