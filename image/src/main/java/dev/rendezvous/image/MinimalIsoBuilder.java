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
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Builds the minimal-ISO template from a full live ISO, as upstream does: rootfs removed, a 1 MiB
 * zero placeholder for the per-infra-env ramdisk added and listed as an extra initrd, and
 * {@code coreos.live.rootfs_url} added to the kernel arguments (kargs.json updated to match).
 *
 * <p>Re-mastered in Java ({@link IsoWriter}) with the boot setup of the full ISO replayed, so any machine that runs
 * the service offers minimal ISOs; for ISOs without {@code coreos/kargs.json} none is offered. Blocking: run off the
 * event loop.
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
    try (FileChannel ch = FileChannel.open(full, StandardOpenOption.READ)) {
      IsoFileSystem fs = IsoFileSystem.read(ch);
      IsoFile kargsJson = fs.find("coreos/kargs.json")
          .orElseThrow(() -> new IOException("no coreos/kargs.json: minimal ISO not supported for this image"));
      IsoFile rootfs = fs.find("images/pxeboot/rootfs.img")
          .orElseThrow(() -> new IOException("no images/pxeboot/rootfs.img in the full ISO"));
      ObjectNode kj = (ObjectNode) JSON.readTree(IsoLayout.readFile(ch, kargsJson));
      String oldDefault = kj.path("default").asText();
      String newDefault = editKargs(oldDefault, karg);
      int delta = newDefault.getBytes(StandardCharsets.UTF_8).length - oldDefault.getBytes(StandardCharsets.UTF_8).length;
      int newSize = kj.path("size").asInt() + delta;

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
      Map<String, String> edited = new LinkedHashMap<>();
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

      // the full ISO's tree, rootfs out, edited files and the placeholder in, boot setup replayed
      Map<String, IsoWriter.Content> files = new LinkedHashMap<>();
      for (IsoFile f : fs.files().values()) {
        if (!f.path().equals(rootfs.path())) {
          String text = edited.get(f.path());
          files.put(f.path(), text != null ? new IsoWriter.Bytes(text.getBytes(StandardCharsets.UTF_8))
              : new IsoWriter.Slice(ch, f.offset(), f.length()));
        }
      }
      files.put("/" + CUSTOM_INITRD_PATH, new IsoWriter.Zeros(CUSTOM_INITRD_SIZE));
      Path partial = Files.createTempFile(target.toAbsolutePath().getParent(), ".minimal-", ".iso");
      try {
        IsoWriter.write(partial, fs.primaryDescriptor(), files, ElTorito.read(ch, fs));
        Files.move(partial, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } finally {
        Files.deleteIfExists(partial);
      }
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
}
