package dev.rendezvous.image;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The base live ISOs, one per (version, architecture), configured like upstream's OS_IMAGES.
 * Remote entries are downloaded once into {@code <data dir>/images/} with checksum verification;
 * local entries (a path or a file: URL) are used in place. {@link #prepare} blocks: call it on a
 * worker thread at start-up.
 */
public final class BaseImageCatalog implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(BaseImageCatalog.class);

  private final List<BaseImage> images;

  public BaseImageCatalog(List<BaseImage> images) {
    this.images = List.copyOf(images);
  }

  /**
   * Makes every entry ready: present on disk, checksum verified, parsed, minimal template built.
   *
   * @param imageServiceBaseUrl this service's public URL (minimal ISOs fetch the rootfs from it)
   */
  public static BaseImageCatalog prepare(Path dataDir, List<OsImage> entries, String imageServiceBaseUrl)
      throws IOException {
    Path dir = dataDir.resolve("images");
    Files.createDirectories(dir);
    List<BaseImage> ready = new ArrayList<>();
    try {
      for (OsImage e : entries) {
        Path full = fetch(e, dir.resolve("rhcos-full-iso-" + e.version() + "-" + e.cpuArchitecture() + ".iso"));
        BaseImageFile fullFile = BaseImageFile.open(full);
        if (fullFile.layout().ignitionArea().isEmpty()) {
          fullFile.close();
          throw new IOException("base ISO " + full + " has no Ignition embed area");
        }
        Optional<BaseImageFile> minimal = Optional.empty();
        if (!"s390x".equals(e.cpuArchitecture())) {
          Path target = dir.resolve("rhcos-minimal-iso-" + e.version() + "-" + e.cpuArchitecture() + ".iso");
          try {
            MinimalIsoBuilder.build(full, target, rootfsUrl(imageServiceBaseUrl, e));
            minimal = Optional.of(BaseImageFile.open(target));
          } catch (IOException ex) {
            LOG.warn("no minimal ISO for {} {}: {}", e.version(), e.cpuArchitecture(), ex.getMessage());
          }
        }
        ready.add(new BaseImage(e, fullFile, minimal));
        LOG.info("base image {} {} ready: {} ({} bytes){}", e.version(), e.cpuArchitecture(), full,
            fullFile.layout().size(), minimal.isPresent() ? ", minimal ISO built" : "");
      }
    } catch (IOException | RuntimeException ex) {
      new BaseImageCatalog(ready).close();
      throw ex;
    }
    return new BaseImageCatalog(ready);
  }

  /** Where a minimal ISO of this entry fetches its rootfs (upstream's boot-artifacts URL). */
  public static String rootfsUrl(String imageServiceBaseUrl, OsImage e) {
    return stripSlash(imageServiceBaseUrl) + "/boot-artifacts/rootfs?arch=" + e.cpuArchitecture()
        + "&version=" + e.version();
  }

  static String stripSlash(String url) {
    return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
  }

  private static Path fetch(OsImage e, Path target) throws IOException {
    String url = e.url();
    if (!url.startsWith("http://") && !url.startsWith("https://")) {
      Path local = url.startsWith("file:") ? Path.of(URI.create(url)) : Path.of(url);
      if (!Files.isRegularFile(local)) {
        throw new IOException("OS image file not found: " + local);
      }
      if (e.sha256() != null) {
        try (InputStream in = Files.newInputStream(local)) {
          verify(e, sha256(in), local);
        }
      }
      return local;
    }
    if (Files.isRegularFile(target)) {
      if (e.sha256() == null) {
        return target; // downloaded before
      }
      try (InputStream in = Files.newInputStream(target)) {
        if (e.sha256().equalsIgnoreCase(sha256(in))) {
          return target;
        }
      }
      LOG.warn("{} does not match its checksum: downloading again", target);
    }
    Path tmp = target.resolveSibling(".download-" + target.getFileName());
    HttpClient client = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NORMAL)
        .connectTimeout(Duration.ofSeconds(30)).build();
    try {
      HttpResponse<InputStream> resp = client.send(HttpRequest.newBuilder(URI.create(url)).GET().build(),
          HttpResponse.BodyHandlers.ofInputStream());
      if (resp.statusCode() != 200) {
        resp.body().close();
        throw new IOException("downloading " + url + ": HTTP " + resp.statusCode());
      }
      long expected = resp.headers().firstValueAsLong("Content-Length").orElse(-1);
      MessageDigest md = digest();
      long copied;
      try (InputStream in = new DigestInputStream(resp.body(), md); OutputStream out = Files.newOutputStream(tmp)) {
        copied = in.transferTo(out);
      }
      if (expected >= 0 && copied != expected) {
        throw new IOException("downloading " + url + ": got " + copied + " of " + expected + " bytes");
      }
      verify(e, HexFormat.of().formatHex(md.digest()), Path.of(url));
      Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      return target;
    } catch (InterruptedException ie) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted downloading " + url, ie);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  private static void verify(OsImage e, String actual, Path what) throws IOException {
    if (e.sha256() != null && !e.sha256().equalsIgnoreCase(actual)) {
      throw new IOException("checksum mismatch for " + what + ": expected " + e.sha256() + ", got " + actual);
    }
  }

  private static String sha256(InputStream in) throws IOException {
    MessageDigest md = digest();
    byte[] buf = new byte[1 << 16];
    for (int n; (n = in.read(buf)) > 0; ) {
      md.update(buf, 0, n);
    }
    return HexFormat.of().formatHex(md.digest());
  }

  private static MessageDigest digest() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  public List<BaseImage> images() {
    return images;
  }

  /** The image of this architecture whose RHCOS version or OpenShift version is {@code version}. */
  public Optional<BaseImage> find(String version, String arch) {
    return images.stream()
        .filter(i -> i.entry().cpuArchitecture().equals(arch) && i.entry().matchesVersion(version))
        .findFirst();
  }

  public boolean hasArchitecture(String arch) {
    return images.stream().anyMatch(i -> i.entry().cpuArchitecture().equals(arch));
  }

  @Override
  public void close() {
    for (BaseImage i : images) {
      try {
        i.full().close();
        if (i.minimal().isPresent()) {
          i.minimal().get().close();
        }
      } catch (IOException e) {
        LOG.debug("closing {}", i.full().path(), e);
      }
    }
  }
}
