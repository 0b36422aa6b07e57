package dev.rendezvous.image;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BaseImageCatalogTest {

  @TempDir
  Path dir;

  @Test
  void downloadsOnceVerifiesChecksumAndRefusesMismatch() throws Exception {
    Path iso = TestIsos.fixture("embed-areas-2023-07.x86_64", dir);
    String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(iso)));
    Vertx vertx = Vertx.vertx();
    AtomicInteger hits = new AtomicInteger();
    try {
      HttpServer server = vertx.createHttpServer().requestHandler(req -> {
        hits.incrementAndGet();
        req.response().sendFile(iso.toString());
      }).listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
      String url = "http://127.0.0.1:" + server.actualPort() + "/rhcos.iso";
      Path data = dir.resolve("data");
      OsImage entry = new OsImage("4.14", "x86_64", url, "414.92.1", sha);
      try (BaseImageCatalog c = BaseImageCatalog.prepare(data, List.of(entry), "http://localhost:8080")) {
        BaseImage img = c.find("4.14", "x86_64").orElseThrow();
        assertEquals(data.resolve("images/rhcos-full-iso-414.92.1-x86_64.iso"), img.full().path());
        assertEquals(Files.size(iso), Files.size(img.full().path()));
        assertEquals(img, c.find("414.92.1", "x86_64").orElseThrow());
        assertTrue(c.find("4.14", "aarch64").isEmpty());
      }
      assertEquals(1, hits.get());
      try (BaseImageCatalog c = BaseImageCatalog.prepare(data, List.of(entry), "http://localhost:8080")) {
        assertEquals(1, c.images().size());
      }
      assertEquals(1, hits.get(), "a verified download is not fetched again");

      OsImage wrong = new OsImage("4.15", "x86_64", url, "415.92.1", "0".repeat(64));
      IOException e = assertThrows(IOException.class,
          () -> BaseImageCatalog.prepare(data, List.of(wrong), "http://localhost:8080"));
      assertTrue(e.getMessage().contains("checksum mismatch"), e.getMessage());
      assertTrue(Files.notExists(data.resolve("images/rhcos-full-iso-415.92.1-x86_64.iso")));
      OsImage missing = new OsImage("4.15", "x86_64", dir.resolve("nope.iso").toString(), "415.92.1", null);
      assertThrows(IOException.class, () -> BaseImageCatalog.prepare(data, List.of(missing), "http://x"));
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void osImagesJsonLikeUpstream() {
    List<OsImage> l = OsImage.parseList("[{\"openshift_version\":\"4.16\",\"cpu_architecture\":\"x86_64\","
        + "\"url\":\"https://mirror/rhcos.iso\",\"version\":\"416.94.2024\",\"type\":\"full-iso\"}]");
    assertEquals(new OsImage("4.16", "x86_64", "https://mirror/rhcos.iso", "416.94.2024", null), l.get(0));
    assertThrows(IllegalArgumentException.class, () -> OsImage.parseList("[{\"openshift_version\":\"4.16\"}]"));
    assertThrows(IllegalArgumentException.class, () -> OsImage.parseList("{"));
  }
}
