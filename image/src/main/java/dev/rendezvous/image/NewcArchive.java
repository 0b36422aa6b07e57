package dev.rendezvous.image;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.zip.GZIPOutputStream;

/**
 * Writes "newc" (SVR4, no CRC) cpio archives as the Linux initramfs loader reads them, and the
 * gzip-compressed, 4-byte padded form that goes into an embed area or after an initrd.
 */
public final class NewcArchive {

  public static final int MODE_FILE_644 = 0100644;
  public static final int MODE_FILE_600 = 0100600;
  public static final int MODE_FILE_755 = 0100755;
  public static final int MODE_DIR_755 = 040755;

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private int inode = 1;
  private boolean finished;

  /** Adds a regular file or directory (data empty) with a relative or absolute name. */
  public NewcArchive add(String name, int mode, byte[] data) {
    if (finished) {
      throw new IllegalStateException("archive already finished");
    }
    header(name, mode, data.length, inode++, 1);
    out.writeBytes(data);
    pad4();
    return this;
  }

  private void header(String name, int mode, int fileSize, int ino, int nlink) {
    byte[] nameBytes = (name + "\0").getBytes(StandardCharsets.UTF_8);
    StringBuilder h = new StringBuilder(110).append("070701");
    for (long v : new long[] {ino, mode, 0, 0, nlink, 0, fileSize, 0, 0, 0, 0, nameBytes.length, 0}) {
      h.append(String.format("%08X", v));
    }
    out.writeBytes(h.toString().getBytes(StandardCharsets.US_ASCII));
    out.writeBytes(nameBytes);
    pad4();
  }

  private void pad4() {
    while (out.size() % 4 != 0) {
      out.write(0);
    }
  }

  /** The uncompressed archive, trailer included. */
  public byte[] finish() {
    if (!finished) {
      header("TRAILER!!!", 0, 0, 0, 1);
      finished = true;
    }
    return out.toByteArray();
  }

  /** gzip of the archive, zero-padded to a multiple of 4 bytes (so more archives may follow). */
  public byte[] finishGzipped() {
    byte[] raw = finish();
    ByteArrayOutputStream gz = new ByteArrayOutputStream(raw.length / 2 + 64);
    try (OutputStream z = new GZIPOutputStream(gz)) {
      z.write(raw);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    while (gz.size() % 4 != 0) {
      gz.write(0);
    }
    return gz.toByteArray();
  }

  /** The compressed archive that carries a discovery Ignition config as {@code config.ign}. */
  public static byte[] ignitionArchive(byte[] ignition) {
    return new NewcArchive().add("config.ign", MODE_FILE_644, ignition).finishGzipped();
  }
}
