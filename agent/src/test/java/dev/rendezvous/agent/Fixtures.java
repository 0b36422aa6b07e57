package dev.rendezvous.agent;

import dev.rendezvous.agent.step.HostRoot;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The captured (kvm-vm) and hand-written (synthetic-server) host trees; see fixtures/README.md. */
public final class Fixtures {
  public static final Path BASE = Path.of("src/test/resources/fixtures");
  public static final String VM = "kvm-vm";
  public static final String SERVER = "synthetic-server";

  private Fixtures() {}

  public static HostRoot root(String fixture) {
    return new HostRoot(BASE.resolve(fixture).resolve("root"));
  }

  public static String command(String fixture, String file) {
    try {
      return Files.readString(BASE.resolve(fixture).resolve("commands").resolve(file));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static int rc(String fixture, String file) {
    Path p = BASE.resolve(fixture).resolve("commands").resolve(file);
    try {
      return Files.exists(p) ? Integer.parseInt(Files.readString(p).trim()) : 0;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
