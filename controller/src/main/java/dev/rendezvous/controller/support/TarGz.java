package dev.rendezvous.controller.support;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.zip.GZIPOutputStream;

/** Writes a gzip-compressed POSIX ustar archive of in-memory files (the log bundles the service takes). */
public final class TarGz {

  /** A file of the archive; {@code name} may contain '/' for directories. */
  public record Entry(String name, byte[] content) {
  }

  private TarGz() {
  }

  public static byte[] write(List<Entry> entries, long mtimeSeconds) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(bytes)) {
      for (Entry e : entries) {
        gz.write(header(e.name(), e.content().length, mtimeSeconds));
        gz.write(e.content());
        pad(gz, e.content().length);
      }
      gz.write(new byte[1024]);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  private static void pad(OutputStream out, long size) throws IOException {
    int rest = (int) (size % 512);
    if (rest != 0) {
      out.write(new byte[512 - rest]);
    }
  }

  private static byte[] header(String name, long size, long mtime) {
    byte[] h = new byte[512];
    byte[] n = name.getBytes(StandardCharsets.UTF_8);
    if (n.length > 100) {
      // ustar: up to 155 bytes of directory prefix, 100 of name
      int cut = name.lastIndexOf('/', Math.min(name.length() - 1, 155));
      byte[] prefix = name.substring(0, Math.max(cut, 0)).getBytes(StandardCharsets.UTF_8);
      byte[] rest = name.substring(cut + 1).getBytes(StandardCharsets.UTF_8);
      if (cut <= 0 || prefix.length > 155 || rest.length > 100) {
        throw new IllegalArgumentException("tar entry name too long: " + name);
      }
      System.arraycopy(rest, 0, h, 0, rest.length);
      System.arraycopy(prefix, 0, h, 345, prefix.length);
    } else {
      System.arraycopy(n, 0, h, 0, n.length);
    }
    octal(h, 100, 8, 0644);
    octal(h, 108, 8, 0);
    octal(h, 116, 8, 0);
    octal(h, 124, 12, size);
    octal(h, 136, 12, mtime);
    for (int i = 148; i < 156; i++) {
      h[i] = ' ';
    }
    h[156] = '0';
    byte[] magic = "ustar\u000000".getBytes(StandardCharsets.US_ASCII);
    System.arraycopy(magic, 0, h, 257, magic.length);
    long sum = 0;
    for (byte b : h) {
      sum += b & 0xff;
    }
    octal(h, 148, 7, sum);
    h[155] = ' ';
    return h;
  }

  /** Zero-padded octal digits followed by a NUL, filling {@code len} bytes. */
  private static void octal(byte[] h, int off, int len, long value) {
    String s = Long.toOctalString(value);
    int digits = len - 1;
    if (s.length() > digits) {
      throw new IllegalArgumentException("tar field overflow: " + value);
    }
    for (int i = 0; i < digits - s.length(); i++) {
      h[off + i] = '0';
    }
    byte[] d = s.getBytes(StandardCharsets.US_ASCII);
    System.arraycopy(d, 0, h, off + digits - d.length, d.length);
    h[off + digits] = 0;
  }
}
