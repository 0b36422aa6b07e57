package dev.rendezvous.image;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;

/**
 * One base ISO on local disk, parsed once and kept open: every download of it shares the channel
 * (positional reads and zero-copy transfers do not move a shared position).
 */
public final class BaseImageFile implements AutoCloseable {

  private final Path path;
  private final IsoLayout layout;
  private final FileChannel channel;
  private final Instant modified;
  private final String fingerprint;

  private BaseImageFile(Path path, IsoLayout layout, FileChannel channel, Instant modified) {
    this.path = path;
    this.layout = layout;
    this.channel = channel;
    this.modified = modified;
    this.fingerprint = path.getFileName() + ":" + layout.size() + ":" + modified.toEpochMilli();
  }

  /** Blocking: parses the ISO and opens it. */
  public static BaseImageFile open(Path path) throws IOException {
    IsoLayout layout = IsoLayout.read(path);
    FileChannel ch = FileChannel.open(path, StandardOpenOption.READ);
    return new BaseImageFile(path, layout, ch, Files.getLastModifiedTime(path).toInstant());
  }

  public Path path() {
    return path;
  }

  public IsoLayout layout() {
    return layout;
  }

  public FileChannel channel() {
    return channel;
  }

  public Instant modified() {
    return modified;
  }

  /** Changes when the file is replaced: part of every ETag built on this file. */
  public String fingerprint() {
    return fingerprint;
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }
}
