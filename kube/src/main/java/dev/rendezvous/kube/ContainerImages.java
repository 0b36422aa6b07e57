package dev.rendezvous.kube;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The container images this build made ({@code containers/target/images.txt}, written by the containers module: one
 * line per image, {@code name tag name@sha256:digest}), by image name without its registry prefix
 * ({@code rendezvous}, {@code rendezvous-agent}, {@code rendezvous-controller}). Empty when the file is missing (the
 * images were not built): callers keep their defaults then.
 */
public record ContainerImages(Map<String, String> byDigest) {
  /** Where the containers module writes the file, from the repository root (where {@code ./rendezvous} runs). */
  public static final Path DEFAULT_FILE = Path.of("containers", "target", "images.txt");
  public static final String SERVICE = "rendezvous";
  public static final String CONTROLLER = "rendezvous-controller";
  public static final String AGENT = "rendezvous-agent";

  public ContainerImages {
    byDigest = Map.copyOf(byDigest);
  }

  public static ContainerImages read(Path file) {
    if (!Files.isRegularFile(file)) {
      return new ContainerImages(Map.of());
    }
    Map<String, String> images = new LinkedHashMap<>();
    try {
      for (String line : Files.readAllLines(file)) {
        String l = line.strip();
        if (l.isEmpty() || l.startsWith("#")) {
          continue;
        }
        String[] f = l.split("\\s+");
        if (f.length != 3 || !f[2].equals(f[0] + "@" + f[2].substring(f[2].indexOf('@') + 1))
            || !f[2].substring(f[2].indexOf('@') + 1).matches("sha256:[0-9a-f]{64}")) {
          throw new IllegalArgumentException(file + ": not 'name tag name@sha256:digest': " + line);
        }
        images.put(f[0].substring(f[0].lastIndexOf('/') + 1), f[2]);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
    return new ContainerImages(images);
  }

  /** {@code name@sha256:...} of the image called {@code name} (without registry prefix), if it was built. */
  public Optional<String> byDigest(String name) {
    return Optional.ofNullable(byDigest.get(name));
  }
}
