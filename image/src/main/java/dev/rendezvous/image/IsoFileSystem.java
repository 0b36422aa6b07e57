package dev.rendezvous.image;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Read-only ISO9660 directory index: where each file's single extent lies in the image.
 * Files are known by their Rock Ridge name (what go-diskfs / assisted-image-service see) and by
 * their primary 8.3 name (what coreos-installer sees), so either lookup style works.
 */
public final class IsoFileSystem {

  public static final int SECTOR = 2048;
  private static final int MAX_FILES = 100_000;

  /** One file's extent: absolute byte offset in the image and its length. */
  public record IsoFile(String path, long offset, long length) {}

  private final String volumeId;
  private final long imageSize;
  private final Map<String, IsoFile> byRockRidge;
  private final Map<String, IsoFile> byPrimary;
  private final byte[] primaryDescriptor;
  private final long bootCatalogLba;

  private IsoFileSystem(String volumeId, long imageSize, Map<String, IsoFile> byRockRidge,
      Map<String, IsoFile> byPrimary, byte[] primaryDescriptor, long bootCatalogLba) {
    this.volumeId = volumeId;
    this.imageSize = imageSize;
    this.byRockRidge = byRockRidge;
    this.byPrimary = byPrimary;
    this.primaryDescriptor = primaryDescriptor;
    this.bootCatalogLba = bootCatalogLba;
  }

  public static IsoFileSystem read(Path iso) throws IOException {
    try (FileChannel ch = FileChannel.open(iso, StandardOpenOption.READ)) {
      return read(ch);
    }
  }

  public static IsoFileSystem read(FileChannel ch) throws IOException {
    long size = ch.size();
    long catalog = -1;
    for (int sector = 16; sector < 64; sector++) {
      ByteBuffer vd = readAt(ch, (long) sector * SECTOR, SECTOR);
      int type = vd.get(0) & 0xff;
      if (!"CD001".equals(ascii(vd, 1, 5))) {
        break;
      }
      if (type == 255) {
        break;
      }
      if (type == 0 && ascii(vd, 7, 23).equals("EL TORITO SPECIFICATION")) {
        catalog = vd.getInt(71) & 0xffffffffL;
      }
      if (type == 1) {
        String volumeId = ascii(vd, 40, 32).trim();
        int blockSize = vd.getShort(128) & 0xffff;
        if (blockSize != SECTOR) {
          throw new IOException("unsupported ISO logical block size " + blockSize);
        }
        Map<String, IsoFile> rr = new LinkedHashMap<>();
        Map<String, IsoFile> primary = new LinkedHashMap<>();
        long rootLba = vd.getInt(156 + 2) & 0xffffffffL;
        long rootLen = vd.getInt(156 + 10) & 0xffffffffL;
        walk(ch, rootLba, rootLen, "", "", rr, primary, 0);
        byte[] pvd = new byte[SECTOR];
        vd.get(0, pvd);
        if (catalog < 0) { // the boot record comes after the primary descriptor
          catalog = bootCatalogAfter(ch, sector + 1);
        }
        return new IsoFileSystem(volumeId, size, Collections.unmodifiableMap(rr),
            Collections.unmodifiableMap(primary), pvd, catalog);
      }
    }
    throw new IOException("not an ISO9660 image: no primary volume descriptor");
  }

  private static long bootCatalogAfter(FileChannel ch, int from) throws IOException {
    for (int sector = from; sector < 64 && (long) (sector + 1) * SECTOR <= ch.size(); sector++) {
      ByteBuffer vd = readAt(ch, (long) sector * SECTOR, SECTOR);
      if (!"CD001".equals(ascii(vd, 1, 5)) || (vd.get(0) & 0xff) == 255) {
        return -1;
      }
      if (vd.get(0) == 0 && ascii(vd, 7, 23).equals("EL TORITO SPECIFICATION")) {
        return vd.getInt(71) & 0xffffffffL;
      }
    }
    return -1;
  }

  private static void walk(FileChannel ch, long lba, long length, String rrPrefix, String primaryPrefix,
      Map<String, IsoFile> rr, Map<String, IsoFile> primary, int depth) throws IOException {
    if (depth > 32 || length > 64L * 1024 * 1024) {
      throw new IOException("implausible ISO directory tree");
    }
    ByteBuffer dir = readAt(ch, lba * SECTOR, (int) length);
    int pos = 0;
    while (pos < length) {
      int recLen = dir.get(pos) & 0xff;
      if (recLen == 0) {
        pos = (pos / SECTOR + 1) * SECTOR; // records never straddle sectors
        continue;
      }
      if (pos + recLen > length || recLen < 34) {
        throw new IOException("corrupt ISO directory record at LBA " + lba);
      }
      long extent = dir.getInt(pos + 2) & 0xffffffffL;
      long dataLen = dir.getInt(pos + 10) & 0xffffffffL;
      boolean isDir = (dir.get(pos + 25) & 0x02) != 0;
      int nameLen = dir.get(pos + 32) & 0xff;
      byte first = dir.get(pos + 33);
      if (!(nameLen == 1 && (first == 0 || first == 1))) {
        String primaryName = primaryName(ascii(dir, pos + 33, nameLen));
        int suStart = pos + 33 + nameLen + ((nameLen % 2 == 0) ? 1 : 0);
        String rrName = rockRidgeName(dir, suStart, pos + recLen);
        String name = rrName != null ? rrName : primaryName.toLowerCase(Locale.ROOT);
        String rrPath = rrPrefix + "/" + name;
        String primaryPath = primaryPrefix + "/" + primaryName.toUpperCase(Locale.ROOT);
        if (isDir) {
          walk(ch, extent, dataLen, rrPath, primaryPath, rr, primary, depth + 1);
        } else {
          if (rr.size() >= MAX_FILES) {
            throw new IOException("too many files in ISO");
          }
          IsoFile file = new IsoFile(rrPath, extent * SECTOR, dataLen);
          rr.put(rrPath, file);
          primary.put(primaryPath, file);
        }
      }
      pos += recLen;
    }
  }

  private static String primaryName(String raw) {
    String name = raw;
    int semi = name.indexOf(';');
    if (semi >= 0) {
      name = name.substring(0, semi);
    }
    if (name.endsWith(".")) {
      name = name.substring(0, name.length() - 1);
    }
    return name;
  }

  /** Rock Ridge NM entry (continuation areas are not followed: live-ISO names are short). */
  private static String rockRidgeName(ByteBuffer dir, int start, int end) {
    StringBuilder name = null;
    int p = start;
    while (p + 4 <= end) {
      int len = dir.get(p + 2) & 0xff;
      if (len < 4 || p + len > end) {
        break;
      }
      if (dir.get(p) == 'N' && dir.get(p + 1) == 'M') {
        int flags = dir.get(p + 4) & 0xff;
        if ((flags & 0x06) == 0) { // not "." / ".."
          if (name == null) {
            name = new StringBuilder();
          }
          byte[] b = new byte[len - 5];
          dir.get(p + 5, b);
          name.append(new String(b, StandardCharsets.UTF_8));
        }
      }
      p += len;
    }
    return name == null ? null : name.toString();
  }

  static ByteBuffer readAt(FileChannel ch, long offset, int length) throws IOException {
    ByteBuffer buf = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
    while (buf.hasRemaining()) {
      int n = ch.read(buf, offset + buf.position());
      if (n < 0) {
        throw new IOException("unexpected end of image at " + (offset + buf.position()));
      }
    }
    return buf.flip();
  }

  private static String ascii(ByteBuffer b, int off, int len) {
    byte[] out = new byte[len];
    b.get(off, out);
    return new String(out, StandardCharsets.ISO_8859_1);
  }

  public String volumeId() {
    return volumeId;
  }

  public long imageSize() {
    return imageSize;
  }

  /** The primary volume descriptor's sector as read (a template for an image written from this one). */
  public byte[] primaryDescriptor() {
    return primaryDescriptor.clone();
  }

  /** Where the El Torito boot catalog is (a sector number), if the image is bootable. */
  public Optional<Long> bootCatalogLba() {
    return bootCatalogLba < 0 ? Optional.empty() : Optional.of(bootCatalogLba);
  }

  /**
   * Finds a file by path, leading slash optional: Rock Ridge name first, then the primary name,
   * then the primary 8.3 truncation of each component (coreos-installer's {@code IGNINFO.JSO}).
   */
  public Optional<IsoFile> find(String path) {
    String p = path.startsWith("/") ? path : "/" + path;
    IsoFile f = byRockRidge.get(p);
    if (f == null) {
      f = byPrimary.get(p.toUpperCase(Locale.ROOT));
    }
    if (f == null) {
      f = byPrimary.get(truncated83(p));
    }
    return Optional.ofNullable(f);
  }

  private static String truncated83(String path) {
    StringBuilder out = new StringBuilder();
    for (String part : path.substring(1).split("/")) {
      String up = part.toUpperCase(Locale.ROOT);
      int dot = up.lastIndexOf('.');
      String base = dot >= 0 ? up.substring(0, dot) : up;
      String ext = dot >= 0 ? up.substring(dot + 1) : "";
      out.append('/').append(base, 0, Math.min(8, base.length()));
      if (!ext.isEmpty()) {
        out.append('.').append(ext, 0, Math.min(3, ext.length()));
      }
    }
    return out.toString();
  }

  public Map<String, IsoFile> files() {
    return byRockRidge;
  }
}
