package dev.rendezvous.ui;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.Router;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The UI's routes on a real Vert.x server, with a bundle of a few files and with the bundle this build made. */
class UiRoutesTest {
  static final byte[] INDEX = "<!doctype html><script src=\"/env.js\"></script><div id=root></div>".getBytes(StandardCharsets.UTF_8);
  static final byte[] APP_JS = "console.log('app');".repeat(200).getBytes(StandardCharsets.UTF_8);

  private final Vertx vertx = Vertx.vertx();
  private final HttpClient http = HttpClient.newHttpClient();
  private HttpServer server;

  @AfterEach
  void close() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  private String start(UiBundle bundle, boolean auth) throws Exception {
    Router router = Router.router(vertx);
    // an API route mounted before the UI, as the app does: the UI must not take /api paths from it
    router.get("/api/assisted-install/v2/clusters").handler(ctx -> ctx.json(new io.vertx.core.json.JsonArray()));
    new UiRoutes(bundle, auth, "9.9.9").mount(router);
    router.route("/api/*").handler(ctx -> ctx.response().setStatusCode(404).end("{\"code\":\"404\"}"));
    server = vertx.createHttpServer().requestHandler(router).listen(0, "127.0.0.1").await(10, TimeUnit.SECONDS);
    return "http://127.0.0.1:" + server.actualPort();
  }

  private HttpResponse<byte[]> get(String url, String... headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url));
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
  }

  static byte[] gzip(byte[] data) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream z = new GZIPOutputStream(out)) {
      z.write(data);
    }
    return out.toByteArray();
  }

  static UiBundle smallBundle() throws Exception {
    return UiBundle.of(Map.of(
        "/index.html", UiBundle.file("/index.html", INDEX, null, null),
        "/assets/app-1a2b3c.js", UiBundle.file("/assets/app-1a2b3c.js", APP_JS, gzip(APP_JS), "brotli bytes".getBytes()),
        "/favicon.svg", UiBundle.file("/favicon.svg", "<svg/>".getBytes(), null, null)), null);
  }

  @Test
  void servesFilesCachedByKindAndEveryUiPathAsTheIndex() throws Exception {
    String base = start(smallBundle(), true);
    for (String path : new String[] {"/", "/assisted-installer/clusters", "/clusters/3f0c2b9e-0000-4000-8000-000000000001"}) {
      HttpResponse<byte[]> r = get(base + path);
      assertEquals(200, r.statusCode(), path);
      assertArrayEquals(INDEX, r.body(), path + " is the index: the page's own router shows the right view");
      assertEquals("no-cache", r.headers().firstValue("cache-control").orElse(""), path);
      assertEquals("text/html; charset=utf-8", r.headers().firstValue("content-type").orElse(""));
    }
    HttpResponse<byte[]> js = get(base + "/assets/app-1a2b3c.js");
    assertEquals(200, js.statusCode());
    assertArrayEquals(APP_JS, js.body());
    assertEquals(UiRoutes.IMMUTABLE, js.headers().firstValue("cache-control").orElse(""), "hashed assets never change");
    assertEquals("text/javascript; charset=utf-8", js.headers().firstValue("content-type").orElse(""));
    assertEquals(UiRoutes.HOUR, get(base + "/favicon.svg").headers().firstValue("cache-control").orElse(""));
    // a file that is not there is a 404, not the index (a broken asset link must show as one)
    assertEquals(404, get(base + "/assets/gone-123.js").statusCode());
    // /api stays the API's: its answers, and its own 404 for what it does not know
    assertEquals("[]", new String(get(base + "/api/assisted-install/v2/clusters").body(), StandardCharsets.UTF_8));
    HttpResponse<byte[]> unknown = get(base + "/api/assisted-install/v2/nothing-here");
    assertEquals(404, unknown.statusCode());
    assertEquals("{\"code\":\"404\"}", new String(unknown.body(), StandardCharsets.UTF_8));
  }

  @Test
  void sendsTheCompressedCopyTheBrowserAcceptsAndHonoursEtags() throws Exception {
    String base = start(smallBundle(), true);
    String url = base + "/assets/app-1a2b3c.js";
    HttpResponse<byte[]> gz = get(url, "Accept-Encoding", "gzip, deflate");
    assertEquals("gzip", gz.headers().firstValue("content-encoding").orElse(""));
    try (GZIPInputStream in = new GZIPInputStream(new java.io.ByteArrayInputStream(gz.body()))) {
      assertArrayEquals(APP_JS, in.readAllBytes());
    }
    HttpResponse<byte[]> br = get(url, "Accept-Encoding", "gzip, deflate, br");
    assertEquals("br", br.headers().firstValue("content-encoding").orElse(""));
    assertArrayEquals("brotli bytes".getBytes(), br.body());
    assertEquals("accept-encoding", br.headers().firstValue("vary").orElse("").toLowerCase(java.util.Locale.ROOT));
    String etag = gz.headers().firstValue("etag").orElseThrow();
    HttpResponse<byte[]> again = get(url, "If-None-Match", etag);
    assertEquals(304, again.statusCode());
    assertEquals(0, again.body().length);
    assertEquals(200, get(url, "If-None-Match", "\"something-else\"").statusCode());
  }

  @Test
  void envJsSaysWhetherATokenIsNeeded() throws Exception {
    String withToken = new String(get(start(smallBundle(), true) + "/env.js").body(), StandardCharsets.UTF_8);
    assertEquals("window.__RDV__ = {\"auth\":\"token\",\"version\":\"9.9.9\"};\n", withToken);
    server.close().await(5, TimeUnit.SECONDS);
    HttpResponse<byte[]> none = get(start(smallBundle(), false) + "/env.js");
    assertTrue(new String(none.body(), StandardCharsets.UTF_8).contains("\"auth\":\"none\""));
    assertEquals("no-store", none.headers().firstValue("cache-control").orElse(""));
  }

  @Test
  void withoutTheUiEveryPageSaysWhyAndHowToGetIt() throws Exception {
    String base = start(UiBundle.of(Map.of(), "Node.js and npm are not installed on the machine that built this."), true);
    HttpResponse<byte[]> r = get(base + "/clusters/abc");
    assertEquals(200, r.statusCode());
    String page = new String(r.body(), StandardCharsets.UTF_8);
    assertTrue(page.contains("Node.js and npm are not installed"), page);
    assertTrue(page.contains("apt-get install nodejs npm") && page.contains("/fleet"), page);
  }

  @Test
  void theBundleThisBuildMadeIsServedWhole() throws Exception {
    UiBundle built = UiBundle.load();
    String base = start(built, true);
    String index = new String(get(base + "/").body(), StandardCharsets.UTF_8);
    if (built.missingReason() != null) {
      // a machine without Node.js: the build left the UI out and said why
      assertTrue(index.contains(built.missingReason().replace("&", "&amp;").replace("<", "&lt;")), index);
      return;
    }
    // every script and stylesheet the index names is served, as what it is, cached for good
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?:src|href)=\"(/assets/[^\"]+)\"").matcher(index);
    int assets = 0;
    while (m.find()) {
      HttpResponse<byte[]> a = get(base + m.group(1), "Accept-Encoding", "gzip");
      assertEquals(200, a.statusCode(), m.group(1));
      assertEquals(UiRoutes.IMMUTABLE, a.headers().firstValue("cache-control").orElse(""), m.group(1));
      assertEquals("gzip", a.headers().firstValue("content-encoding").orElse(""), m.group(1) + " has its gzip copy");
      assets++;
    }
    assertEquals(2, assets, "one script and one stylesheet: " + index);
    assertTrue(built.size() > 5, "the bundle's files: " + built.size());
  }
}
