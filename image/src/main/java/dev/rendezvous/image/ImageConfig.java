package dev.rendezvous.image;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Image service configuration: from flags ({@code --image-port=8080}) or {@code RDV_*} environment
 * variables, flags winning, with local defaults.
 *
 * <table>
 * <tr><td>--image-host / RDV_IMAGE_HOST</td><td>listen address, default 0.0.0.0</td></tr>
 * <tr><td>--image-port / RDV_IMAGE_PORT</td><td>listen port, default 8080</td></tr>
 * <tr><td>--data-dir / RDV_DATA_DIR</td><td>data directory, default ./data (images go to images/)</td></tr>
 * <tr><td>--os-images / RDV_OS_IMAGES</td><td>OS_IMAGES-style JSON array</td></tr>
 * <tr><td>--os-images-file / RDV_OS_IMAGES_FILE</td><td>file holding that JSON (used when the former is unset)</td></tr>
 * <tr><td>--image-base-url / RDV_IMAGE_BASE_URL</td><td>public URL of this service, default http://localhost:PORT</td></tr>
 * <tr><td>--image-url-lifetime-seconds / RDV_IMAGE_URL_LIFETIME_SECONDS</td><td>how long an ISO download URL works
 * (upstream's default 4 h, 14400); 0: they never expire</td></tr>
 * </table>
 */
public record ImageConfig(String host, int port, Path dataDir, List<OsImage> osImages, String baseUrl,
    java.time.Duration urlLifetime) {
  public static final java.time.Duration DEFAULT_URL_LIFETIME = java.time.Duration.ofHours(4);

  public ImageConfig(String host, int port, Path dataDir, List<OsImage> osImages, String baseUrl) {
    this(host, port, dataDir, osImages, baseUrl, DEFAULT_URL_LIFETIME);
  }

  public ImageConfig {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("image port out of range: " + port);
    }
    osImages = List.copyOf(osImages);
    baseUrl = BaseImageCatalog.stripSlash(baseUrl);
    if (urlLifetime == null || urlLifetime.isNegative()) {
      throw new IllegalArgumentException("image-url-lifetime-seconds must be 0 or more");
    }
  }

  public static ImageConfig from(String[] args, Map<String, String> env) {
    Map<String, String> flags = new HashMap<>();
    for (String a : args) {
      if (a.startsWith("--") && a.contains("=")) {
        flags.put(a.substring(2, a.indexOf('=')), a.substring(a.indexOf('=') + 1));
      }
    }
    String host = pick(flags, env, "image-host", "RDV_IMAGE_HOST", "0.0.0.0");
    int port = Integer.parseInt(pick(flags, env, "image-port", "RDV_IMAGE_PORT", "8080"));
    Path dataDir = Path.of(pick(flags, env, "data-dir", "RDV_DATA_DIR", "data"));
    String json = pick(flags, env, "os-images", "RDV_OS_IMAGES", null);
    String file = pick(flags, env, "os-images-file", "RDV_OS_IMAGES_FILE", null);
    if (json == null && file != null) {
      try {
        json = Files.readString(Path.of(file));
      } catch (IOException e) {
        throw new UncheckedIOException("reading " + file, e);
      }
    }
    List<OsImage> images = json == null ? List.of() : OsImage.parseList(json);
    String baseUrl = pick(flags, env, "image-base-url", "RDV_IMAGE_BASE_URL", "http://localhost:" + port);
    long lifetime = Long.parseLong(pick(flags, env, "image-url-lifetime-seconds", "RDV_IMAGE_URL_LIFETIME_SECONDS",
        Long.toString(DEFAULT_URL_LIFETIME.toSeconds())));
    return new ImageConfig(host, port, dataDir, images, baseUrl, java.time.Duration.ofSeconds(lifetime));
  }

  private static String pick(Map<String, String> flags, Map<String, String> env, String flag, String var, String dflt) {
    String v = flags.get(flag);
    if (v == null || v.isBlank()) {
      v = env.get(var);
    }
    return v == null || v.isBlank() ? dflt : v;
  }
}
