package dev.rendezvous.image;

import io.vertx.core.buffer.Buffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A response body made of stretches of one base file and small in-memory byte runs, in order.
 * Nothing is copied: base bytes stay on disk (sent zero-copy), memory parts are shared buffers.
 */
public final class ImageBody {

  /** A piece of the body. */
  public sealed interface Part permits FilePart, MemoryPart {
    long length();
  }

  /** {@code length} bytes of the base file from {@code fileOffset}. */
  public record FilePart(long fileOffset, long length) implements Part {}

  /** Bytes held in memory. */
  public record MemoryPart(Buffer bytes) implements Part {
    @Override
    public long length() {
      return bytes.length();
    }
  }

  /** A replacement of base bytes at an absolute offset. */
  public record Patch(long offset, Buffer bytes) {}

  private static final int ZERO_CHUNK = 256 * 1024;
  private static final Buffer ZEROS = Buffer.buffer(new byte[ZERO_CHUNK]);

  private final Path file;
  private final List<Part> parts;
  private final long length;

  public ImageBody(Path file, List<Part> parts) {
    this.file = file;
    List<Part> nonEmpty = new ArrayList<>();
    long total = 0;
    for (Part p : parts) {
      if (p.length() > 0) {
        nonEmpty.add(p);
        total += p.length();
      }
    }
    this.parts = Collections.unmodifiableList(nonEmpty);
    this.length = total;
  }

  /** The base file's first {@code size} bytes with the patches laid over them. */
  public static ImageBody overlay(Path file, long size, List<Patch> patches) {
    List<Patch> sorted = new ArrayList<>(patches);
    sorted.sort((a, b) -> Long.compare(a.offset(), b.offset()));
    List<Part> parts = new ArrayList<>();
    long pos = 0;
    for (Patch p : sorted) {
      if (p.offset() < pos || p.offset() + p.bytes().length() > size) {
        throw new IllegalArgumentException("overlapping or out-of-image patch at " + p.offset());
      }
      parts.add(new FilePart(pos, p.offset() - pos));
      parts.add(new MemoryPart(p.bytes()));
      pos = p.offset() + p.bytes().length();
    }
    parts.add(new FilePart(pos, size - pos));
    return new ImageBody(file, parts);
  }

  /** {@code length} zero bytes, shared, as a buffer list. */
  public static List<Buffer> zeros(long length) {
    List<Buffer> out = new ArrayList<>();
    for (long left = length; left > 0; left -= ZERO_CHUNK) {
      out.add(ZEROS.slice(0, (int) Math.min(ZERO_CHUNK, left)));
    }
    return out;
  }

  /** A patch of {@code content} followed by zeros up to {@code areaLength}. */
  public static List<Patch> zeroFilled(long offset, long areaLength, byte[] content) {
    if (content.length > areaLength) {
      throw new IllegalArgumentException("content larger than area");
    }
    List<Patch> out = new ArrayList<>();
    out.add(new Patch(offset, Buffer.buffer(content)));
    long pos = offset + content.length;
    for (Buffer z : zeros(areaLength - content.length)) {
      out.add(new Patch(pos, z));
      pos += z.length();
    }
    return out;
  }

  public Path file() {
    return file;
  }

  public List<Part> parts() {
    return parts;
  }

  public long length() {
    return length;
  }

  /** The parts covering body bytes {@code [start, end)}. */
  public List<Part> slice(long start, long end) {
    if (start < 0 || end > length || start > end) {
      throw new IndexOutOfBoundsException(start + "-" + end + " of " + length);
    }
    List<Part> out = new ArrayList<>();
    long pos = 0;
    for (Part p : parts) {
      long pEnd = pos + p.length();
      long from = Math.max(start, pos);
      long to = Math.min(end, pEnd);
      if (from < to) {
        long a = from - pos;
        long b = to - pos;
        if (p instanceof FilePart f) {
          out.add(new FilePart(f.fileOffset() + a, b - a));
        } else {
          MemoryPart m = (MemoryPart) p;
          out.add(new MemoryPart(m.bytes().slice((int) a, (int) b)));
        }
      }
      pos = pEnd;
      if (pos >= end) {
        break;
      }
    }
    return out;
  }
}
