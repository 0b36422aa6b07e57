package dev.rendezvous.agent.installer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The installer's disk writes, on file-backed disks (no physical disk is ever written here), read back. */
class ImageWriterTest {
  @TempDir Path dir;

  private Path disk(long mib) throws IOException {
    Path d = dir.resolve("disk.img");
    try (RandomAccessFile f = new RandomAccessFile(d.toFile(), "rw")) {
      f.setLength(mib << 20);
    }
    return d;
  }

  @Test
  void theBootLayoutIsAValidGptWhosePartitionHoldsTheIgnition() throws Exception {
    Path disk = disk(64);
    byte[] ignition = "{\"ignition\":{\"version\":\"3.2.0\"},\"storage\":{\"files\":[]}}".getBytes(StandardCharsets.UTF_8);
    List<Integer> percents = new ArrayList<>();
    ImageWriter.writeBootLayout(disk, contents(ignition, java.util.Map.of("eth0.nmconnection", "[connection]\n"),
        "--append-karg", "console=ttyS0"), percents::add);
    assertEquals(100, percents.get(percents.size() - 1));

    byte[] raw = Files.readAllBytes(disk);
    assertEquals((byte) 0x55, raw[510]);
    assertEquals((byte) 0xAA, raw[511]);
    assertEquals((byte) 0xEE, raw[446 + 4], "protective MBR partition type");
    long sectors = raw.length / 512;
    for (long lba : new long[] {1, sectors - 1}) {
      ByteBuffer h = ByteBuffer.wrap(raw, (int) (lba * 512), 512).slice().order(ByteOrder.LITTLE_ENDIAN);
      assertEquals("EFI PART", new String(raw, (int) (lba * 512), 8, StandardCharsets.US_ASCII));
      int storedCrc = h.getInt(16);
      byte[] header = new byte[92];
      h.get(0, header);
      ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN).putInt(16, 0);
      CRC32 crc = new CRC32();
      crc.update(header);
      assertEquals((int) crc.getValue(), storedCrc, "header CRC at LBA " + lba);
      assertEquals(lba, h.getLong(24), "my LBA");
      long entriesLba = h.getLong(72);
      CRC32 entriesCrc = new CRC32();
      entriesCrc.update(raw, (int) (entriesLba * 512), 128 * 128);
      assertEquals((int) entriesCrc.getValue(), h.getInt(88), "entries CRC at LBA " + lba);
      ByteBuffer entry = ByteBuffer.wrap(raw, (int) (entriesLba * 512), 128).slice().order(ByteOrder.LITTLE_ENDIAN);
      assertEquals(2048, entry.getLong(32), "first LBA of the boot partition");
      assertEquals(2048 + (32L << 20) / 512 - 1, entry.getLong(40));
      assertEquals("boot", new String(raw, (int) (entriesLba * 512) + 56, 8, StandardCharsets.UTF_16LE));
    }

    // the partition's filesystem, read back by e2fsprogs' own reader
    Path part = dir.resolve("boot.ext4");
    Files.write(part, java.util.Arrays.copyOfRange(raw, 2048 * 512, 2048 * 512 + (32 << 20)));
    assertArrayEquals(ignition, debugfsCat(part, "/ignition/config.ign"));
    assertTrue(new String(debugfsCat(part, "/loader/entries/rendezvous-minimal.conf"), StandardCharsets.UTF_8)
        .contains("\noptions console=ttyS0\n"));
    assertEquals("[connection]\n", new String(debugfsCat(part, "/coreos-firstboot-network/eth0.nmconnection"),
        StandardCharsets.UTF_8));
    assertEquals(0, debugfsCat(part, "/ignition.firstboot").length);
  }

  static BootPartition.Contents contents(byte[] ignition, java.util.Map<String, String> network, String... args) {
    java.util.Map<String, byte[]> files = new java.util.TreeMap<>();
    network.forEach((k, v) -> files.put(k, v.getBytes(StandardCharsets.UTF_8)));
    return new BootPartition.Contents(ignition, CoreosInstallerArgs.parse(List.of(args)), files);
  }

  private static byte[] debugfsCat(Path fs, String file) throws Exception {
    Process p = new ProcessBuilder("debugfs", "-R", "cat " + file, fs.toString()).redirectError(ProcessBuilder.Redirect.DISCARD)
        .start();
    byte[] out = p.getInputStream().readAllBytes();
    assertEquals(0, p.waitFor());
    return out;
  }

  @Test
  void anImageIsStreamedWithItsChecksumVerifiedAndAMismatchWipesTheDisk() throws Exception {
    byte[] image = new byte[3 << 20];
    new Random(7).nextBytes(image);
    String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(image));
    Path disk = disk(8);
    List<Integer> percents = new ArrayList<>();
    ImageWriter.writeImage(new ByteArrayInputStream(image), image.length, sha, disk, percents::add);
    assertArrayEquals(image, java.util.Arrays.copyOf(Files.readAllBytes(disk), image.length));
    assertTrue(percents.contains(100) && percents.size() >= 3, percents.toString());

    IOException e = assertThrows(IOException.class, () -> ImageWriter.writeImage(new ByteArrayInputStream(image),
        image.length, "00" + sha.substring(2), disk, p -> { }));
    assertTrue(e.getMessage().contains("sha256"), e.getMessage());
    byte[] head = java.util.Arrays.copyOf(Files.readAllBytes(disk), 1 << 20);
    assertArrayEquals(new byte[1 << 20], head, "a mismatching image does not stay bootable");
  }

  @Test
  void theBootLayoutOnABlockDeviceSpansTheWholeDevice() throws Exception {
    // Java reads a block device's length as 0: the layout must take the device's size from the kernel
    org.junit.jupiter.api.Assumptions.assumeTrue(new com.sun.security.auth.module.UnixSystem().getUid() == 0,
        "loop devices need root");
    Path backing = disk(48);
    Process attach = new ProcessBuilder("losetup", "--find", "--show", backing.toString()).start();
    String loop = new String(attach.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    org.junit.jupiter.api.Assumptions.assumeTrue(attach.waitFor() == 0 && loop.startsWith("/dev/loop"),
        "losetup is not available here");
    try {
      assertEquals(48L << 20, ImageWriter.deviceSize(Path.of(loop)));
      ImageWriter.writeBootLayout(Path.of(loop), contents("{}".getBytes(StandardCharsets.UTF_8), java.util.Map.of()),
          p -> { });
      byte[] raw = Files.readAllBytes(backing);
      long last = raw.length / 512 - 1;
      assertEquals("EFI PART", new String(raw, (int) (last * 512), 8, StandardCharsets.US_ASCII),
          "the backup GPT header is on the device's last sector");
    } finally {
      new ProcessBuilder("losetup", "-d", loop).start().waitFor();
    }
  }

  /**
   * A disk pulled mid-write, as near as this machine allows (no device-mapper here): a loop device whose backing file is
   * cut to 1 MiB and whose capacity is re-read while the image streams in. The kernel then takes no more bytes; the
   * writer must fail, never report a short image as written.
   */
  @Test
  void aDiskThatGoesAwayMidWriteFailsTheWrite() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(new com.sun.security.auth.module.UnixSystem().getUid() == 0,
        "loop devices need root");
    Path backing = disk(64);
    Process attach = new ProcessBuilder("losetup", "--find", "--show", backing.toString()).start();
    String loop = new String(attach.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    org.junit.jupiter.api.Assumptions.assumeTrue(attach.waitFor() == 0 && loop.startsWith("/dev/loop"),
        "losetup is not available here");
    try {
      byte[] image = new byte[32 << 20];
      new Random(11).nextBytes(image);
      java.util.concurrent.CountDownLatch halfway = new java.util.concurrent.CountDownLatch(1);
      java.util.concurrent.CountDownLatch pulled = new java.util.concurrent.CountDownLatch(1);
      java.io.InputStream slow = new java.io.FilterInputStream(new ByteArrayInputStream(image)) {
        long read;

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
          if (read >= (8 << 20)) {
            halfway.countDown();
            try {
              pulled.await();
            } catch (InterruptedException e) {
              throw new IOException(e);
            }
          }
          int n = super.read(b, off, len);
          read += Math.max(n, 0);
          return n;
        }
      };
      List<Integer> percents = new java.util.concurrent.CopyOnWriteArrayList<>();
      var writing = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
        try {
          ImageWriter.writeImage(slow, image.length, null, Path.of(loop), percents::add);
          return null;
        } catch (IOException e) {
          return e;
        }
      });
      assertTrue(halfway.await(30, java.util.concurrent.TimeUnit.SECONDS));
      try (RandomAccessFile f = new RandomAccessFile(backing.toFile(), "rw")) {
        f.setLength(1 << 20);
      }
      assertEquals(0, new ProcessBuilder("losetup", "-c", loop).start().waitFor(), "capacity re-read");
      pulled.countDown();
      IOException e = writing.get(60, java.util.concurrent.TimeUnit.SECONDS);
      assertTrue(e != null, "the write failed; percents " + percents);
      assertTrue(!percents.contains(100), percents.toString());
    } finally {
      new ProcessBuilder("losetup", "-d", loop).start().waitFor();
    }
  }

  @Test
  void aDeviceOfThisMachineIsNeverWrittenUnlessItWasBootedFromTheDiscoveryImage() throws Exception {
    assertThrows(IOException.class, () -> ImageWriter.writeImage(new ByteArrayInputStream(new byte[1]), 1, null,
        Path.of("/dev/null"), p -> { }));
    assertThrows(IOException.class, () -> ImageWriter.writeImage(new ByteArrayInputStream(new byte[1]), 1, null,
        Path.of("/dev/null"), p -> { }, false));
    // a discovery host's disks hold no running system: a device is taken (asked of /dev/null, the harmless one)
    ImageWriter.checkTarget(Path.of("/dev/null"), true);
    assertThrows(IOException.class, () -> ImageWriter.checkTarget(Path.of("/dev/null"), false));
  }

  @Test
  void aMetalImageGetsWhatCoreosInstallerLeavesInItsBootPartition() throws Exception {
    // a CoreOS-shaped metal image: GPT with a partition labelled boot (ext4) holding a boot entry, built by the writer
    Path image = dir.resolve("metal.img");
    try (RandomAccessFile f = new RandomAccessFile(image.toFile(), "rw")) {
      f.setLength(40L << 20);
    }
    ImageWriter.writeBootLayout(image, contents("{\"old\":true}".getBytes(StandardCharsets.UTF_8), java.util.Map.of(),
        "--append-karg", "root=UUID=1234", "--append-karg", "quiet"), p -> { });
    byte[] metal = Files.readAllBytes(image);
    String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(metal));
    Path disk = disk(64);
    ImageWriter.writeImage(new ByteArrayInputStream(metal), metal.length, sha, disk, p -> { });
    byte[] ignition = "{\"ignition\":{\"version\":\"3.2.0\"}}".getBytes(StandardCharsets.UTF_8);
    BootPartition.customize(disk, contents(ignition, java.util.Map.of("bond0.nmconnection", "[connection]\nid=bond0\n",
        "eth0.nmconnection", "[connection]\nid=eth0\n"), "--delete-karg", "quiet", "--append-karg=ip=dhcp", "-n"));

    long[] boot = ImageWriter.findPartition(disk, "boot");
    assertEquals(2048, boot[0]);
    byte[] raw = Files.readAllBytes(disk);
    Path part = dir.resolve("boot.ext4");
    Files.write(part, java.util.Arrays.copyOfRange(raw, (int) (boot[0] * 512), (int) ((boot[1] + 1) * 512)));
    assertArrayEquals(ignition, debugfsCat(part, "/ignition/config.ign"), "the host's Ignition replaced the image's");
    assertTrue(debugfs(part, "stat /ignition").contains("Mode:  0700"), "the Ignition's directory is root's alone");
    assertTrue(debugfs(part, "stat /ignition/config.ign").contains("Mode:  0600"));
    assertEquals("title Rendezvous minimal layout (no OS image was named)\noptions root=UUID=1234 ip=dhcp\n",
        new String(debugfsCat(part, "/loader/entries/rendezvous-minimal.conf"), StandardCharsets.UTF_8),
        "quiet deleted, ip=dhcp appended, as coreos-installer edits the default entry");
    assertEquals("[connection]\nid=bond0\n", new String(debugfsCat(part, "/coreos-firstboot-network/bond0.nmconnection"),
        StandardCharsets.UTF_8));
    assertEquals("[connection]\nid=eth0\n", new String(debugfsCat(part, "/coreos-firstboot-network/eth0.nmconnection"),
        StandardCharsets.UTF_8));
    assertThrows(IOException.class, () -> ImageWriter.findPartition(disk, "root"), "no such partition: a clear error");
  }

  private static String debugfs(Path fs, String request) throws Exception {
    Process p = new ProcessBuilder("debugfs", "-R", request, fs.toString()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.waitFor());
    return out;
  }

  @Test
  void installerArgumentsAreReadAsCoreosInstallerReadsThem() {
    CoreosInstallerArgs a = CoreosInstallerArgs.parse(List.of("--append-karg", "console=ttyS0,115200",
        "--delete-karg=rhgb", "--copy-network", "--network-dir", "/etc/custom", "--image-url=http://x/img.raw"));
    assertEquals(List.of("console=ttyS0,115200"), a.appendKargs());
    assertEquals("quiet console=ttyS0,115200", a.applyTo("rhgb  quiet rhgb"));
    assertTrue(a.copyNetwork());
    assertEquals("/etc/custom", a.networkDir());
    assertEquals("http://x/img.raw", a.imageUrl());
    assertEquals(CoreosInstallerArgs.NETWORK_DIR, CoreosInstallerArgs.parse(List.of("-n")).networkDir());
    for (List<String> bad : List.of(List.of("--append-karg"), List.of("--save-partlabel", "data"),
        List.of("--wipe-everything"))) {
      assertThrows(IllegalArgumentException.class, () -> CoreosInstallerArgs.parse(bad), bad.toString());
    }
  }

  @Test
  void aBootEntryWithoutAnOptionsLineIsAnErrorNotASilentSkip() throws Exception {
    Path disk = disk(48);
    ImageWriter.writeBootLayout(disk, contents("{}".getBytes(StandardCharsets.UTF_8), java.util.Map.of()), p -> { });
    // replace the entry with one that has no options line, as a broken image would
    long[] boot = ImageWriter.findPartition(disk, "boot");
    byte[] raw = Files.readAllBytes(disk);
    Path part = dir.resolve("broken.ext4");
    Files.write(part, java.util.Arrays.copyOfRange(raw, (int) (boot[0] * 512), (int) ((boot[1] + 1) * 512)));
    Path entry = dir.resolve("entry.conf");
    Files.writeString(entry, "title no options\n");
    debugfs(part, "rm /loader/entries/rendezvous-minimal.conf");
    new ProcessBuilder("debugfs", "-w", "-R", "write " + entry + " /loader/entries/z.conf", part.toString()).start()
        .waitFor();
    try (java.nio.channels.FileChannel out = java.nio.channels.FileChannel.open(disk,
        java.nio.file.StandardOpenOption.WRITE)) {
      out.write(java.nio.ByteBuffer.wrap(Files.readAllBytes(part)), boot[0] * 512);
    }
    IOException e = assertThrows(IOException.class, () -> BootPartition.customize(disk,
        contents("{}".getBytes(StandardCharsets.UTF_8), java.util.Map.of(), "--append-karg", "x=1")));
    assertTrue(e.getMessage().contains("z.conf: couldn't locate 'options' line"), e.getMessage());
  }
}
