package dev.rendezvous.image;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.tukaani.xz.XZInputStream;

/** Test ISOs: the real CoreOS fixtures (decompressed into a temp dir) and CoreOS-like ISOs built with xorriso. */
final class TestIsos {

  static final Path FIXTURES = locateFixtures();
  static final String KARGS = "random.trust_cpu=on rd.luks.options=discard coreos.liveiso=rhcos-9.6.20250523-0 "
      + "ignition.firstboot ignition.platform.id=metal";
  static final int KARGS_SIZE = 1139;

  private TestIsos() {}

  private static Path locateFixtures() {
    String env = System.getenv("RDV_COREOS_ISO_FIXTURES");
    return Path.of(env != null ? env : "/work/shared/fixtures/coreos-iso");
  }

  /** Decompresses fixture {@code name}.iso.xz into {@code dir}. */
  static Path fixture(String name, Path dir) throws IOException {
    Path xz = FIXTURES.resolve(name + ".iso.xz");
    if (!Files.isRegularFile(xz)) {
      fail("fixture " + xz + " missing (set RDV_COREOS_ISO_FIXTURES to the coreos-iso fixtures directory)");
    }
    Path out = dir.resolve(name + ".iso");
    try (InputStream in = new XZInputStream(Files.newInputStream(xz)); OutputStream o = Files.newOutputStream(out)) {
      in.transferTo(o);
    }
    return out;
  }

  /** Fails the test with the Debian package to install when a tool is missing. */
  static void requireTool(String tool, String debianPackage) {
    try {
      Process p = new ProcessBuilder("sh", "-c", "command -v " + tool).start();
      if (p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0) {
        return;
      }
    } catch (IOException e) {
      // fall through
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    fail(tool + " not found: install the Debian package '" + debianPackage + "' (apt-get install -y " + debianPackage + ")");
  }

  /** Runs a shell pipeline, returns stdout; fails the test on a non-zero exit. */
  static byte[] sh(Path dir, String script) throws IOException, InterruptedException {
    Process p = new ProcessBuilder("bash", "-o", "pipefail", "-c", script).directory(dir.toFile()).start();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Thread t = new Thread(() -> {
      try {
        p.getErrorStream().transferTo(err);
      } catch (IOException ignored) {
        // process ended
      }
    });
    t.start();
    byte[] out = p.getInputStream().readAllBytes();
    p.waitFor(5, TimeUnit.MINUTES);
    t.join();
    if (p.exitValue() != 0) {
      fail("command failed (" + p.exitValue() + "): " + script + "\n" + err.toString(StandardCharsets.UTF_8));
    }
    return out;
  }

  /** Options for {@link #buildCoreosLike}. */
  record Spec(String volumeId, int rootfsBytes, boolean igninfo, boolean kargsJson, boolean legacyHeaders,
      String ignitionFile, int initrdBytes) {
    Spec(String volumeId, int rootfsBytes, boolean igninfo, boolean kargsJson, boolean legacyHeaders,
        String ignitionFile) {
      this(volumeId, rootfsBytes, igninfo, kargsJson, legacyHeaders, ignitionFile, 300_003);
    }
  }

  static Spec defaultSpec() {
    return new Spec("rhcos-9.6.20250523-0", 3 * 1024 * 1024 + 123, true, true, true, "ignition.img");
  }

  /**
   * A CoreOS-like live ISO (reference section 8): ignition.img of 256 KiB zeros, karg areas in
   * grub.cfg and isolinux.cfg, igninfo.json/kargs.json and optionally the legacy coreiso+/coreKarg
   * system-area headers, El Torito BIOS+EFI. Two passes so the headers hold the final LBAs.
   */
  static Path buildCoreosLike(Path dir, Spec spec) throws IOException, InterruptedException {
    requireTool("xorriso", "xorriso");
    Path tree = Files.createDirectories(dir.resolve("tree-" + spec.volumeId()));
    Files.createDirectories(tree.resolve("coreos"));
    Files.createDirectories(tree.resolve("EFI/redhat"));
    Files.createDirectories(tree.resolve("isolinux"));
    Files.createDirectories(tree.resolve("images/pxeboot"));
    String pad = "#".repeat(KARGS_SIZE - KARGS.length() - 1);
    String grubHead = "set timeout=5\nmenuentry 'RHEL CoreOS (Live)' --class fedora {\n\tlinux /images/pxeboot/vmlinuz ";
    String grub = grubHead + KARGS + "\n" + pad + "# COREOS_KARG_EMBED_AREA\n"
        + "\tinitrd /images/pxeboot/initrd.img /images/ignition.img\n}\n";
    String isoHead = "serial 0\ndefault linux\nlabel linux\n  menu label ^RHEL CoreOS (Live)\n  kernel /images/pxeboot/vmlinuz\n"
        + "  append initrd=/images/pxeboot/initrd.img,/images/ignition.img ";
    String isolinux = isoHead + KARGS + "\n" + pad + "# COREOS_KARG_EMBED_AREA\n\nlabel other\n  append foo\n";
    Files.writeString(tree.resolve("EFI/redhat/grub.cfg"), grub);
    Files.writeString(tree.resolve("isolinux/isolinux.cfg"), isolinux);
    if (spec.igninfo()) {
      Files.writeString(tree.resolve("coreos/igninfo.json"), "{\"file\": \"images/ignition.img\"}\n");
    }
    if (spec.kargsJson()) {
      Files.writeString(tree.resolve("coreos/kargs.json"), "{\n  \"default\": \"" + KARGS + "\",\n  \"files\": [\n"
          + "    {\"end\": \"\\n\", \"offset\": " + grubHead.length() + ", \"pad\": \"#\", \"path\": \"EFI/redhat/grub.cfg\"},\n"
          + "    {\"end\": \"\\n\", \"offset\": " + isoHead.length() + ", \"pad\": \"#\", \"path\": \"isolinux/isolinux.cfg\"}\n"
          + "  ],\n  \"size\": " + KARGS_SIZE + "\n}\n");
    }
    Files.write(tree.resolve("isolinux/isolinux.bin"), new byte[4096]);
    Files.write(tree.resolve("images/" + spec.ignitionFile()), new byte[262144]);
    Files.write(tree.resolve("images/efiboot.img"), new byte[65536]);
    Random r = new Random(42);
    Files.write(tree.resolve("images/pxeboot/vmlinuz"), random(r, 200_001));
    writeRandom(tree.resolve("images/pxeboot/initrd.img"), r, spec.initrdBytes());
    writeRandom(tree.resolve("images/pxeboot/rootfs.img"), r, spec.rootfsBytes());

    Path iso = dir.resolve(spec.volumeId() + ".iso");
    Path sa = dir.resolve("sa-" + spec.volumeId() + ".bin");
    Files.write(sa, new byte[32768]);
    String cmd = "xorriso -as mkisofs -quiet -o " + iso + " -V " + spec.volumeId()
        + " -R -J -joliet-long --sort-weight 100 /images/" + spec.ignitionFile()
        + " -b isolinux/isolinux.bin -c isolinux/boot.cat -no-emul-boot -boot-load-size 4 -boot-info-table"
        + " -eltorito-alt-boot -e images/efiboot.img -no-emul-boot -G " + sa + " " + tree + " 2>/dev/null";
    sh(dir, cmd);
    if (spec.legacyHeaders()) {
      IsoFileSystem fs = IsoFileSystem.read(iso);
      long ign = fs.find("images/" + spec.ignitionFile()).orElseThrow().offset();
      long grubOff = fs.find("EFI/redhat/grub.cfg").orElseThrow().offset() + grubHead.length();
      long isoOff = fs.find("isolinux/isolinux.cfg").orElseThrow().offset() + isoHead.length();
      ByteBuffer b = ByteBuffer.allocate(32768).order(ByteOrder.LITTLE_ENDIAN);
      b.position(32672);
      b.put("coreKarg".getBytes(StandardCharsets.US_ASCII)).putLong(KARGS_SIZE).putLong(grubOff)
          .putLong(grubOff).putLong(isoOff);
      b.position(32744);
      b.put("coreiso+".getBytes(StandardCharsets.US_ASCII)).putLong(ign).putLong(262144);
      Files.write(sa, b.array());
      sh(dir, cmd); // same options: same LBAs
      IsoFileSystem again = IsoFileSystem.read(iso);
      if (again.find("images/" + spec.ignitionFile()).orElseThrow().offset() != ign) {
        fail("xorriso second pass moved ignition.img");
      }
    }
    return iso;
  }

  private static byte[] random(Random r, int n) {
    byte[] b = new byte[n];
    r.nextBytes(b);
    return b;
  }

  private static void writeRandom(Path p, Random r, int n) throws IOException {
    try (OutputStream o = Files.newOutputStream(p)) {
      byte[] chunk = new byte[1 << 16];
      for (int left = n; left > 0; left -= chunk.length) {
        r.nextBytes(chunk);
        o.write(chunk, 0, Math.min(chunk.length, left));
      }
    }
  }

  /** Every byte range of {@code served} that differs from {@code base}, as [start, end) pairs. */
  static List<long[]> differingRanges(byte[] base, byte[] served) {
    List<long[]> out = new ArrayList<>();
    int i = 0;
    while (i < base.length) {
      if (base[i] != served[i]) {
        int j = i;
        while (j < base.length && base[j] != served[j]) {
          j++;
        }
        out.add(new long[] {i, j});
        i = j;
      } else {
        i++;
      }
    }
    return out;
  }
}
