package dev.rendezvous.image;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.rendezvous.image.IsoFileSystem.IsoFile;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Builds the minimal-ISO template from a full live ISO, as upstream does: rootfs removed, a 1 MiB
 * zero placeholder for the per-infra-env ramdisk added and listed as an extra initrd, and
 * {@code coreos.live.rootfs_url} added to the kernel arguments (kargs.json updated to match).
 *
 * <p>Re-mastering uses {@code xorriso} (Debian package {@code xorriso}) with the boot setup of the
 * full ISO replayed; without it, or for ISOs without {@code coreos/kargs.json}, no minimal ISO is
 * offered. Blocking: run off the event loop.
 */
public final class MinimalIsoBuilder {

  public static final String CUSTOM_INITRD_PATH = "images/assisted_installer_custom.img";
  public static final int CUSTOM_INITRD_SIZE = 1024 * 1024;
  // a real area is followed by one more "#" and then the marker (measured on the fixtures)
  private static final String MARKER = "# COREOS_KARG_EMBED_AREA";
  private static final List<String> GRUB_PATHS =
      List.of("EFI/redhat/grub.cfg", "EFI/fedora/grub.cfg", "boot/grub/grub.cfg", "EFI/centos/grub.cfg");
  private static final Pattern LIVEISO = Pattern.compile("coreos\\.liveiso=\\S+ ?");
  private static final ObjectMapper JSON = new ObjectMapper();

  private MinimalIsoBuilder() {}

  /** Whether the xorriso tool can be run here. */
  public static boolean xorrisoAvailable() {
    try {
      Process p = new ProcessBuilder("xorriso", "-version").redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      return p.waitFor(20, TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * Writes {@code target} from {@code full}.
   *
   * @param rootfsUrl where the minimal ISO's initramfs fetches the rootfs
   * @throws IOException when the ISO cannot be made minimal (reason in the message)
   */
  public static void build(Path full, Path target, String rootfsUrl) throws IOException {
    if (rootfsUrl.contains("$") || rootfsUrl.contains("\\") || rootfsUrl.contains("\"")
        || rootfsUrl.chars().anyMatch(Character::isWhitespace)) {
      throw new IOException("rootfs URL must not contain $, \\, quotes or blanks: " + rootfsUrl);
    }
    String karg = "coreos.live.rootfs_url=\"" + rootfsUrl + "\"";
    Path work = Files.createTempDirectory(target.getParent(), ".minimal-");
    try (FileChannel ch = FileChannel.open(full, StandardOpenOption.READ)) {
      IsoFileSystem fs = IsoFileSystem.read(ch);
      IsoFile kargsJson = fs.find("coreos/kargs.json")
          .orElseThrow(() -> new IOException("no coreos/kargs.json: minimal ISO not supported for this image"));
      if (fs.find("images/pxeboot/rootfs.img").isEmpty()) {
        throw new IOException("no images/pxeboot/rootfs.img in the full ISO");
      }
      ObjectNode kj = (ObjectNode) JSON.readTree(IsoLayout.readFile(ch, kargsJson));
      String oldDefault = kj.path("default").asText();
      String newDefault = editKargs(oldDefault, karg);
      int delta = newDefault.getBytes(StandardCharsets.UTF_8).length - oldDefault.getBytes(StandardCharsets.UTF_8).length;
      int newSize = kj.path("size").asInt() + delta;

      List<String> mapArgs = new ArrayList<>();
      String grubPath = null;
      for (String g : GRUB_PATHS) {
        if (fs.find(g).isPresent()) {
          grubPath = g;
          break;
        }
      }
      if (grubPath == null) {
        throw new IOException("no grub.cfg found");
      }
      Map<String, String> edited = new java.util.LinkedHashMap<>();
      IsoFile grub = fs.find(grubPath).get();
      edited.put(grub.path(), editGrub(new String(IsoLayout.readFile(ch, grub), StandardCharsets.UTF_8), karg));
      Optional<IsoFile> isolinux = fs.find("isolinux/isolinux.cfg");
      if (isolinux.isPresent()) {
        edited.put(isolinux.get().path(),
            editIsolinux(new String(IsoLayout.readFile(ch, isolinux.get()), StandardCharsets.UTF_8), karg));
      }
      // kargs.json: new default and size; each listed area re-found by its marker
      kj.put("default", newDefault);
      kj.put("size", newSize);
      for (var f : (ArrayNode) kj.path("files")) {
        String path = "/" + f.path("path").asText();
        IsoFile file = fs.find(path).orElseThrow(() -> new IOException("kargs.json names missing " + path));
        String text = edited.get(file.path());
        if (text == null) {
          throw new IOException("kargs.json lists a file the minimal ISO does not rewrite: " + path);
        }
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        int marker = indexOf(bytes, MARKER.getBytes(StandardCharsets.US_ASCII));
        int offset = marker - newSize;
        if (marker < 0 || offset < 0 || !new String(bytes, offset, bytes.length - offset, StandardCharsets.UTF_8)
            .startsWith(newDefault)) {
          throw new IOException("karg area not found after editing " + path);
        }
        ((ObjectNode) f).put("offset", offset);
      }
      edited.put(kargsJson.path(), JSON.writerWithDefaultPrettyPrinter().writeValueAsString(kj));

      List<String> cmd = new ArrayList<>(List.of("xorriso", "-abort_on", "FAILURE",
          "-indev", full.toString(), "-outdev", target.toString(),
          "-boot_image", "any", "replay", "-rm", "/images/pxeboot/rootfs.img", "--"));
      int i = 0;
      for (var e : edited.entrySet()) {
        Path tmp = work.resolve("f" + (i++));
        Files.writeString(tmp, e.getValue());
        cmd.addAll(List.of("-map", tmp.toString(), e.getKey()));
      }
      Path custom = work.resolve("custom.img");
      Files.write(custom, new byte[CUSTOM_INITRD_SIZE]);
      cmd.addAll(List.of("-map", custom.toString(), "/" + CUSTOM_INITRD_PATH));
      Files.deleteIfExists(target);
      run(cmd);
    } finally {
      try (var s = Files.list(work)) {
        for (Path p : s.toList()) {
          Files.deleteIfExists(p);
        }
      }
      Files.deleteIfExists(work);
    }
  }

  static String editKargs(String kargs, String extra) {
    return LIVEISO.matcher(kargs).replaceFirst("").stripTrailing() + " " + extra;
  }

  static String editGrub(String cfg, String karg) throws IOException {
    String out = editFirstLine(cfg, "^\\s*linux\\s.*$", line -> editKargs(line, karg));
    return editFirstLine(out, "^\\s*initrd\\s.*$", line -> line + " /" + CUSTOM_INITRD_PATH);
  }

  static String editIsolinux(String cfg, String karg) throws IOException {
    return editFirstLine(cfg, "^\\s*append\\s.*$", line -> {
      Matcher m = Pattern.compile("initrd=\\S+").matcher(line);
      String withInitrd = m.find()
          ? line.substring(0, m.end()) + ",/" + CUSTOM_INITRD_PATH + line.substring(m.end())
          : line;
      return editKargs(withInitrd, karg);
    });
  }

  private static String editFirstLine(String text, String regex, java.util.function.UnaryOperator<String> edit)
      throws IOException {
    Matcher m = Pattern.compile(regex, Pattern.MULTILINE).matcher(text);
    if (!m.find()) {
      throw new IOException("no line matching " + regex);
    }
    return text.substring(0, m.start()) + edit.apply(m.group()) + text.substring(m.end());
  }

  private static int indexOf(byte[] hay, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= hay.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (hay[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  private static void run(List<String> cmd) throws IOException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    try {
      if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
        p.destroyForcibly();
        throw new IOException("xorriso failed: " + tail(out));
      }
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while building minimal ISO", e);
    }
  }

  private static String tail(String s) {
    return s.length() > 2000 ? s.substring(s.length() - 2000) : s;
  }
}
