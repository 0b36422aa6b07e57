package dev.rendezvous.image;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.rendezvous.image.IsoLayout.KargsArea;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Drives the real image server over HTTP and checks what it serves with independent tools
 * (isoinfo, gzip, cpio) against the base ISOs: the three CoreOS fixtures and a CoreOS-like ISO.
 */
class ImageServerTest {

  static final String ID = "3f4a1c2e-8b9d-4e5f-a6b7-c8d9e0f1a2b3";
  static final String ID_NO_KARGS = "00000000-1111-4222-8333-444444444444";
  static final String ID_UNKNOWN = "99999999-9999-4999-8999-999999999999";
  static final String BUILT = "416.94.202405140000-0";

  @TempDir
  static Path dir;
  static Vertx vertx;
  static ImageServer server;
  static BaseImageCatalog catalog;
  static String base;
  // HTTP/1.1: the zero-copy path (java.net.http would otherwise upgrade to h2c, the piped path)
  static final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  static final Map<String, ImageCredential> seen = new ConcurrentHashMap<>();
  static byte[] ignition;
  static byte[] ramdisk;
  static Map<String, Path> isoByVersion;

  @BeforeAll
  static void start() throws Exception {
    TestIsos.requireTool("isoinfo", "genisoimage");
    TestIsos.requireTool("cpio", "cpio");
    TestIsos.requireTool("gzip", "gzip");
    Path built = TestIsos.buildCoreosLike(dir, TestIsos.defaultSpec());
    isoByVersion = Map.of(
        "4.14", TestIsos.fixture("embed-areas-2023-07.x86_64", dir),
        "4.12", TestIsos.fixture("embed-areas-2022-09", dir),
        "4.9", TestIsos.fixture("embed-areas-2021-01", dir),
        "4.16", built);
    List<OsImage> entries = List.of(
        new OsImage("4.14", "x86_64", isoByVersion.get("4.14").toString(), "414.fx-2023-07", null),
        new OsImage("4.12", "x86_64", isoByVersion.get("4.12").toUri().toString(), "412.fx-2022-09", null),
        new OsImage("4.9", "x86_64", isoByVersion.get("4.9").toString(), "49.fx-2021-01", null),
        new OsImage("4.16", "x86_64", built.toString(), BUILT, null),
        new OsImage("4.16", "aarch64", built.toString(), BUILT, null));
    catalog = BaseImageCatalog.prepare(dir.resolve("data"), entries, "http://images.example:8080");
    ignition = ("{\"ignition\":{\"version\":\"3.1.0\"},\"passwd\":{\"users\":[{\"name\":\"core\","
        + "\"sshAuthorizedKeys\":[\"ssh-ed25519 AAAA test\"]}]}}").getBytes(StandardCharsets.UTF_8);
    ramdisk = new NewcArchive().add("etc/assisted/network/host0/eth0.nmconnection", NewcArchive.MODE_FILE_600,
        "[connection]\nid=eth0\n".getBytes(StandardCharsets.UTF_8)).finishGzipped();
    Instant updated = Instant.parse("2026-01-02T03:04:05Z");
    Map<String, InfraEnvImage> envs = Map.of(
        ID, new InfraEnvImage(ID, ignition, "4.16", "x86_64", ImageType.FULL_ISO, List.of("rd.debug", "foo=bar"),
            updated, ramdisk),
        ID_NO_KARGS, new InfraEnvImage(ID_NO_KARGS, ignition, "4.14", "x86_64", ImageType.FULL_ISO, List.of(),
            updated, null));
    InfraEnvImageSource source = (id, cred, type) -> {
      seen.put(id, cred);
      if ("refuse-me".equals(cred.value())) {
        return Future.failedFuture(new ImageRequestException(401, null, "bad credential"));
      }
      return Future.succeededFuture(Optional.ofNullable(envs.get(id)));
    };
    vertx = Vertx.vertx();
    server = new ImageServer(new ImageConfig("127.0.0.1", 0, dir.resolve("data"), List.of(),
        "http://images.example:8080"), source, catalog);
    vertx.deployVerticle(server).await(30, TimeUnit.SECONDS);
    base = "http://127.0.0.1:" + server.actualPort();
  }

  @AfterAll
  static void stop() throws Exception {
    if (vertx != null) {
      vertx.close().await(30, TimeUnit.SECONDS);
    }
  }

  static HttpResponse<byte[]> get(String path, String... headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(java.time.Duration.ofSeconds(60)).GET();
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  static Path save(byte[] body, String name) throws Exception {
    Path p = dir.resolve(name);
    Files.write(p, body);
    return p;
  }

  /** config.ign read back from a served ISO by isoinfo + gzip + cpio. */
  static byte[] embeddedConfig(Path iso) throws Exception {
    return TestIsos.sh(dir, "isoinfo -i " + iso + " -R -x /images/ignition.img | gzip -dc 2>/dev/null"
        + " | cpio -i --quiet --to-stdout config.ign");
  }

  @Test
  void fullIsoOfEveryBaseCarriesTheConfigAndNothingElseChanges() throws Exception {
    for (var e : isoByVersion.entrySet()) {
      String version = e.getKey();
      String id = version.equals("4.16") ? ID : ID_NO_KARGS;
      HttpResponse<byte[]> r = get("/images/" + id + "?type=full-iso&version=" + version + "&arch=x86_64");
      assertEquals(200, r.statusCode(), version);
      byte[] baseBytes = Files.readAllBytes(e.getValue());
      byte[] served = r.body();
      assertEquals(baseBytes.length, served.length, "ISO size unchanged for " + version);
      assertEquals(Long.toString(baseBytes.length), r.headers().firstValue("Content-Length").orElseThrow());
      assertEquals("attachment; filename=" + id + "-discovery.iso",
          r.headers().firstValue("Content-Disposition").orElseThrow());
      Path servedIso = save(served, "served-" + version + ".iso");
      assertArrayEquals(ignition, embeddedConfig(servedIso), "config.ign of " + version);

      IsoLayout layout = IsoLayout.read(e.getValue());
      var area = layout.ignitionArea().orElseThrow();
      int archiveLen = NewcArchive.ignitionArchive(ignition).length;
      for (long i = area.offset() + archiveLen; i < area.end(); i++) {
        if (served[(int) i] != 0) {
          throw new AssertionError("area not zero-filled at " + i + " in " + version);
        }
      }
      List<long[]> allowed = new java.util.ArrayList<>();
      allowed.add(new long[] {area.offset(), area.end()});
      if (id.equals(ID)) {
        var kargs = layout.kargs().orElseThrow();
        for (KargsArea a : kargs.areas()) {
          allowed.add(new long[] {a.offset(), a.offset() + kargs.size()});
        }
      }
      for (long[] d : TestIsos.differingRanges(baseBytes, served)) {
        assertTrue(allowed.stream().anyMatch(a -> d[0] >= a[0] && d[1] <= a[1]),
            "bytes " + d[0] + "-" + d[1] + " changed outside the embed areas of " + version);
      }
    }
  }

  @Test
  void kernelArgumentsAreAppendedInEveryArea() throws Exception {
    HttpResponse<byte[]> r = get("/images/" + ID + "?type=full-iso&version=4.16");
    Path iso = save(r.body(), "kargs.iso");
    String expected = TestIsos.KARGS + " rd.debug foo=bar\n#";
    for (String cfg : List.of("/EFI/redhat/grub.cfg", "/isolinux/isolinux.cfg")) {
      String text = new String(TestIsos.sh(dir, "isoinfo -i " + iso + " -R -x " + cfg), StandardCharsets.UTF_8);
      assertTrue(text.contains(expected), cfg + ":\n" + text);
      assertTrue(text.contains("# COREOS_KARG_EMBED_AREA"), cfg);
    }
    // also readable by the coreos-installer rules (our own layout reader over the served bytes)
    assertEquals(TestIsos.KARGS + " rd.debug foo=bar", IsoLayout.read(iso).kargs().orElseThrow().current());
  }

  @Test
  void rangeRequestsReturnExactSlices() throws Exception {
    String path = "/images/" + ID + "?type=full-iso&version=4.16";
    byte[] full = get(path).body();
    var area = IsoLayout.read(isoByVersion.get("4.16")).ignitionArea().orElseThrow();
    long[][] ranges = {{area.offset() - 1000, area.offset() + 5000}, {0, 0}, {area.offset() + 10, area.end() + 70000},
        {full.length - 10, full.length - 1}, {1, full.length - 2}};
    for (long[] rg : ranges) {
      HttpResponse<byte[]> r = get(path, "Range", "bytes=" + rg[0] + "-" + rg[1]);
      assertEquals(206, r.statusCode());
      assertEquals("bytes " + rg[0] + "-" + rg[1] + "/" + full.length,
          r.headers().firstValue("Content-Range").orElseThrow());
      assertArrayEquals(Arrays.copyOfRange(full, (int) rg[0], (int) rg[1] + 1), r.body());
    }
    HttpResponse<byte[]> suffix = get(path, "Range", "bytes=-300");
    assertArrayEquals(Arrays.copyOfRange(full, full.length - 300, full.length), suffix.body());
    HttpResponse<byte[]> open = get(path, "Range", "bytes=" + (area.offset() + 7) + "-");
    assertArrayEquals(Arrays.copyOfRange(full, (int) area.offset() + 7, full.length), open.body());
    HttpResponse<byte[]> bad = get(path, "Range", "bytes=" + full.length + "-");
    assertEquals(416, bad.statusCode());
    assertEquals("bytes */" + full.length, bad.headers().firstValue("Content-Range").orElseThrow());
    // If-Range with a stale validator: the whole body
    HttpResponse<byte[]> stale = get(path, "Range", "bytes=0-9", "If-Range", "\"stale\"");
    assertEquals(200, stale.statusCode());
    assertEquals(full.length, stale.body().length);
  }

  @Test
  void http2TakesThePipedPathWithTheSameBytes() throws Exception {
    String path = "/images/" + ID + "?type=full-iso&version=4.16";
    HttpClient h2 = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build();
    HttpResponse<byte[]> viaH2 = h2.send(HttpRequest.newBuilder(URI.create(base + path)).GET().build(),
        HttpResponse.BodyHandlers.ofByteArray());
    assertEquals(HttpClient.Version.HTTP_2, viaH2.version());
    HttpResponse<byte[]> viaH1 = get(path);
    assertEquals(HttpClient.Version.HTTP_1_1, viaH1.version());
    assertArrayEquals(viaH1.body(), viaH2.body());
    HttpResponse<byte[]> range = h2.send(HttpRequest.newBuilder(URI.create(base + path)).header("Range", "bytes=5-2000000")
        .GET().build(), HttpResponse.BodyHandlers.ofByteArray());
    assertArrayEquals(Arrays.copyOfRange(viaH1.body(), 5, 2000001), range.body());
  }

  @Test
  void headAndConditionalRequests() throws Exception {
    String path = "/images/" + ID + "?type=full-iso&version=4.16";
    HttpResponse<byte[]> head = http.send(HttpRequest.newBuilder(URI.create(base + path))
        .method("HEAD", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofByteArray());
    assertEquals(200, head.statusCode());
    assertEquals(0, head.body().length);
    assertEquals(Long.toString(Files.size(isoByVersion.get("4.16"))),
        head.headers().firstValue("Content-Length").orElseThrow());
    assertEquals("bytes", head.headers().firstValue("Accept-Ranges").orElseThrow());
    String etag = head.headers().firstValue("ETag").orElseThrow();
    String lastModified = head.headers().firstValue("Last-Modified").orElseThrow();
    HttpResponse<byte[]> get = get(path);
    assertEquals(etag, get.headers().firstValue("ETag").orElseThrow());
    assertEquals(304, get(path, "If-None-Match", etag).statusCode());
    assertEquals(200, get(path, "If-None-Match", "\"other\"").statusCode());
    assertEquals(304, get(path, "If-Modified-Since", lastModified).statusCode());
    // another infra-env (other config) or another base: another ETag
    String other = get("/images/" + ID_NO_KARGS + "?type=full-iso&version=4.16").headers()
        .firstValue("ETag").orElseThrow();
    assertFalse(other.equals(etag));
  }

  @Test
  void shortFormsAndCredentialsPassThrough() throws Exception {
    byte[] longForm = get("/images/" + ID + "?type=full-iso&version=4.16&arch=x86_64&image_token=tok1").body();
    assertEquals(new ImageCredential(ImageCredential.Kind.IMAGE_TOKEN, "tok1"), seen.get(ID));
    assertArrayEquals(longForm, get("/byid/" + ID + "/4.16/x86_64/full.iso").body());
    String jwt = "eyJhbGciOiJIUzI1NiJ9." + Base64.getUrlEncoder().withoutPadding().encodeToString(
        ("{\"sub\":\"" + ID + "\"}").getBytes(StandardCharsets.UTF_8)) + ".sig";
    assertArrayEquals(longForm, get("/bytoken/" + jwt + "/" + BUILT + "/x86_64/full.iso").body());
    assertEquals(new ImageCredential(ImageCredential.Kind.IMAGE_TOKEN, jwt), seen.get(ID));
    get("/byapikey/" + jwt + "/4.16/x86_64/full.iso");
    assertEquals(new ImageCredential(ImageCredential.Kind.API_KEY, jwt), seen.get(ID));
    get("/images/" + ID + "?type=full-iso&version=4.16", "Authorization", "Bearer abc");
    assertEquals(new ImageCredential(ImageCredential.Kind.AUTHORIZATION, "Bearer abc"), seen.get(ID));
    HttpResponse<byte[]> refused = get("/images/" + ID + "?type=full-iso&version=4.16&api_key=refuse-me");
    assertEquals(401, refused.statusCode());
    assertEquals(404, get("/byid/" + ID + "/4.16/x86_64/other.iso").statusCode());
    assertEquals(404, get("/bytoken/not-a-jwt/4.16/x86_64/full.iso").statusCode());
  }

  @Test
  void errorsNameTheParameter() throws Exception {
    assertError(get("/images/" + ID_UNKNOWN + "?type=full-iso&version=4.16"), 404, "not found");
    assertError(get("/images/not-a-uuid?type=full-iso&version=4.16"), 404, "not found");
    assertError(get("/images/" + ID + "?type=bogus-iso&version=4.16"), 400, "type");
    assertError(get("/images/" + ID + "?type=full-iso&version=9.99"), 400, "version");
    assertError(get("/images/" + ID + "?type=full-iso&version=4.16&arch=ppc64le"), 400, "arch");
    assertError(get("/images/" + ID + "?type=full-iso&version=4.14&arch=aarch64"), 400, "version");
    assertError(get("/images/" + ID + "?type=disconnected-iso&version=4.16"), 400, "type");
    assertError(get("/images/" + ID + "/pxe-initrd?version=1.0"), 400, "version");
    assertError(get("/boot-artifacts/rootfs?arch=x86_64"), 400, "version");
    assertError(get("/boot-artifacts/rootfs?version=4.16&arch=s390x"), 400, "arch");
    assertError(get("/boot-artifacts/nothing?version=4.16"), 404, "nothing");
    // the 2021 fixture has no kargs.json and no room for the minimal ISO: type names the problem
    assertError(get("/images/" + ID + "?type=minimal-iso&version=4.9"), 400, "type");
    HttpResponse<byte[]> post = http.send(HttpRequest.newBuilder(URI.create(base + "/images/" + ID + "?version=4.16"))
        .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofByteArray());
    assertEquals(405, post.statusCode());
  }

  static void assertError(HttpResponse<byte[]> r, int status, String reasonPart) {
    assertEquals(status, r.statusCode(), new String(r.body(), StandardCharsets.UTF_8));
    JsonObject json = new JsonObject(new String(r.body(), StandardCharsets.UTF_8));
    assertEquals(Integer.toString(status), json.getString("code"));
    assertEquals(status, json.getInteger("id"));
    assertEquals("Error", json.getString("kind"));
    assertEquals("", json.getString("href"));
    assertTrue(json.getString("reason").contains(reasonPart), json.encode());
  }

  @Test
  void defaultsComeFromTheInfraEnv() throws Exception {
    // no type/version/arch: the infra-env's full-iso, 4.16, x86_64
    HttpResponse<byte[]> r = get("/images/" + ID);
    assertEquals(200, r.statusCode());
    assertEquals(Files.size(isoByVersion.get("4.16")), r.body().length);
  }

  @Test
  void pxeInitrdIsTheIsoInitrdWithTheConfigAppended() throws Exception {
    HttpResponse<byte[]> r = get("/images/" + ID + "/pxe-initrd?version=4.16&arch=x86_64");
    assertEquals(200, r.statusCode());
    byte[] initrd = TestIsos.sh(dir, "isoinfo -i " + isoByVersion.get("4.16") + " -R -x /images/pxeboot/initrd.img");
    byte[] body = r.body();
    assertArrayEquals(initrd, Arrays.copyOf(body, initrd.length));
    byte[] archive = NewcArchive.ignitionArchive(ignition);
    Path appended = save(Arrays.copyOfRange(body, initrd.length, initrd.length + archive.length), "appended.gz");
    assertArrayEquals(ignition, TestIsos.sh(dir, "gzip -dc < " + appended + " 2>/dev/null | cpio -i --quiet --to-stdout config.ign"));
    assertArrayEquals(ramdisk, Arrays.copyOfRange(body, initrd.length + archive.length, body.length));
    HttpResponse<byte[]> part = get("/images/" + ID + "/pxe-initrd?version=4.16", "Range",
        "bytes=" + (initrd.length - 5) + "-" + (initrd.length + 20));
    assertArrayEquals(Arrays.copyOfRange(body, initrd.length - 5, initrd.length + 21), part.body());
  }

  @Test
  void bootArtifactsPassThrough() throws Exception {
    Path iso = isoByVersion.get("4.16");
    for (String[] a : new String[][] {{"rootfs", "rootfs.img"}, {"kernel", "vmlinuz"}, {"initrd", "initrd.img"}}) {
      HttpResponse<byte[]> r = get("/boot-artifacts/" + a[0] + "?version=" + BUILT + "&arch=x86_64");
      assertEquals(200, r.statusCode());
      assertArrayEquals(TestIsos.sh(dir, "isoinfo -i " + iso + " -R -x /images/pxeboot/" + a[1]), r.body(), a[0]);
    }
    HttpResponse<byte[]> r = get("/boot-artifacts/rootfs?version=4.16", "Range", "bytes=100-199");
    assertEquals(206, r.statusCode());
    assertEquals(100, r.body().length);
  }

  @Test
  void minimalIsoHasNoRootfsAndFetchesItFromUs() throws Exception {
    HttpResponse<byte[]> r = get("/images/" + ID + "?type=minimal-iso&version=4.16&arch=x86_64");
    assertEquals(200, r.statusCode(), new String(r.body(), StandardCharsets.UTF_8));
    Path iso = save(r.body(), "minimal.iso");
    // 3 MiB rootfs out, 1 MiB placeholder in
    assertTrue(r.body().length < Files.size(isoByVersion.get("4.16")) - 1_500_000, "rootfs removed");
    String files = new String(TestIsos.sh(dir, "isoinfo -i " + iso + " -R -f"), StandardCharsets.UTF_8);
    assertFalse(files.contains("rootfs.img"), files);
    assertTrue(files.contains("/images/assisted_installer_custom.img"), files);
    assertArrayEquals(ignition, embeddedConfig(iso));
    String url = "coreos.live.rootfs_url=\"http://images.example:8080/boot-artifacts/rootfs?arch=x86_64&version=" + BUILT + "\"";
    String grub = new String(TestIsos.sh(dir, "isoinfo -i " + iso + " -R -x /EFI/redhat/grub.cfg"), StandardCharsets.UTF_8);
    assertTrue(grub.contains(url + " rd.debug foo=bar\n#"), grub);
    assertFalse(grub.contains("coreos.liveiso="), grub);
    assertTrue(grub.contains("initrd /images/pxeboot/initrd.img /images/ignition.img /images/assisted_installer_custom.img"), grub);
    String isolinux = new String(TestIsos.sh(dir, "isoinfo -i " + iso + " -R -x /isolinux/isolinux.cfg"), StandardCharsets.UTF_8);
    assertTrue(isolinux.contains("initrd=/images/pxeboot/initrd.img,/images/ignition.img,/images/assisted_installer_custom.img "),
        isolinux);
    var kargs = IsoLayout.read(iso).kargs().orElseThrow();
    assertTrue(kargs.defaultKargs().endsWith(url), kargs.defaultKargs());
    assertEquals(kargs.defaultKargs() + " rd.debug foo=bar", kargs.current());
    // the ramdisk sits at the start of the custom area, zero-filled behind it
    byte[] custom = TestIsos.sh(dir, "isoinfo -i " + iso + " -R -x /images/assisted_installer_custom.img");
    assertEquals(MinimalIsoBuilder.CUSTOM_INITRD_SIZE, custom.length);
    assertArrayEquals(ramdisk, Arrays.copyOf(custom, ramdisk.length));
    assertTrue(Arrays.equals(new byte[custom.length - ramdisk.length], Arrays.copyOfRange(custom, ramdisk.length, custom.length)));
    String listed = new String(TestIsos.sh(dir, "isoinfo -i " + iso + " -R -x /images/assisted_installer_custom.img"
        + " | gzip -dc 2>/dev/null | cpio -it --quiet"), StandardCharsets.UTF_8);
    assertEquals("etc/assisted/network/host0/eth0.nmconnection\n", listed);
    // the El Torito boot records were replayed
    String info = new String(TestIsos.sh(dir, "isoinfo -d -i " + iso), StandardCharsets.UTF_8);
    assertTrue(info.contains("El Torito"), info);
    assertTrue(info.contains("Volume id: rhcos-9.6.20250523-0"), info);
  }

  @Test
  void minimalIsoFromTheRealFixture() throws Exception {
    HttpResponse<byte[]> r = get("/images/" + ID + "?type=minimal-iso&version=4.14&arch=x86_64");
    assertEquals(200, r.statusCode(), new String(r.body(), StandardCharsets.UTF_8));
    Path iso = save(r.body(), "minimal-fixture.iso");
    assertArrayEquals(ignition, embeddedConfig(iso));
    String files = new String(TestIsos.sh(dir, "isoinfo -i " + iso + " -R -f"), StandardCharsets.UTF_8);
    assertFalse(files.contains("rootfs.img"), files);
    String url = "coreos.live.rootfs_url=\"http://images.example:8080/boot-artifacts/rootfs?arch=x86_64&version=414.fx-2023-07\"";
    String kargs = "mitigations=auto,nosmt ignition.firstboot ignition.platform.id=metal " + url + " rd.debug foo=bar";
    for (String cfg : List.of("/EFI/fedora/grub.cfg", "/isolinux/isolinux.cfg")) {
      String text = new String(TestIsos.sh(dir, "isoinfo -i " + iso + " -R -x " + cfg), StandardCharsets.UTF_8);
      assertTrue(text.contains(kargs + "\n###"), cfg + ":\n" + text);
    }
    var layout = IsoLayout.read(iso).kargs().orElseThrow();
    assertEquals(kargs, layout.current());
    assertEquals(1139 - "coreos.liveiso=fedora-coreos-38.20230718.dev.0 ".length() + 1 + url.length(), layout.size());
  }

  @Test
  void ipxeScriptPointsAtOurArtifacts() throws Exception {
    HttpResponse<byte[]> r = get("/images/" + ID + "/ipxe-script?api_key=k1");
    assertEquals(200, r.statusCode());
    String s = new String(r.body(), StandardCharsets.UTF_8);
    assertTrue(s.startsWith("#!ipxe\ninitrd --name initrd http://images.example:8080/images/" + ID
        + "/pxe-initrd?arch=x86_64&version=4.16&api_key=k1\nkernel http://images.example:8080/boot-artifacts/kernel"
        + "?arch=x86_64&version=4.16 initrd=initrd coreos.live.rootfs_url=http://images.example:8080/boot-artifacts/"
        + "rootfs?arch=x86_64&version=4.16 random.trust_cpu=on"), s);
    assertTrue(s.endsWith(" rd.debug foo=bar\nboot\n"), s);
  }

  @Test
  void healthIsUp() throws Exception {
    assertEquals(200, get("/health").statusCode());
    assertNotNull(catalog.find("4.16", "aarch64").orElseThrow());
  }
}
