package dev.rendezvous.ui;

import dev.rendezvous.ui.UiBundle.UiFile;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.Locale;

/**
 * Serves the web UI at {@code /}: hashed assets cached for a year, other files for an hour, {@code index.html} never
 * cached and answered for every path of the UI's own (a deep link such as {@code /clusters/ID} reloads into the
 * page it names); each file in brotli or gzip as the browser accepts, with an ETag. {@code /env.js} tells the page
 * what the server expects (a token or none) and its version. Mount it after every other route: it answers what
 * they did not, except under {@code /api/}, which stays the API's (its JSON 404).
 */
public final class UiRoutes {
  static final String IMMUTABLE = "public, max-age=31536000, immutable";
  static final String HOUR = "public, max-age=3600";
  static final String NO_CACHE = "no-cache";

  private final UiBundle bundle;
  private final Buffer envJs;
  private final Buffer missingPage;

  /** {@code authRequired}: whether the API wants a bearer token (the UI then asks for one). */
  public UiRoutes(UiBundle bundle, boolean authRequired, String version) {
    this.bundle = bundle;
    JsonObject env = new JsonObject().put("auth", authRequired ? "token" : "none").put("version", version);
    this.envJs = Buffer.buffer("window.__RDV__ = " + env.encode() + ";\n");
    this.missingPage = bundle.missingReason() == null ? null : Buffer.buffer(missingPage(bundle.missingReason()));
  }

  public void mount(Router router) {
    router.get("/env.js").handler(ctx -> ctx.response().putHeader(HttpHeaders.CONTENT_TYPE, "text/javascript; charset=utf-8")
        .putHeader(HttpHeaders.CACHE_CONTROL, "no-store").end(envJs));
    router.get().handler(this::serve);
  }

  private void serve(RoutingContext ctx) {
    String path = ctx.normalizedPath();
    if (path.startsWith("/api/") || path.equals("/api")) {
      ctx.next();
      return;
    }
    UiFile file = bundle.file(path).orElse(null);
    if (file != null && !path.equals("/index.html")) {
      send(ctx, file, path.startsWith("/assets/") ? IMMUTABLE : HOUR);
      return;
    }
    String last = path.substring(path.lastIndexOf('/') + 1);
    if (last.contains(".") && file == null) {
      ctx.response().setStatusCode(404).putHeader(HttpHeaders.CONTENT_TYPE, "text/plain; charset=utf-8")
          .end("not found: " + path + "\n");
      return;
    }
    if (missingPage != null) {
      ctx.response().putHeader(HttpHeaders.CONTENT_TYPE, "text/html; charset=utf-8")
          .putHeader(HttpHeaders.CACHE_CONTROL, NO_CACHE).end(missingPage);
      return;
    }
    send(ctx, bundle.file("/index.html").orElseThrow(), NO_CACHE);
  }

  private static void send(RoutingContext ctx, UiFile file, String cacheControl) {
    HttpServerResponse res = ctx.response()
        .putHeader(HttpHeaders.CONTENT_TYPE, file.contentType())
        .putHeader(HttpHeaders.CACHE_CONTROL, cacheControl)
        .putHeader(HttpHeaders.ETAG, file.etag())
        .putHeader(HttpHeaders.VARY, HttpHeaders.ACCEPT_ENCODING);
    String ifNoneMatch = ctx.request().getHeader(HttpHeaders.IF_NONE_MATCH);
    if (ifNoneMatch != null && ifNoneMatch.contains(file.etag())) {
      res.setStatusCode(304).end();
      return;
    }
    String accepts = String.valueOf(ctx.request().getHeader(HttpHeaders.ACCEPT_ENCODING)).toLowerCase(Locale.ROOT);
    byte[] body = file.identity();
    if (file.brotli() != null && accepts.contains("br")) {
      res.putHeader(HttpHeaders.CONTENT_ENCODING, "br");
      body = file.brotli();
    } else if (file.gzip() != null && accepts.contains("gzip")) {
      res.putHeader(HttpHeaders.CONTENT_ENCODING, "gzip");
      body = file.gzip();
    } else {
      // the server's own compression must leave the body as it is: identity was chosen
      res.putHeader(HttpHeaders.CONTENT_ENCODING, HttpHeaders.IDENTITY);
    }
    res.end(Buffer.buffer(body));
  }

  private static String missingPage(String reason) {
    String why = reason.replace("&", "&amp;").replace("<", "&lt;");
    return """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>Rendezvous</title>
        <style>body{font:15px/1.5 system-ui,sans-serif;margin:3em auto;max-width:44em;color:#1b1f24}
        code{background:#eaeef2;padding:.1em .3em;border-radius:.2em}</style></head>
        <body><h1>Rendezvous is running; its web UI is not in this build</h1>
        <p>%s</p>
        <p>The UI is bundled when the program is built on a machine with Node.js 20.19 or newer and npm:
        install them (<code>sudo apt-get install nodejs npm</code>), then <code>./rendezvous build</code> and start
        again.</p>
        <p>Meanwhile the REST API (<code>/api/assisted-install/v2</code>) and the <a href="/fleet">fleet page</a>
        work as usual.</p></body></html>
        """.formatted(why);
  }
}
