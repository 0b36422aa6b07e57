package dev.rendezvous.controller.testing;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.apache.commons.compress.compressors.gzip.GzipCompressorInputStream;

/** Reads a log bundle with an independent implementation (commons-compress). */
public final class TarGzReader {
  private TarGzReader() {
  }

  public static Map<String, byte[]> read(byte[] tarGz) {
    Map<String, byte[]> files = new LinkedHashMap<>();
    try (TarArchiveInputStream in = new TarArchiveInputStream(new GzipCompressorInputStream(
        new ByteArrayInputStream(tarGz)))) {
      TarArchiveEntry e;
      while ((e = in.getNextEntry()) != null) {
        files.put(e.getName(), in.readAllBytes());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }
}
