package dev.rendezvous.image;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Writes an ISO 9660 image from a tree of files, in Java (no xorriso on the machine), as upstream's image service
 * re-masters a minimal ISO with go-diskfs: primary names in 8.3 form (what coreos-installer looks up), Rock Ridge
 * names and modes (what bootloaders, Linux and our reader see), and the El Torito boot setup replayed with each boot
 * image's new location (boot-info table included). The system area is left empty, as upstream leaves it: the image
 * boots from (virtual) optical media, not as a hybrid disk image from a USB stick. Blocking: run off the event loop.
 */
public final class IsoWriter {

  /** What a file holds. */
  public sealed interface Content permits Slice, Bytes, Zeros {
    long length();
  }

  /** A byte range of another file (typically the same file in the ISO this one is made from). */
  public record Slice(FileChannel source, long offset, long length) implements Content {}

  /** Bytes in memory (edited files). */
  public record Bytes(byte[] bytes) implements Content {
    @Override
    public long length() {
      return bytes.length;
    }
  }

  /** A run of zeros (placeholder areas). */
  public record Zeros(long length) implements Content {}

  private static final int SECTOR = IsoFileSystem.SECTOR;
  private static final int DIR_MODE = 040555;
  private static final int FILE_MODE = 0100444;
  private static final String RRIP = "RRIP_1991A";
  private static final String RRIP_DESCRIPTION =
      "THE ROCK RIDGE INTERCHANGE PROTOCOL PROVIDES SUPPORT FOR POSIX FILE SYSTEM SEMANTICS";

  private static final class Node {
    final String name;
    final Node parent;
    final boolean dir;
    final Map<String, Node> byName = new HashMap<>();
    final List<Node> children = new ArrayList<>();
    Content content;
    boolean catalog;
    String path;
    byte[] id;
    int number;
    long lba;
    long size;

    Node(String name, Node parent, boolean dir) {
      this.name = name;
      this.parent = parent == null ? this : parent;
      this.dir = dir;
    }
  }

  private IsoWriter() {}

  /**
   * Writes {@code target}.
   *
   * @param primaryTemplate a primary volume descriptor whose identifiers and dates the image keeps (its layout
   *     fields are rewritten)
   * @param files each file by its path (Rock Ridge names, '/'-separated), in any order; directories are implied
   * @param boot the boot setup to replay; its catalog takes the place of the file at its catalog path, if any
   */
  public static void write(Path target, byte[] primaryTemplate, Map<String, Content> files, Optional<ElTorito> boot)
      throws IOException {
    if (primaryTemplate.length != SECTOR || primaryTemplate[0] != 1) {
      throw new IllegalArgumentException("not a primary volume descriptor");
    }
    byte[] date = recordDate(primaryTemplate);
    Node root = new Node("", null, true);
    root.path = "";
    for (var e : files.entrySet()) {
      add(root, e.getKey(), e.getValue());
    }
    if (boot.isPresent() && boot.get().catalogPath().isPresent()) {
      Node cat = add(root, boot.get().catalogPath().get(), new Zeros(SECTOR));
      cat.catalog = true;
    }
    List<Node> dirs = new ArrayList<>();
    List<Node> fileNodes = new ArrayList<>();
    assignIds(root, dirs, fileNodes);
    Map<String, Node> byPath = new HashMap<>();
    fileNodes.forEach(f -> byPath.put(f.path, f));
    if (boot.isPresent()) {
      for (ElTorito.Section s : boot.get().sections()) {
        for (ElTorito.BootImage i : s.images()) {
          Node n = byPath.get(i.path());
          if (n == null || n.size == 0) {
            throw new IOException("boot image " + i.path() + " is not in the image");
          }
        }
      }
    }

    // layout: descriptors, path tables, directories, catalog, then the files in their sources' order
    long lba = 17;
    long bootRecordLba = boot.isPresent() ? lba++ : -1;
    long terminatorLba = lba++;
    int pathTableSize = pathTable(dirs, ByteOrder.LITTLE_ENDIAN).length; // its size: the sectors come later
    long ptSectors = sectors(pathTableSize);
    long lPathLba = lba;
    lba += ptSectors;
    long mPathLba = lba;
    lba += ptSectors;
    for (Node d : dirs) {
      d.size = packedSize(records(d, date));
      d.lba = lba;
      lba += d.size / SECTOR;
    }
    long catalogLba = boot.isPresent() ? lba++ : -1;
    long dataStart = lba;
    List<Node> data = new ArrayList<>(fileNodes);
    data.sort(Comparator.comparingLong(IsoWriter::sourceOrder));
    Map<String, Long> lbaOf = new LinkedHashMap<>();
    for (Node f : data) {
      if (f.catalog) {
        f.lba = catalogLba;
      } else if (f.size == 0) {
        f.lba = 0;
      } else {
        f.lba = lba;
        lba += sectors(f.size);
      }
      lbaOf.put(f.path, f.lba);
    }
    long total = lba;

    ByteBuffer head = ByteBuffer.allocate((int) (dataStart * SECTOR)).order(ByteOrder.LITTLE_ENDIAN);
    head.put(16 * SECTOR, primary(primaryTemplate, total, pathTableSize, lPathLba, mPathLba,
        record(root, new byte[] {0}, new byte[0], date, root)));
    if (boot.isPresent()) {
      head.put((int) bootRecordLba * SECTOR, ElTorito.bootRecord(catalogLba));
      head.put((int) catalogLba * SECTOR, boot.get().catalog(lbaOf));
    }
    head.put((int) terminatorLba * SECTOR, new byte[] {(byte) 255, 'C', 'D', '0', '0', '1', 1});
    head.put((int) lPathLba * SECTOR, pathTable(dirs, ByteOrder.LITTLE_ENDIAN)); // now with the directories' sectors
    head.put((int) mPathLba * SECTOR, pathTable(dirs, ByteOrder.BIG_ENDIAN));
    for (Node d : dirs) {
      int pos = (int) d.lba * SECTOR;
      int start = pos;
      for (byte[] r : records(d, date)) {
        if ((pos - start) % SECTOR + r.length > SECTOR) {
          pos = start + (int) sectors(pos - start) * SECTOR;
        }
        head.put(pos, r);
        pos += r.length;
      }
    }
    try (FileChannel out = FileChannel.open(target, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.TRUNCATE_EXISTING)) {
      writeFully(out, head.position(0), 0);
      for (Node f : data) {
        if (f.catalog || f.size == 0) {
          continue;
        }
        Content c = f.content;
        if (boot.isPresent() && boot.get().bootInfoTableIn(f.path)) {
          c = new Bytes(ElTorito.withBootInfoTable(bytes(c), f.lba));
        }
        copy(c, out, f.lba * SECTOR);
      }
      if (out.size() < total * SECTOR) {
        writeFully(out, ByteBuffer.allocate(1), total * SECTOR - 1);
      }
      out.force(true);
    }
  }

  private static Node add(Node root, String path, Content content) {
    String[] parts = (path.startsWith("/") ? path.substring(1) : path).split("/");
    Node at = root;
    for (int i = 0; i < parts.length - 1; i++) {
      Node parentDir = at;
      at = at.byName.computeIfAbsent(parts[i], n -> {
        Node d = new Node(n, parentDir, true);
        parentDir.children.add(d);
        return d;
      });
      if (!at.dir) {
        throw new IllegalArgumentException(path + ": " + parts[i] + " is a file");
      }
    }
    String name = parts[parts.length - 1];
    if (name.isEmpty() || name.equals(".") || name.equals("..")) {
      throw new IllegalArgumentException("bad path " + path);
    }
    Node existing = at.byName.get(name);
    if (existing != null) {
      if (existing.dir) {
        throw new IllegalArgumentException(path + " is a directory");
      }
      existing.content = content;
      existing.size = content.length();
      return existing;
    }
    Node f = new Node(name, at, false);
    f.content = content;
    f.size = content.length();
    at.byName.put(name, f);
    at.children.add(f);
    return f;
  }

  /** Primary names, children sorted by them, directory numbers in path-table order (breadth first). */
  private static void assignIds(Node root, List<Node> dirs, List<Node> files) {
    ArrayDeque<Node> queue = new ArrayDeque<>(List.of(root));
    while (!queue.isEmpty()) {
      Node d = queue.poll();
      d.number = dirs.size() + 1;
      dirs.add(d);
      Set<String> taken = new HashSet<>();
      d.children.sort(Comparator.comparing(n -> n.name));
      for (Node c : d.children) {
        c.path = d.path + "/" + c.name;
        c.id = primaryId(c.name, c.dir, taken).getBytes(StandardCharsets.US_ASCII);
      }
      d.children.sort(Comparator.comparing(n -> new String(n.id, StandardCharsets.US_ASCII)));
      for (Node c : d.children) {
        if (c.dir) {
          queue.add(c);
        } else {
          files.add(c);
        }
      }
    }
  }

  /** An ISO 9660 level-1 identifier for {@code name}: upper case, 8.3, d-characters only, unique in its directory. */
  static String primaryId(String name, boolean dir, Set<String> taken) {
    String n = name.toUpperCase(Locale.ROOT);
    if (n.startsWith(".")) {
      n = "_" + n.substring(1);
    }
    int dot = dir ? -1 : n.lastIndexOf('.');
    String base = dChars(dot >= 0 ? n.substring(0, dot) : n);
    String ext = dChars(dot >= 0 ? n.substring(dot + 1) : "");
    base = base.isEmpty() ? "_" : base.substring(0, Math.min(8, base.length()));
    ext = ext.substring(0, Math.min(3, ext.length()));
    String id = dir ? base : base + "." + ext + ";1";
    for (int i = 1; !taken.add(id); i++) {
      String suffix = Integer.toString(i);
      String b = base.substring(0, Math.min(base.length(), 8 - suffix.length())) + suffix;
      id = dir ? b : b + "." + ext + ";1";
    }
    return id;
  }

  private static String dChars(String s) {
    StringBuilder b = new StringBuilder(s.length());
    for (char c : s.toCharArray()) {
      b.append((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ? c : '_');
    }
    return b.toString();
  }

  private static long sourceOrder(Node f) {
    return f.content instanceof Slice s ? s.offset() : Long.MAX_VALUE;
  }

  private static List<byte[]> records(Node d, byte[] date) {
    List<byte[]> out = new ArrayList<>();
    boolean root = d.parent == d;
    byte[] self = root ? concat(sp(), px(DIR_MODE, links(d)), er()) : px(DIR_MODE, links(d));
    out.add(record(d, new byte[] {0}, self, date, d));
    out.add(record(d.parent, new byte[] {1}, px(DIR_MODE, links(d.parent)), date, d.parent));
    for (Node c : d.children) {
      byte[] su = concat(px(c.dir ? DIR_MODE : FILE_MODE, c.dir ? links(c) : 1), nm(c.name));
      out.add(record(c, c.id, su, date, c));
    }
    return out;
  }

  private static int links(Node d) {
    return 2 + (int) d.children.stream().filter(c -> c.dir).count();
  }

  private static byte[] record(Node n, byte[] id, byte[] su, byte[] date, Node extentOf) {
    int len = 33 + id.length + (id.length % 2 == 0 ? 1 : 0) + su.length;
    if (len > 255) {
      throw new IllegalArgumentException("name too long for an ISO directory record: " + n.name);
    }
    ByteBuffer b = ByteBuffer.allocate(len).order(ByteOrder.LITTLE_ENDIAN);
    b.put(0, (byte) len);
    bothEndian(b, 2, (int) extentOf.lba);
    bothEndian(b, 10, (int) extentOf.size);
    b.put(18, date);
    b.put(25, (byte) (n.dir ? 2 : 0));
    bothEndian16(b, 28, 1);
    b.put(32, (byte) id.length);
    b.put(33, id);
    b.put(len - su.length, su);
    return b.array();
  }

  private static long packedSize(List<byte[]> records) {
    long pos = 0;
    for (byte[] r : records) {
      if (pos % SECTOR + r.length > SECTOR) {
        pos = sectors(pos) * SECTOR;
      }
      pos += r.length;
    }
    return sectors(pos) * SECTOR;
  }

  private static byte[] pathTable(List<Node> dirs, ByteOrder order) {
    int size = 0;
    for (Node d : dirs) {
      int idLen = d.parent == d ? 1 : d.id.length;
      size += 8 + idLen + (idLen % 2);
    }
    ByteBuffer b = ByteBuffer.allocate(size).order(order);
    for (Node d : dirs) {
      byte[] id = d.parent == d ? new byte[] {0} : d.id;
      b.put((byte) id.length).put((byte) 0).putInt((int) d.lba).putShort((short) d.parent.number).put(id);
      if (id.length % 2 == 1) {
        b.put((byte) 0);
      }
    }
    return b.array();
  }

  private static byte[] primary(byte[] template, long total, int pathTableSize, long lPath, long mPath, byte[] root) {
    ByteBuffer b = ByteBuffer.wrap(template.clone()).order(ByteOrder.LITTLE_ENDIAN);
    bothEndian(b, 80, (int) total);
    bothEndian(b, 132, pathTableSize);
    b.putInt(140, (int) lPath).putInt(144, 0);
    b.order(ByteOrder.BIG_ENDIAN).putInt(148, (int) mPath).putInt(152, 0).order(ByteOrder.LITTLE_ENDIAN);
    b.put(156, root);
    return b.array();
  }

  /** The 7-byte recording date from the descriptor's creation date ("YYYYMMDDHHMMSScc" and a zone byte). */
  private static byte[] recordDate(byte[] pvd) {
    String s = new String(pvd, 813, 16, StandardCharsets.US_ASCII);
    if (!s.matches("\\d{16}") || s.startsWith("0000")) {
      return new byte[7];
    }
    int year = Integer.parseInt(s.substring(0, 4));
    return new byte[] {(byte) (year - 1900), (byte) Integer.parseInt(s.substring(4, 6)),
        (byte) Integer.parseInt(s.substring(6, 8)), (byte) Integer.parseInt(s.substring(8, 10)),
        (byte) Integer.parseInt(s.substring(10, 12)), (byte) Integer.parseInt(s.substring(12, 14)), pvd[829]};
  }

  private static byte[] sp() {
    return new byte[] {'S', 'P', 7, 1, (byte) 0xBE, (byte) 0xEF, 0};
  }

  private static byte[] er() {
    byte[] id = RRIP.getBytes(StandardCharsets.US_ASCII);
    byte[] des = RRIP_DESCRIPTION.getBytes(StandardCharsets.US_ASCII);
    ByteBuffer b = ByteBuffer.allocate(8 + id.length + des.length);
    b.put((byte) 'E').put((byte) 'R').put((byte) b.capacity()).put((byte) 1).put((byte) id.length)
        .put((byte) des.length).put((byte) 0).put((byte) 1).put(id).put(des);
    return b.array();
  }

  private static byte[] px(int mode, int links) {
    ByteBuffer b = ByteBuffer.allocate(36).order(ByteOrder.LITTLE_ENDIAN);
    b.put(0, (byte) 'P').put(1, (byte) 'X').put(2, (byte) 36).put(3, (byte) 1);
    bothEndian(b, 4, mode);
    bothEndian(b, 12, links);
    return b.array(); // uid and gid 0
  }

  private static byte[] nm(String name) {
    byte[] n = name.getBytes(StandardCharsets.UTF_8);
    ByteBuffer b = ByteBuffer.allocate(5 + n.length);
    b.put((byte) 'N').put((byte) 'M').put((byte) (5 + n.length)).put((byte) 1).put((byte) 0).put(n);
    return b.array();
  }

  private static void bothEndian(ByteBuffer b, int at, int v) {
    b.order(ByteOrder.LITTLE_ENDIAN).putInt(at, v);
    b.order(ByteOrder.BIG_ENDIAN).putInt(at + 4, v);
    b.order(ByteOrder.LITTLE_ENDIAN);
  }

  private static void bothEndian16(ByteBuffer b, int at, int v) {
    b.order(ByteOrder.LITTLE_ENDIAN).putShort(at, (short) v);
    b.order(ByteOrder.BIG_ENDIAN).putShort(at + 2, (short) v);
    b.order(ByteOrder.LITTLE_ENDIAN);
  }

  private static byte[] concat(byte[]... parts) {
    int n = 0;
    for (byte[] p : parts) {
      n += p.length;
    }
    ByteBuffer b = ByteBuffer.allocate(n);
    for (byte[] p : parts) {
      b.put(p);
    }
    return b.array();
  }

  private static long sectors(long bytes) {
    return (bytes + SECTOR - 1) / SECTOR;
  }

  private static byte[] bytes(Content c) throws IOException {
    if (c.length() > 64L * 1024 * 1024) {
      throw new IOException("boot image with a boot-info table too large: " + c.length());
    }
    if (c instanceof Bytes b) {
      return b.bytes().clone();
    }
    if (c instanceof Slice s) {
      return IsoFileSystem.readAt(s.source(), s.offset(), (int) s.length()).array();
    }
    return new byte[(int) c.length()];
  }

  private static void copy(Content c, FileChannel out, long at) throws IOException {
    if (c instanceof Bytes b) {
      writeFully(out, ByteBuffer.wrap(b.bytes()), at);
    } else if (c instanceof Slice s) {
      out.position(at);
      for (long done = 0; done < s.length(); ) {
        long n = s.source().transferTo(s.offset() + done, s.length() - done, out);
        if (n <= 0) {
          throw new IOException("source ended " + (s.length() - done) + " bytes early");
        }
        done += n;
      }
    } else {
      ByteBuffer zeros = ByteBuffer.allocate((int) Math.min(c.length(), 1 << 16));
      for (long done = 0; done < c.length(); ) {
        int n = (int) Math.min(zeros.capacity(), c.length() - done);
        writeFully(out, zeros.clear().limit(n), at + done);
        done += n;
      }
    }
  }

  private static void writeFully(FileChannel out, ByteBuffer b, long at) throws IOException {
    long pos = at;
    while (b.hasRemaining()) {
      pos += out.write(b, pos);
    }
  }
}
