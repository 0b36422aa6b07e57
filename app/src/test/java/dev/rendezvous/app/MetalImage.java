package dev.rendezvous.app;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;

/**
 * A small CoreOS-shaped metal image, made with Debian's sgdisk and mkfs.ext4: a GPT with BIOS-BOOT, a partition
 * named {@code boot} (ext4, where coreos-installer puts the Ignition) and {@code root} (ext4 with an os-release);
 * served over HTTP as the release catalog's {@code metal_url}. Per client address the server can answer 404 or
 * corrupted bytes instead (the failure tests), and the disks it was written to are read back and checked here.
 */
final class MetalImage implements AutoCloseable {
  static final long SECTOR = 512;
  static final long BOOT_FIRST = 4096;
  static final long BOOT_LAST = BOOT_FIRST + (32L << 20) / SECTOR - 1;
  static final long ROOT_FIRST = BOOT_LAST + 1;
  static final long ROOT_LAST = ROOT_FIRST + (8L << 20) / SECTOR - 1;
  static final String OS_RELEASE = "NAME=\"Rendezvous test CoreOS\"\nID=rhcos\n";
  /** The kernel arguments of the image's boot entry, as a CoreOS image's default entry has its own. */
  static final String OPTIONS = "root=UUID=rdv-test-root rw ignition.platform.id=metal quiet";

  /** What the server answers a client. */
  enum Answer { IMAGE, NOT_FOUND, CORRUPTED }

  final String sha256;
  private final byte[] rootPartition;
  private final HttpServer server;
  private final Map<String, Answer> answers = new ConcurrentHashMap<>();
  private final Map<String, Integer> downloads = new ConcurrentHashMap<>();
  private final Map<String, java.util.concurrent.CountDownLatch> holds = new ConcurrentHashMap<>();

  private MetalImage(String sha256, byte[] rootPartition, HttpServer server) {
    this.sha256 = sha256;
    this.rootPartition = rootPartition;
    this.server = server;
  }

  /** Builds the image in {@code dir} and serves it on all addresses (the namespaces reach the bridge's). */
  static MetalImage buildAndServe(Path dir) throws Exception {
    Path img = dir.resolve("rhcos-metal.x86_64.raw");
    try (var f = new java.io.RandomAccessFile(img.toFile(), "rw")) {
      f.setLength((ROOT_LAST + 1 + 64) * SECTOR);
    }
    run("sgdisk", "-n", "1:2048:4095", "-t", "1:EF02", "-c", "1:BIOS-BOOT",
        "-n", "2:" + BOOT_FIRST + ":" + BOOT_LAST, "-t", "2:8300", "-c", "2:boot",
        "-n", "3:" + ROOT_FIRST + ":" + ROOT_LAST, "-t", "3:8300", "-c", "3:root", img.toString());
    Path boot = Files.createDirectories(dir.resolve("boot-tree/loader/entries"));
    Files.writeString(boot.resolve("ostree-1-rhcos.conf"), "title Red Hat Enterprise Linux CoreOS (test)\nversion 1\n"
        + "linux /ostree/rhcos/vmlinuz\ninitrd /ostree/rhcos/initramfs.img\noptions " + OPTIONS + "\n");
    Path root = Files.createDirectories(dir.resolve("root-tree/etc"));
    Files.writeString(root.resolve("os-release"), OS_RELEASE);
    for (String[] fs : new String[][] {{"boot", "boot-tree", "32M"}, {"root", "root-tree", "8M"}}) {
      Path part = dir.resolve(fs[0] + ".ext4");
      run("mkfs.ext4", "-q", "-F", "-L", fs[0], "-d", dir.resolve(fs[1]).toString(), part.toString(), fs[2]);
      long first = fs[0].equals("boot") ? BOOT_FIRST : ROOT_FIRST;
      try (FileChannel out = FileChannel.open(img, StandardOpenOption.WRITE)) {
        out.write(ByteBuffer.wrap(Files.readAllBytes(part)), first * SECTOR);
      }
    }
    byte[] bytes = Files.readAllBytes(img);
    String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    byte[] rootPart = Arrays.copyOfRange(bytes, (int) (ROOT_FIRST * SECTOR), (int) ((ROOT_LAST + 1) * SECTOR));

    HttpServer server = HttpServer.create(new InetSocketAddress("0.0.0.0", 0), 16);
    MetalImage m = new MetalImage(sha, rootPart, server);
    server.createContext("/rhcos-metal.x86_64.raw", ex -> {
      String client = ex.getRemoteAddress().getAddress().getHostAddress();
      m.downloads.merge(client, 1, Integer::sum);
      java.util.concurrent.CountDownLatch held = m.holds.get(client);
      if (held != null) {
        try {
          held.await(150, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      Answer a = m.answers.getOrDefault(client, Answer.IMAGE);
      if (a == Answer.NOT_FOUND) {
        ex.sendResponseHeaders(404, -1);
        ex.close();
        return;
      }
      byte[] body = bytes;
      if (a == Answer.CORRUPTED) { // a byte flipped in the root partition: only the checksum can tell
        body = bytes.clone();
        body[(int) (ROOT_FIRST * SECTOR) + 4096] ^= 0x5a;
      }
      ex.sendResponseHeaders(200, body.length);
      try (OutputStream out = ex.getResponseBody()) {
        out.write(body);
      }
    });
    server.setExecutor(Executors.newFixedThreadPool(4, r -> {
      Thread t = new Thread(r, "metal-image-server");
      t.setDaemon(true);
      return t;
    }));
    server.start();
    return m;
  }

  /** The catalog entry's metal_url as the hosts reach it, through the bridge's address. */
  String url(String address) {
    return "http://" + address + ":" + server.getAddress().getPort() + "/rhcos-metal.x86_64.raw";
  }

  void answer(String clientAddress, Answer a) {
    answers.put(clientAddress, a);
  }

  /** Holds that client's downloads until {@link #release(String)}, so a failure comes when the test wants it. */
  void hold(String clientAddress) {
    holds.put(clientAddress, new java.util.concurrent.CountDownLatch(1));
  }

  void release(String clientAddress) {
    java.util.concurrent.CountDownLatch l = holds.remove(clientAddress);
    if (l != null) {
      l.countDown();
    }
  }

  /** Every client served the image again, nothing held. */
  void answerAllWithImage() {
    answers.clear();
    List.copyOf(holds.keySet()).forEach(this::release);
  }

  /** Whether the head of {@code disk} (its GPT and boot partition) is zeros while its root partition was written. */
  boolean wipedAfterWriting(Path disk) throws IOException {
    byte[] head = readHead(disk);
    boolean headZero = Arrays.equals(new byte[1 << 20], Arrays.copyOf(head, 1 << 20));
    byte[] root = Arrays.copyOfRange(head, (int) (ROOT_FIRST * SECTOR), head.length);
    return headZero && !Arrays.equals(new byte[root.length], root);
  }

  int downloads(String clientAddress) {
    return downloads.getOrDefault(clientAddress, 0);
  }

  /**
   * Reads a host's disk back as the machine would boot it: a valid GPT (header and entries CRCs) with this image's
   * partitions, the root partition as the image has it, and in the boot partition (read by e2fsprogs' debugfs) the
   * image's own files plus {@code ignition/config.ign} equal to {@code ignition} and the {@code ignition.firstboot}
   * flag, as coreos-installer leaves them.
   */
  void assertInstalledOn(Path disk, byte[] ignition, Path scratch) throws Exception {
    assertInstalledOn(disk, ignition, scratch, OPTIONS, Map.of());
  }

  /**
   * As {@link #assertInstalledOn(Path, byte[], Path)}, the boot entry's {@code options} line being {@code options}
   * (the installer's kernel arguments applied) and {@code coreos-firstboot-network/} holding exactly {@code network}
   * (file name to content: the discovery host's profiles copied by --copy-network).
   */
  void assertInstalledOn(Path disk, byte[] ignition, Path scratch, String options, Map<String, String> network)
      throws Exception {
    byte[] head = readHead(disk);
    assertEquals((byte) 0x55, head[510], disk + ": protective MBR signature");
    assertEquals((byte) 0xAA, head[511], disk + ": protective MBR signature");
    ByteBuffer h = ByteBuffer.wrap(head, (int) SECTOR, (int) SECTOR).slice().order(ByteOrder.LITTLE_ENDIAN);
    assertEquals("EFI PART", new String(head, (int) SECTOR, 8, StandardCharsets.US_ASCII), disk + ": GPT header");
    byte[] header = Arrays.copyOfRange(head, (int) SECTOR, (int) SECTOR + h.getInt(12));
    ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN).putInt(16, 0);
    assertEquals(h.getInt(16), crc(header, 0, header.length), disk + ": GPT header CRC");
    long entriesLba = h.getLong(72);
    int count = h.getInt(80);
    int size = h.getInt(84);
    assertEquals(h.getInt(88), crc(head, (int) (entriesLba * SECTOR), count * size), disk + ": GPT entries CRC");
    ByteBuffer e = ByteBuffer.wrap(head, (int) (entriesLba * SECTOR), count * size).slice().order(ByteOrder.LITTLE_ENDIAN);
    assertEquals("boot", name(e, 1 * size), disk + ": partition 2");
    assertEquals(BOOT_FIRST, e.getLong(size + 32));
    assertEquals(BOOT_LAST, e.getLong(size + 40));
    assertEquals("root", name(e, 2 * size), disk + ": partition 3");

    assertArrayEquals(rootPartition, Arrays.copyOfRange(head, (int) (ROOT_FIRST * SECTOR), head.length),
        disk + ": the root partition is the image's");
    Path bootFs = scratch.resolve("boot-readback.ext4");
    Files.write(bootFs, Arrays.copyOfRange(head, (int) (BOOT_FIRST * SECTOR), (int) ((BOOT_LAST + 1) * SECTOR)));
    try {
      assertArrayEquals(ignition, debugfsCat(bootFs, "/ignition/config.ign"), disk + ": ignition/config.ign");
      assertTrue(debugfs(bootFs, "stat /ignition.firstboot").contains("Type: regular"), disk + ": ignition.firstboot");
      String entry = new String(debugfsCat(bootFs, "/loader/entries/ostree-1-rhcos.conf"), StandardCharsets.UTF_8);
      assertTrue(entry.startsWith("title Red Hat Enterprise Linux CoreOS"), disk + ": the image's own boot files stay");
      assertEquals("options " + options, entry.lines().filter(l -> l.startsWith("options ")).findFirst().orElse(null),
          disk + ": the boot entry's kernel arguments");
      String listing = debugfs(bootFs, "ls -p /coreos-firstboot-network");
      if (network.isEmpty()) {
        assertTrue(listing.contains("File not found"), disk + ": no network profiles were asked for: " + listing);
      }
      for (Map.Entry<String, String> f : network.entrySet()) {
        assertEquals(f.getValue(), new String(debugfsCat(bootFs, "/coreos-firstboot-network/" + f.getKey()),
            StandardCharsets.UTF_8), disk + ": " + f.getKey() + " copied for the first boot");
      }
    } finally {
      Files.deleteIfExists(bootFs);
    }
  }

  /** Zeroes what an earlier installation left at the head of a disk. */
  static void wipe(Path disk) throws IOException {
    try (FileChannel out = FileChannel.open(disk, StandardOpenOption.WRITE)) {
      out.write(ByteBuffer.allocate((int) ((ROOT_LAST + 1) * SECTOR)), 0);
      out.force(true);
    }
  }

  /** As many bytes from the start of the disk as the image has. */
  private static byte[] readHead(Path disk) throws IOException {
    ByteBuffer b = ByteBuffer.allocate((int) ((ROOT_LAST + 1) * SECTOR));
    try (FileChannel in = FileChannel.open(disk, StandardOpenOption.READ)) {
      while (b.hasRemaining() && in.read(b, b.position()) > 0) {
        // until full
      }
    }
    return b.array();
  }

  private static String name(ByteBuffer entries, int at) {
    byte[] raw = new byte[72];
    entries.get(at + 56, raw);
    return new String(raw, StandardCharsets.UTF_16LE).replace("\u0000", "");
  }

  private static int crc(byte[] b, int off, int len) {
    CRC32 c = new CRC32();
    c.update(b, off, len);
    return (int) c.getValue();
  }

  static byte[] debugfsCat(Path fs, String file) throws Exception {
    Process p = new ProcessBuilder("debugfs", "-R", "cat " + file, fs.toString())
        .redirectError(ProcessBuilder.Redirect.DISCARD).start();
    byte[] out = p.getInputStream().readAllBytes();
    assertEquals(0, p.waitFor(), "debugfs cat " + file);
    return out;
  }

  private static String debugfs(Path fs, String request) throws Exception {
    Process p = new ProcessBuilder("debugfs", "-R", request, fs.toString()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor(30, TimeUnit.SECONDS);
    return out;
  }

  private static void run(String... cmd) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IOException(String.join(" ", cmd) + " failed: " + out);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
