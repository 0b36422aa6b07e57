package dev.rendezvous.agentbased.image;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;

/**
 * What a site runs from its ISO, laid out in a directory that becomes the ISO's {@code /rendezvous}: a Java runtime
 * made with {@code jlink} from this JDK ({@code jre/}), Rendezvous' own classes and libraries ({@code lib/}, every
 * class-path entry as a jar) and the agent's jar ({@code agent/rendezvous-agent.jar}). No download happens on a
 * site: a disconnected host has nothing to download from.
 *
 * <p>The runtime is made once per JDK and module list and kept in {@code ~/.cache/rendezvous} (jlink takes tens of
 * seconds). Blocking: run off any event loop.
 */
public final class RuntimeBundle {
  /**
   * The JDK modules Rendezvous, Kafka's broker, the embedded PostgreSQL's launcher and the agent use. Some are only
   * reached by reflection, so no tool finds them: jdk.security.auth is how zonky learns it runs as root (and must
   * start PostgreSQL in a user namespace).
   */
  static final List<String> MODULES = List.of("java.base", "java.logging", "java.management", "java.naming",
      "java.net.http", "java.security.jgss", "java.security.sasl", "java.sql", "java.xml", "java.desktop",
      "jdk.crypto.ec", "jdk.management", "jdk.unsupported", "jdk.zipfs", "jdk.naming.dns", "jdk.security.auth");
  public static final String JRE = "jre";
  public static final String LIB = "lib";
  public static final String AGENT_JAR = "agent/rendezvous-agent.jar";

  private RuntimeBundle() {}

  /**
   * Writes the bundle into {@code target} (made; must not exist).
   *
   * @param classPath what runs {@code dev.rendezvous.app.RendezvousMain}: jars and class directories
   * @param agentJar the agent's shaded jar
   */
  public static void write(Path target, List<Path> classPath, Path agentJar, Path cacheDir) throws IOException {
    if (!Files.isRegularFile(agentJar)) {
      throw new IOException("the agent jar " + agentJar + " is missing (mvn -DskipTests install builds it)");
    }
    Files.createDirectories(target.resolve(LIB));
    copyTree(runtime(cacheDir), target.resolve(JRE));
    int n = 0;
    for (Path entry : classPath) {
      String name = String.format("%03d-%s", n++, entry.getFileName().toString());
      if (Files.isDirectory(entry)) {
        jarDirectory(entry, target.resolve(LIB).resolve(name + ".jar"));
      } else if (Files.isRegularFile(entry) && entry.toString().endsWith(".jar")) {
        Files.copy(entry, target.resolve(LIB).resolve(name), StandardCopyOption.COPY_ATTRIBUTES);
      } else {
        // a site has nothing to fetch a missing class from: refused here, not found out there
        throw new IOException("class-path entry " + entry + (Files.exists(entry) ? " is neither a jar nor a directory"
            : " does not exist (mvn -DskipTests install builds it)"));
      }
    }
    Files.createDirectories(target.resolve(AGENT_JAR).getParent());
    Files.copy(agentJar, target.resolve(AGENT_JAR));
  }

  /** The bytes under {@code dir}, for the size the ISO grows by. */
  public static long size(Path dir) throws IOException {
    long[] total = {0};
    Files.walkFileTree(dir, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
        total[0] += attrs.isRegularFile() ? attrs.size() : 0;
        return FileVisitResult.CONTINUE;
      }
    });
    return total[0];
  }

  /** A jlinked runtime of {@link #MODULES}, made once into the cache (once per process at a time: synchronized). */
  static synchronized Path runtime(Path cacheDir) throws IOException {
    String javaHome = System.getProperty("java.home");
    Path jlink = Path.of(javaHome, "bin", "jlink");
    String key = hash(Runtime.version() + "|" + javaHome + "|" + String.join(",", MODULES));
    Path done = cacheDir.resolve("jre-" + Runtime.version().feature() + "-" + key);
    if (Files.isExecutable(done.resolve("bin/java"))) {
      return done;
    }
    if (!Files.isExecutable(jlink)) {
      throw new IOException("no jlink in " + javaHome + ": a JDK (not a JRE) makes the site's runtime"
          + " (Debian: openjdk-17-jdk-headless)");
    }
    Files.createDirectories(cacheDir);
    // unique per call: two images may be made at once, in one process or several
    Path tmp = cacheDir.resolve(done.getFileName() + ".part-" + java.util.UUID.randomUUID());
    deleteTree(tmp);
    List<String> cmd = new ArrayList<>(List.of(jlink.toString(), "--add-modules", String.join(",", MODULES),
        "--strip-debug", "--no-header-files", "--no-man-pages", "--compress=2", "--output", tmp.toString()));
    run(cmd, java.time.Duration.ofMinutes(10), "jlink", cacheDir.resolve(tmp.getFileName() + ".log"));
    try {
      Files.move(tmp, done, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      deleteTree(tmp);
      if (!Files.isExecutable(done.resolve("bin/java"))) {
        throw e;
      }
      // made meanwhile by another process: theirs is as good as ours
    }
    return done;
  }

  /** Runs a tool with its output in {@code log} (read only if it fails), within {@code limit}. */
  static void run(List<String> cmd, java.time.Duration limit, String what, Path log) throws IOException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    try {
      if (!p.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroyForcibly();
        throw new IOException(what + " did not finish within " + limit);
      }
      if (p.exitValue() != 0) {
        String out = Files.readString(log, StandardCharsets.UTF_8).strip();
        throw new IOException(what + " failed: " + (out.length() > 2000 ? "..." + out.substring(out.length() - 2000) : out));
      }
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while " + what + " ran", e);
    } finally {
      Files.deleteIfExists(log);
    }
  }

  private static void jarDirectory(Path dir, Path jar) throws IOException {
    try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out)) {
      List<Path> files;
      try (var walk = Files.walk(dir)) {
        files = walk.filter(Files::isRegularFile).sorted().toList();
      }
      for (Path f : files) {
        JarEntry e = new JarEntry(dir.relativize(f).toString().replace('\\', '/'));
        e.setTime(0);
        j.putNextEntry(e);
        Files.copy(f, j);
        j.closeEntry();
      }
    }
  }

  static void copyTree(Path from, Path to) throws IOException {
    try (var walk = Files.walk(from)) {
      for (Path p : walk.toList()) {
        Path dest = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(dest);
        } else {
          Files.copy(p, dest, StandardCopyOption.COPY_ATTRIBUTES);
        }
      }
    }
  }

  public static void deleteTree(Path dir) throws IOException {
    if (Files.exists(dir)) {
      try (var walk = Files.walk(dir)) {
        for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
  }

  private static String hash(String s) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)))
          .substring(0, 12);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
