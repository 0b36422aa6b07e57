package dev.rendezvous.agentbased.image;

import dev.rendezvous.image.IsoLayout;
import dev.rendezvous.image.NewcArchive;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;

/**
 * The agent-based ISO: a CoreOS live ISO re-mastered with the site's runtime as {@code /rendezvous} (xorriso, the
 * base ISO's boot setup replayed with its hybrid MBR/GPT, which the image module's Java writer does not write) and the site's Ignition embedded where CoreOS reads it
 * on boot (the Ignition area, as {@code coreos-installer iso ignition embed} does). The live system mounts its boot
 * medium at {@code /run/media/iso}, so the site's units run Java from there. Blocking.
 */
public final class AgentIso {
  public static final String RUNTIME_DIR = "/rendezvous";
  /** Where the runtime is seen on a booted host. */
  public static final String RUNTIME_ON_HOST = "/run/media/iso" + RUNTIME_DIR;

  private AgentIso() {}

  /** Whether xorriso can be run here. */
  public static String xorrisoProblem() {
    try {
      Process p = new ProcessBuilder("xorriso", "-version").redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      return p.waitFor(20, TimeUnit.SECONDS) && p.exitValue() == 0 ? null : "xorriso -version failed";
    } catch (IOException e) {
      return "xorriso is not installed (Debian package xorriso; scripts/install-test-tools installs it)";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted";
    }
  }

  /** Writes {@code target} from {@code base}, with {@code runtime} as /rendezvous and {@code ignition} embedded. */
  public static void write(Path base, Path runtime, byte[] ignition, Path target) throws IOException {
    Files.deleteIfExists(target);
    List<String> cmd = new ArrayList<>(List.of("xorriso", "-abort_on", "FAILURE", "-indev", base.toString(),
        "-outdev", target.toString(), "-boot_image", "any", "replay", "-map", runtime.toString(), RUNTIME_DIR));
    RuntimeBundle.run(cmd, Duration.ofMinutes(30), "xorriso", target.resolveSibling(target.getFileName() + ".log"));
    embedIgnition(target, ignition);
  }

  /** Puts {@code ignition} into the ISO's Ignition area, the rest of the area zeroed. */
  static void embedIgnition(Path iso, byte[] ignition) throws IOException {
    IsoLayout layout = IsoLayout.read(iso);
    IsoLayout.EmbedArea area = layout.ignitionArea()
        .orElseThrow(() -> new IOException(iso + " has no Ignition area: not a CoreOS live ISO"));
    byte[] archive = NewcArchive.ignitionArchive(ignition);
    if (archive.length > area.length()) {
      throw new IOException("the site's Ignition (" + archive.length + " bytes compressed) does not fit the ISO's"
          + " Ignition area (" + area.length() + " bytes)");
    }
    ByteBuffer buf = ByteBuffer.allocate((int) area.length());
    buf.put(archive).position(0);
    try (FileChannel ch = FileChannel.open(iso, StandardOpenOption.WRITE)) {
      long at = area.offset();
      while (buf.hasRemaining()) {
        at += ch.write(buf, at);
      }
      ch.force(true);
    }
  }

  /** The Ignition embedded in {@code iso}, as CoreOS would read it: the area's gzip'd cpio, its {@code config.ign}. */
  public static byte[] readIgnition(Path iso) throws IOException {
    IsoLayout layout = IsoLayout.read(iso);
    IsoLayout.EmbedArea area = layout.ignitionArea().orElseThrow(() -> new IOException(iso + " has no Ignition area"));
    byte[] bytes = new byte[(int) area.length()];
    try (FileChannel ch = FileChannel.open(iso, StandardOpenOption.READ)) {
      ByteBuffer b = ByteBuffer.wrap(bytes);
      long at = area.offset();
      while (b.hasRemaining()) {
        int n = ch.read(b, at);
        if (n < 0) {
          throw new IOException("the Ignition area ends past the ISO");
        }
        at += n;
      }
    }
    try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(bytes))) {
      return configIgn(in.readAllBytes());
    } catch (java.util.zip.ZipException e) {
      throw new IOException("the Ignition area holds no config (not gzip)", e);
    }
  }

  /** {@code config.ign} of a newc cpio archive. */
  private static byte[] configIgn(byte[] cpio) throws IOException {
    int at = 0;
    while (at + 110 <= cpio.length) {
      String header = new String(cpio, at, 110, StandardCharsets.US_ASCII);
      if (!header.startsWith("070701")) {
        break;
      }
      int size = Integer.parseInt(header.substring(54, 62), 16);
      int nameSize = Integer.parseInt(header.substring(94, 102), 16);
      String name = new String(cpio, at + 110, nameSize - 1, StandardCharsets.US_ASCII);
      int data = align4(at + 110 + nameSize);
      if (name.equals("config.ign")) {
        return java.util.Arrays.copyOfRange(cpio, data, data + size);
      }
      if (name.equals("TRAILER!!!")) {
        break;
      }
      at = align4(data + size);
    }
    throw new IOException("no config.ign in the ISO's Ignition area");
  }

  private static int align4(int n) {
    return (n + 3) & ~3;
  }

}
