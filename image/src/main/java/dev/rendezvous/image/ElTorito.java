package dev.rendezvous.image;

import dev.rendezvous.image.IsoFileSystem.IsoFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * An ISO's El Torito boot setup, read from one image so another can replay it: the catalog's sections, each boot
 * image named by the file it is (so it can move), and whether the BIOS image carries a boot-info table (isolinux's
 * {@code -boot-info-table}: the image's own location written into it, which must be rewritten when it moves).
 */
public record ElTorito(Optional<String> catalogPath, List<Section> sections) {

  /** A section of the catalog: the platform (0 = x86 BIOS, 0xEF = EFI) and its boot images. */
  public record Section(int platform, List<BootImage> images) {
    public Section {
      images = List.copyOf(images);
    }
  }

  /** One boot entry: no-emulation images only, which is what CoreOS ISOs carry. */
  public record BootImage(boolean bootable, int mediaType, int loadSegment, int systemType, int sectorCount,
      String path, boolean bootInfoTable) {}

  private static final int ENTRY = 32;
  private static final String BOOT_SYSTEM = "EL TORITO SPECIFICATION";

  public ElTorito {
    sections = List.copyOf(sections);
    if (sections.isEmpty() || sections.get(0).images().size() != 1) {
      throw new IllegalArgumentException("a boot catalog starts with exactly one default entry");
    }
  }

  /** The boot setup of {@code fs} (read from {@code ch}), if it has one. */
  public static Optional<ElTorito> read(FileChannel ch, IsoFileSystem fs) throws IOException {
    Optional<Long> lba = fs.bootCatalogLba();
    if (lba.isEmpty()) {
      return Optional.empty();
    }
    ByteBuffer cat = IsoFileSystem.readAt(ch, lba.get() * IsoFileSystem.SECTOR, IsoFileSystem.SECTOR);
    if (cat.get(0) != 1 || (cat.get(30) & 0xff) != 0x55 || (cat.get(31) & 0xff) != 0xAA) {
      throw new IOException("boot catalog at sector " + lba.get() + " has no validation entry");
    }
    List<Section> sections = new ArrayList<>();
    sections.add(new Section(cat.get(1) & 0xff, List.of(image(ch, fs, cat, ENTRY))));
    int pos = 2 * ENTRY;
    while (pos + ENTRY <= IsoFileSystem.SECTOR) {
      int header = cat.get(pos) & 0xff;
      if (header != 0x90 && header != 0x91) {
        break;
      }
      int platform = cat.get(pos + 1) & 0xff;
      int count = cat.getShort(pos + 2) & 0xffff;
      pos += ENTRY;
      List<BootImage> images = new ArrayList<>();
      for (int i = 0; i < count && pos + ENTRY <= IsoFileSystem.SECTOR; i++) {
        images.add(image(ch, fs, cat, pos));
        pos += ENTRY;
        while (pos + ENTRY <= IsoFileSystem.SECTOR && (cat.get(pos) & 0xff) == 0x44) {
          pos += ENTRY; // extension entries (selection criteria): not replayed
        }
      }
      sections.add(new Section(platform, images));
      if (header == 0x91) {
        break;
      }
    }
    long catalogOffset = lba.get() * IsoFileSystem.SECTOR;
    Optional<String> catalogPath = fs.files().values().stream().filter(f -> f.offset() == catalogOffset)
        .map(IsoFile::path).findFirst();
    return Optional.of(new ElTorito(catalogPath, sections));
  }

  private static BootImage image(FileChannel ch, IsoFileSystem fs, ByteBuffer cat, int pos) throws IOException {
    int mediaType = cat.get(pos + 1) & 0x0f;
    if (mediaType != 0) {
      throw new IOException("boot image with emulation type " + mediaType + " (only no-emulation images are replayed)");
    }
    long lba = cat.getInt(pos + 8) & 0xffffffffL;
    IsoFile file = fs.files().values().stream().filter(f -> f.offset() == lba * IsoFileSystem.SECTOR && f.length() > 0)
        .findFirst().orElseThrow(() -> new IOException("boot image at sector " + lba + " is no file of the ISO"));
    boolean table = false;
    if (file.length() >= 64) { // a boot-info table says where the primary descriptor, the image and its size are
      ByteBuffer head = IsoFileSystem.readAt(ch, file.offset(), 24);
      table = head.getInt(8) == 16 && (head.getInt(12) & 0xffffffffL) == lba && head.getInt(16) == file.length();
    }
    return new BootImage((cat.get(pos) & 0xff) == 0x88, mediaType, cat.getShort(pos + 2) & 0xffff,
        cat.get(pos + 4) & 0xff, cat.getShort(pos + 6) & 0xffff, file.path(), table);
  }

  /** The El Torito boot record volume descriptor pointing at {@code catalogLba}. */
  static byte[] bootRecord(long catalogLba) {
    ByteBuffer b = ByteBuffer.allocate(IsoFileSystem.SECTOR).order(ByteOrder.LITTLE_ENDIAN);
    b.put(0, (byte) 0).put(1, "CD001".getBytes(java.nio.charset.StandardCharsets.US_ASCII)).put(6, (byte) 1);
    b.put(7, BOOT_SYSTEM.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    b.putInt(71, (int) catalogLba);
    return b.array();
  }

  /** This setup's catalog sector, with each boot image where {@code lbaOf} says it now is. */
  byte[] catalog(Map<String, Long> lbaOf) {
    ByteBuffer b = ByteBuffer.allocate(IsoFileSystem.SECTOR).order(ByteOrder.LITTLE_ENDIAN);
    b.put(0, (byte) 1).put(1, (byte) sections.get(0).platform()).put(30, (byte) 0x55).put(31, (byte) 0xAA);
    int sum = 0;
    for (int i = 0; i < ENTRY; i += 2) {
      sum += b.getShort(i) & 0xffff;
    }
    b.putShort(28, (short) -sum); // the validation entry's 16-bit words add up to zero
    putImage(b, ENTRY, sections.get(0).images().get(0), lbaOf);
    int pos = 2 * ENTRY;
    for (int s = 1; s < sections.size(); s++) {
      Section section = sections.get(s);
      b.put(pos, (byte) (s == sections.size() - 1 ? 0x91 : 0x90)).put(pos + 1, (byte) section.platform())
          .putShort(pos + 2, (short) section.images().size());
      pos += ENTRY;
      for (BootImage image : section.images()) {
        putImage(b, pos, image, lbaOf);
        pos += ENTRY;
      }
    }
    return b.array();
  }

  private static void putImage(ByteBuffer b, int pos, BootImage image, Map<String, Long> lbaOf) {
    Long lba = lbaOf.get(image.path());
    if (lba == null) {
      throw new IllegalStateException("boot image " + image.path() + " was not written");
    }
    b.put(pos, (byte) (image.bootable() ? 0x88 : 0)).put(pos + 1, (byte) image.mediaType())
        .putShort(pos + 2, (short) image.loadSegment()).put(pos + 4, (byte) image.systemType())
        .putShort(pos + 6, (short) image.sectorCount()).putInt(pos + 8, (int) (long) lba);
  }

  /** Rewrites a boot-info table in {@code image} (the whole boot file) for its new sector. */
  static byte[] withBootInfoTable(byte[] image, long lba) {
    ByteBuffer b = ByteBuffer.wrap(image).order(ByteOrder.LITTLE_ENDIAN);
    int sum = 0;
    for (int i = 64; i < image.length; i += 4) { // the last word zero-padded
      int word = 0;
      for (int k = 0; k < 4 && i + k < image.length; k++) {
        word |= (image[i + k] & 0xff) << (8 * k);
      }
      sum += word;
    }
    b.putInt(8, 16).putInt(12, (int) lba).putInt(16, image.length).putInt(20, sum);
    for (int i = 24; i < 64; i++) {
      image[i] = 0;
    }
    return image;
  }

  /** Whether {@code path} is a boot image carrying a boot-info table (rewritten where it is written). */
  boolean bootInfoTableIn(String path) {
    return sections.stream().flatMap(s -> s.images().stream()).anyMatch(i -> i.bootInfoTable() && i.path().equals(path));
  }
}
