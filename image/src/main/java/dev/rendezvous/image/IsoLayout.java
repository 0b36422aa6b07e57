package dev.rendezvous.image;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rendezvous.image.IsoFileSystem.IsoFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Where a CoreOS live ISO keeps what we customize: the Ignition embed area, the kernel-argument
 * embed areas, and the boot artifacts served on their own. Read once per base image.
 *
 * <p>Ignition area precedence: {@code coreos/igninfo.json}, else the whole of
 * {@code images/ignition.img}, else the legacy {@code coreiso+} system-area header. Karg areas:
 * {@code coreos/kargs.json}, else the legacy {@code coreKarg} header.
 */
public record IsoLayout(
    String volumeId,
    long size,
    Optional<EmbedArea> ignitionArea,
    Optional<KargsLayout> kargs,
    Optional<IsoFile> kernel,
    Optional<IsoFile> initrd,
    Optional<IsoFile> rootfs,
    Optional<IsoFile> customInitrdArea) {

  /** A byte range of the image. */
  public record EmbedArea(long offset, long length) {
    public long end() {
      return offset + length;
    }
  }

  /** One kernel-argument area: {@code size} bytes at {@code offset}, kargs then end then pad. */
  public record KargsArea(long offset, byte pad, byte end) {}

  /**
   * All karg areas of an image (same size, same content), the default kargs if known and the
   * kargs the areas hold now.
   */
  public record KargsLayout(int size, String defaultKargs, String current, List<KargsArea> areas) {
    public KargsLayout {
      areas = List.copyOf(areas);
    }
  }

  static final long SYSTEM_AREA_END = 32768;
  static final long COREISO_HEADER = SYSTEM_AREA_END - 24;
  static final long COREKARG_HEADER = COREISO_HEADER - 72;
  private static final ObjectMapper JSON = new ObjectMapper();

  public static IsoLayout read(Path iso) throws IOException {
    try (FileChannel ch = FileChannel.open(iso, StandardOpenOption.READ)) {
      IsoFileSystem fs = IsoFileSystem.read(ch);
      Optional<IsoFile> kernel = fs.find("images/pxeboot/vmlinuz").or(() -> fs.find("images/kernel.img"));
      return new IsoLayout(fs.volumeId(), ch.size(), ignitionArea(ch, fs), kargs(ch, fs), kernel,
          fs.find("images/pxeboot/initrd.img"), fs.find("images/pxeboot/rootfs.img"),
          fs.find(MinimalIsoBuilder.CUSTOM_INITRD_PATH));
    }
  }

  private static Optional<EmbedArea> ignitionArea(FileChannel ch, IsoFileSystem fs) throws IOException {
    Optional<IsoFile> info = fs.find("coreos/igninfo.json");
    if (info.isPresent()) {
      JsonNode n = JSON.readTree(readFile(ch, info.get()));
      String file = n.path("file").asText("");
      IsoFile target = fs.find(file)
          .orElseThrow(() -> new IOException("igninfo.json names missing file " + file));
      long offset = n.path("offset").asLong(0);
      long length = n.has("length") ? n.get("length").asLong() : target.length() - offset;
      if (length == 0 && offset == 0) {
        length = target.length();
      }
      if (offset < 0 || length <= 0 || offset + length > target.length()) {
        throw new IOException("igninfo.json area outside " + file);
      }
      return Optional.of(new EmbedArea(target.offset() + offset, length));
    }
    Optional<IsoFile> img = fs.find("images/ignition.img");
    if (img.isPresent()) {
      return Optional.of(new EmbedArea(img.get().offset(), img.get().length()));
    }
    ByteBuffer h = IsoFileSystem.readAt(ch, COREISO_HEADER, 24);
    if ("coreiso+".equals(ascii(h, 0, 8))) {
      long offset = h.getLong(8);
      long length = h.getLong(16);
      if (offset >= SYSTEM_AREA_END && length > 0 && offset + length <= ch.size()) {
        return Optional.of(new EmbedArea(offset, length));
      }
    }
    return Optional.empty();
  }

  private static Optional<KargsLayout> kargs(FileChannel ch, IsoFileSystem fs) throws IOException {
    Optional<IsoFile> info = fs.find("coreos/kargs.json");
    if (info.isPresent()) {
      JsonNode n = JSON.readTree(readFile(ch, info.get()));
      int size = n.path("size").asInt(0);
      if (size <= 0 || size > 2048) {
        throw new IOException("kargs.json size out of range: " + size);
      }
      List<KargsArea> areas = new ArrayList<>();
      for (JsonNode f : n.path("files")) {
        String path = f.path("path").asText("");
        IsoFile file = fs.find(path).orElseThrow(() -> new IOException("kargs.json names missing file " + path));
        long offset = f.path("offset").asLong(-1);
        if (offset < 0 || offset + size > file.length()) {
          throw new IOException("kargs.json area outside " + path);
        }
        areas.add(new KargsArea(file.offset() + offset, singleByte(f, "pad", '#'), singleByte(f, "end", '\n')));
      }
      if (areas.isEmpty()) {
        return Optional.empty();
      }
      return Optional.of(new KargsLayout(size, n.path("default").asText(null), current(ch, size, areas), areas));
    }
    ByteBuffer h = IsoFileSystem.readAt(ch, COREKARG_HEADER, 72);
    if ("coreKarg".equals(ascii(h, 0, 8))) {
      int size = (int) h.getLong(8);
      long defaultOffset = h.getLong(16);
      List<KargsArea> areas = new ArrayList<>();
      for (int i = 0; i < 6; i++) {
        long off = h.getLong(24 + 8 * i);
        if (off == 0) {
          break;
        }
        areas.add(new KargsArea(off, (byte) '#', (byte) '\n'));
      }
      if (size <= 0 || size > 2048 || areas.isEmpty()) {
        return Optional.empty();
      }
      String defaults = KernelArguments.parse(
          IsoFileSystem.readAt(ch, defaultOffset, size), (byte) '#', (byte) '\n');
      return Optional.of(new KargsLayout(size, defaults, current(ch, size, areas), areas));
    }
    return Optional.empty();
  }

  private static String current(FileChannel ch, int size, List<KargsArea> areas) throws IOException {
    KargsArea first = areas.get(0);
    return KernelArguments.parse(IsoFileSystem.readAt(ch, first.offset(), size), first.pad(), first.end());
  }

  private static byte singleByte(JsonNode f, String field, char fallback) throws IOException {
    String s = f.path(field).asText(String.valueOf(fallback));
    if (s.length() != 1 || s.charAt(0) > 0x7f) {
      throw new IOException("kargs.json " + field + " must be one ASCII character");
    }
    return (byte) s.charAt(0);
  }

  static byte[] readFile(FileChannel ch, IsoFile f) throws IOException {
    if (f.length() > 16 * 1024 * 1024) {
      throw new IOException("file too large to read into memory: " + f.path());
    }
    return IsoFileSystem.readAt(ch, f.offset(), (int) f.length()).array();
  }

  private static String ascii(ByteBuffer b, int off, int len) {
    byte[] out = new byte[len];
    b.get(off, out);
    return new String(out, StandardCharsets.ISO_8859_1);
  }
}
