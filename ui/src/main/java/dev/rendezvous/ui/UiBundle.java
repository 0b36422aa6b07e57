package dev.rendezvous.ui;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;

/**
 * The built web UI, read once from the class path ({@code rendezvous-ui/}, written by {@code ui/build-web}) into
 * memory with its precompressed copies: a few megabytes, served without touching a disk or a jar on an event loop.
 * When the build left the UI out (no Node.js on that machine), {@link #missingReason()} says why.
 */
public final class UiBundle {
  static final String ROOT = "rendezvous-ui/";

  /** One file: its bytes, gzip and brotli copies when the build made them, and an ETag of its content. */
  public record UiFile(String path, byte[] identity, byte[] gzip, byte[] brotli, String contentType, String etag) {}

  private final Map<String, UiFile> files;
  private final String missingReason;

  private UiBundle(Map<String, UiFile> files, String missingReason) {
    this.files = files;
    this.missingReason = missingReason;
  }

  /** Loads the bundle from the class path (blocking: call it while deploying, not on an event loop). */
  public static UiBundle load() {
    ClassLoader cl = UiBundle.class.getClassLoader();
    byte[] manifest = read(cl, ROOT + "manifest.txt");
    if (manifest == null) {
      byte[] why = read(cl, ROOT + "missing.txt");
      return new UiBundle(Map.of(), why == null ? "The web UI is not part of this build."
          : new String(why, StandardCharsets.UTF_8).trim());
    }
    Map<String, UiFile> files = new HashMap<>();
    for (String name : new String(manifest, StandardCharsets.UTF_8).split("\n")) {
      if (name.isBlank()) {
        continue;
      }
      byte[] body = read(cl, ROOT + name);
      if (body == null) {
        throw new IllegalStateException("the UI manifest names " + name + ", which is not on the class path");
      }
      files.put("/" + name, file("/" + name, body, read(cl, ROOT + name + ".gz"), read(cl, ROOT + name + ".br")));
    }
    return new UiBundle(Map.copyOf(files), null);
  }

  /** A bundle of the given files (keyed by path, {@code /index.html} among them), or one missing for a reason. */
  static UiBundle of(Map<String, UiFile> files, String missingReason) {
    return new UiBundle(Map.copyOf(files), missingReason);
  }

  /** A file as the build leaves it, with its ETag; gzip and brotli copies as given (null: none). */
  static UiFile file(String path, byte[] body, byte[] gzip, byte[] brotli) {
    return new UiFile(path, body, gzip, brotli, contentType(path), "\"" + sha256(body).substring(0, 24) + "\"");
  }

  /** Why the UI is not here, or null when it is. */
  public String missingReason() {
    return missingReason;
  }

  public Optional<UiFile> file(String path) {
    return Optional.ofNullable(files.get(path));
  }

  public int size() {
    return files.size();
  }

  static String contentType(String name) {
    String ext = name.substring(name.lastIndexOf('.') + 1);
    return switch (ext) {
      case "html" -> "text/html; charset=utf-8";
      case "js", "mjs" -> "text/javascript; charset=utf-8";
      case "css" -> "text/css; charset=utf-8";
      case "json", "map" -> "application/json";
      case "svg" -> "image/svg+xml";
      case "png" -> "image/png";
      case "ico" -> "image/x-icon";
      case "woff2" -> "font/woff2";
      case "woff" -> "font/woff";
      case "ttf" -> "font/ttf";
      case "eot" -> "application/vnd.ms-fontobject";
      case "txt" -> "text/plain; charset=utf-8";
      default -> "application/octet-stream";
    };
  }

  private static byte[] read(ClassLoader cl, String resource) {
    try (InputStream in = cl.getResourceAsStream(resource)) {
      return in == null ? null : in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String sha256(byte[] data) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
