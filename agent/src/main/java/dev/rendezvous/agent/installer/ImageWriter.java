package dev.rendezvous.agent.installer;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import java.util.zip.CRC32;

/**
 * Writes the OS to the installation disk. Upstream runs coreos-installer with the image embedded in the live ISO;
 * neither exists here, so either the service's metal image ({@code metal_image_url}, checked against its sha256) is
 * streamed onto the disk and its boot partition given what coreos-installer leaves there ({@link BootPartition}), or
 * — without one — a minimal layout is built: a GPT with one boot partition holding an ext4 filesystem
 * ({@code mkfs.ext4 -d}) with the same files.
 *
 * <p>Blocking (disk and process I/O): run on a worker thread. The target must be a regular file or a loop device,
 * unless the machine was booted from the discovery image ({@link DiscoveryHost}): anywhere else this program never
 * writes a physical disk of the machine it runs on (tests use file-backed disks).
 */
public final class ImageWriter {
  static final long SECTOR = 512;
  static final long BOOT_START_LBA = 2048; // 1 MiB, as partitioning tools align
  static final long BOOT_SIZE = 32L << 20;
  static final UUID LINUX_FS = UUID.fromString("0FC63DAF-8483-4772-8E79-3D69D8477DE4");
  private static final int ENTRIES = 128;
  private static final int ENTRY_SIZE = 128;

  private ImageWriter() {}

  /** Refuses anything but a regular file or a loop device; on a machine booted from the discovery image any disk. */
  static void checkTarget(Path device, boolean discoveryHost) throws IOException {
    String name = device.toRealPath().getFileName().toString();
    if (!discoveryHost && !Files.isRegularFile(device) && !name.startsWith("loop")) {
      throw new IOException("refusing to write " + device + ": only file-backed disks and loop devices are written"
          + " here (a physical disk only on a machine booted from the discovery image)");
    }
  }

  /** Streams an image onto the device, verifying its sha256 (hex) when given; percent as it goes. */
  public static void writeImage(InputStream image, long size, String sha256, Path device, IntConsumer percent)
      throws IOException {
    writeImage(image, size, sha256, device, percent, false);
  }

  /** As {@link #writeImage(InputStream, long, String, Path, IntConsumer)}, any disk on a discovery host. */
  public static void writeImage(InputStream image, long size, String sha256, Path device, IntConsumer percent,
      boolean discoveryHost) throws IOException {
    checkTarget(device, discoveryHost);
    MessageDigest digest = sha256Digest();
    try (FileChannel out = FileChannel.open(device, StandardOpenOption.WRITE, StandardOpenOption.CREATE)) {
      byte[] buf = new byte[1 << 20];
      long written = 0;
      int last = -1;
      for (int n; (n = image.read(buf)) > 0; ) {
        digest.update(buf, 0, n);
        writeFully(out, ByteBuffer.wrap(buf, 0, n), written);
        written += n;
        int pct = size > 0 ? (int) Math.min(100, written * 100 / size) : 0;
        if (pct / 10 != last / 10) {
          percent.accept(pct);
          last = pct;
        }
      }
      out.force(true);
      String got = HexFormat.of().formatHex(digest.digest());
      if (sha256 != null && !sha256.isBlank() && !sha256.equalsIgnoreCase(got)) {
        out.write(ByteBuffer.allocate(1 << 20), 0); // a half-trusted image must not boot
        out.force(true);
        throw new IOException("the OS image's sha256 is " + got + ", expected " + sha256 + "; the disk was wiped");
      }
      percent.accept(100);
    }
  }

  /**
   * A block device that went away or shrank takes no more bytes (the write returns 0, or fails): that is an error,
   * never a silently short image.
   */
  static void writeFully(FileChannel out, ByteBuffer data, long position) throws IOException {
    long at = position;
    while (data.hasRemaining()) {
      int n = out.write(data, at);
      if (n <= 0) {
        throw new IOException("the disk took no more data at byte " + at + ": it is gone or smaller than the image");
      }
      at += n;
    }
  }

  /** First and last LBA of the GPT partition with this name (primary table). */
  static long[] findPartition(Path device, String name) throws IOException {
    try (FileChannel in = FileChannel.open(device, StandardOpenOption.READ)) {
      ByteBuffer h = ByteBuffer.allocate((int) SECTOR).order(ByteOrder.LITTLE_ENDIAN);
      in.read(h, SECTOR);
      if (!"EFI PART".equals(new String(h.array(), 0, 8, StandardCharsets.US_ASCII))) {
        throw new IOException("the OS image on " + device + " has no GPT");
      }
      long entriesLba = h.getLong(72);
      int count = h.getInt(80);
      int size = h.getInt(84);
      ByteBuffer e = ByteBuffer.allocate(count * size).order(ByteOrder.LITTLE_ENDIAN);
      in.read(e, entriesLba * SECTOR);
      for (int i = 0; i < count; i++) {
        int at = i * size;
        String label = new String(e.array(), at + 56, 72, StandardCharsets.UTF_16LE).replace("\u0000", "");
        if (label.equals(name)) {
          return new long[] {e.getLong(at + 32), e.getLong(at + 40)};
        }
      }
      throw new IOException("the OS image on " + device + " has no partition named '" + name + "'");
    }
  }

  /**
   * The size in bytes of a disk: a regular file's length, or a block device's sectors as the kernel counts them
   * ({@code /sys/class/block/NAME/size}, 512-byte units): Java reads a block device's length as 0.
   */
  static long deviceSize(Path device) throws IOException {
    long size = Files.size(device);
    if (size > 0 || Files.isRegularFile(device)) {
      return size;
    }
    Path sectors = Path.of("/sys/class/block", device.toRealPath().getFileName().toString(), "size");
    if (!Files.isRegularFile(sectors)) {
      throw new IOException("cannot tell the size of " + device + " (no " + sectors + ")");
    }
    return Long.parseLong(Files.readString(sectors).strip()) * SECTOR;
  }

  /**
   * Without an OS image: builds the GPT and a boot partition with what {@link BootPartition} puts in an image's (the
   * Ignition and its stamp, a boot entry whose options are the installer's kernel arguments, the copied network
   * profiles), on a device of at least 40 MiB.
   */
  public static void writeBootLayout(Path device, BootPartition.Contents contents, IntConsumer percent)
      throws IOException, InterruptedException {
    writeBootLayout(device, contents, percent, false);
  }

  /** As {@link #writeBootLayout(Path, BootPartition.Contents, IntConsumer)}, any disk on a discovery host. */
  public static void writeBootLayout(Path device, BootPartition.Contents contents, IntConsumer percent,
      boolean discoveryHost) throws IOException, InterruptedException {
    checkTarget(device, discoveryHost);
    long size = deviceSize(device);
    if (size < BOOT_START_LBA * SECTOR + BOOT_SIZE + (34 * SECTOR)) {
      throw new IOException(device + " is too small for a boot partition (" + size + " bytes)");
    }
    percent.accept(0);
    Path staged = Files.createTempDirectory("rdv-boot-");
    Path fs = staged.resolveSibling(staged.getFileName() + ".ext4");
    try {
      Files.createDirectories(staged.resolve("ignition"));
      Files.write(staged.resolve("ignition/config.ign"), contents.ignition());
      Files.write(staged.resolve("ignition.firstboot"), new byte[0]);
      Path entries = Files.createDirectories(staged.resolve(BootPartition.ENTRIES.substring(1)));
      Files.writeString(entries.resolve("rendezvous-minimal.conf"), "title Rendezvous minimal layout (no OS image was"
          + " named)\noptions " + contents.args().applyTo("") + "\n", StandardCharsets.UTF_8);
      if (!contents.firstbootNetwork().isEmpty()) {
        Path net = Files.createDirectories(staged.resolve(BootPartition.FIRSTBOOT_NETWORK.substring(1)));
        for (var f : contents.firstbootNetwork().entrySet()) {
          Files.write(net.resolve(f.getKey()), f.getValue());
        }
      }
      run("mkfs.ext4", "-q", "-F", "-L", "boot", "-d", staged.toString(), fs.toString(), (BOOT_SIZE >> 10) + "k");
      percent.accept(50);
      try (FileChannel out = FileChannel.open(device, StandardOpenOption.WRITE);
          FileChannel in = FileChannel.open(fs, StandardOpenOption.READ)) {
        long pos = 0;
        while (pos < BOOT_SIZE) {
          pos += in.transferTo(pos, BOOT_SIZE - pos, out.position(BOOT_START_LBA * SECTOR + pos));
        }
        writeGpt(out, size / SECTOR);
        out.force(true);
      }
      percent.accept(100);
    } finally {
      deleteTree(staged);
      Files.deleteIfExists(fs);
    }
  }

  /** Protective MBR, primary header and entries, backup entries and header (UEFI spec §5.3). */
  static void writeGpt(FileChannel out, long sectors) throws IOException {
    long lastLba = sectors - 1;
    ByteBuffer entries = ByteBuffer.allocate(ENTRIES * ENTRY_SIZE).order(ByteOrder.LITTLE_ENDIAN);
    putGuid(entries, LINUX_FS);
    putGuid(entries, UUID.randomUUID());
    entries.putLong(BOOT_START_LBA).putLong(BOOT_START_LBA + BOOT_SIZE / SECTOR - 1).putLong(0);
    byte[] name = "boot".getBytes(StandardCharsets.UTF_16LE);
    entries.put(name);
    CRC32 crc = new CRC32();
    crc.update(entries.array());
    long entriesCrc = crc.getValue();
    UUID disk = UUID.randomUUID();
    long entrySectors = ENTRIES * ENTRY_SIZE / SECTOR;
    writeFully(out, header(1, lastLba, 2, lastLba, entriesCrc, disk), SECTOR);
    writeFully(out, ByteBuffer.wrap(entries.array()), 2 * SECTOR);
    writeFully(out, ByteBuffer.wrap(entries.array()), (lastLba - entrySectors) * SECTOR);
    writeFully(out, header(lastLba, 1, lastLba - entrySectors, lastLba, entriesCrc, disk), lastLba * SECTOR);
    ByteBuffer mbr = ByteBuffer.allocate((int) SECTOR).order(ByteOrder.LITTLE_ENDIAN);
    mbr.position(446);
    mbr.put((byte) 0).put(new byte[] {0, 2, 0}).put((byte) 0xEE).put(new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF});
    mbr.putInt(1).putInt((int) Math.min(0xFFFFFFFFL, sectors - 1));
    mbr.position(510);
    mbr.put((byte) 0x55).put((byte) 0xAA);
    writeFully(out, mbr.flip().position(0), 0);
  }

  private static ByteBuffer header(long myLba, long altLba, long entriesLba, long lastLba, long entriesCrc, UUID disk) {
    ByteBuffer h = ByteBuffer.allocate((int) SECTOR).order(ByteOrder.LITTLE_ENDIAN);
    h.put("EFI PART".getBytes(StandardCharsets.US_ASCII)).putInt(0x00010000).putInt(92).putInt(0).putInt(0);
    h.putLong(myLba).putLong(altLba).putLong(34).putLong(lastLba - 33);
    putGuid(h, disk);
    h.putLong(entriesLba).putInt(ENTRIES).putInt(ENTRY_SIZE).putInt((int) entriesCrc);
    CRC32 crc = new CRC32();
    crc.update(h.array(), 0, 92);
    h.putInt(16, (int) crc.getValue());
    return h.position(0);
  }

  /** GUIDs on disk: the first three fields little-endian, the rest as is. */
  static void putGuid(ByteBuffer b, UUID u) {
    long msb = u.getMostSignificantBits();
    b.putInt((int) (msb >>> 32)).putShort((short) (msb >>> 16)).putShort((short) msb);
    b.order(ByteOrder.BIG_ENDIAN).putLong(u.getLeastSignificantBits()).order(ByteOrder.LITTLE_ENDIAN);
  }

  private static MessageDigest sha256Digest() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void run(String... cmd) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IOException(String.join(" ", cmd) + " failed: " + out.strip());
    }
  }

  /** Deletes {@code dir} and everything under it (scratch trees of the installer and of a simulated host). */
  public static void deleteTree(Path dir) throws IOException {
    try (var walk = Files.walk(dir)) {
      for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
