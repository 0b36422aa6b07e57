package dev.rendezvous.image;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.rendezvous.image.ImageCredential.Kind;
import dev.rendezvous.image.IsoFileSystem.IsoFile;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.Optional;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The image service's HTTP face, upstream assisted-image-service paths:
 * <ul>
 * <li>{@code /images/{id}?type=full-iso|minimal-iso&version=&arch=} (type, version and arch default
 *     to the infra-env's own), {@code /byid|bytoken|byapikey/{id-or-token}/{version}/{arch}/{full.iso|minimal.iso}}</li>
 * <li>{@code /images/{id}/pxe-initrd?version=&arch=}, {@code /images/{id}/ipxe-script?version=&arch=}</li>
 * <li>{@code /boot-artifacts/kernel|rootfs|initrd?version=&arch=} (base ISO files as they are)</li>
 * <li>{@code /health} (503 until every base image is ready), {@code /live}</li>
 * </ul>
 * GET and HEAD, single Range (206/416), ETag, Last-Modified, If-None-Match, If-Modified-Since,
 * If-Range. Errors are upstream-shaped JSON {@code {code, href, id, kind, reason}}.
 */
public final class ImageServer extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(ImageServer.class);
  private static final Pattern UUID = Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final DateTimeFormatter HTTP_DATE = DateTimeFormatter.RFC_1123_DATE_TIME.withZone(ZoneOffset.UTC);

  private final ImageConfig config;
  private final InfraEnvImageSource source;
  private final Promise<BaseImageCatalog> catalogPromise = Promise.promise();
  private final BaseImageCatalog givenCatalog;
  private volatile BaseImageCatalog catalog;
  private HttpServer server;
  private IsoStreamer streamer;

  /** Told of every image body sent (metrics): which artifact, the bytes written, whether it was sent whole. */
  public interface DownloadListener {
    DownloadListener NONE = (artifact, bytes, complete) -> { };

    void served(String artifact, long bytes, boolean complete);
  }

  private volatile DownloadListener downloads = DownloadListener.NONE;

  private HttpServerOptions serverOptions = new HttpServerOptions();

  /** The server's options (TLS, set by whoever assembles the service); set before deployment. */
  public ImageServer serverOptions(HttpServerOptions options) {
    this.serverOptions = new HttpServerOptions(options);
    return this;
  }

  /** Set before deployment. */
  public ImageServer downloads(DownloadListener listener) {
    this.downloads = listener;
    return this;
  }

  /** Prepares the catalog from {@code config.osImages()} on a worker after start. */
  public ImageServer(ImageConfig config, InfraEnvImageSource source) {
    this(config, source, null);
  }

  /** Serves an already prepared catalog (which this verticle then closes on stop). */
  public ImageServer(ImageConfig config, InfraEnvImageSource source, BaseImageCatalog catalog) {
    this.config = config;
    this.source = source;
    this.givenCatalog = catalog;
  }

  /** Completes when every base image is ready (or fails with the reason it could not be). */
  public Future<BaseImageCatalog> catalogReady() {
    return catalogPromise.future();
  }

  /** The bound port (useful when configured as 0). */
  public int actualPort() {
    return server.actualPort();
  }

  @Override
  public Future<?> start() {
    streamer = new IsoStreamer(vertx);
    if (givenCatalog != null) {
      catalog = givenCatalog;
      catalogPromise.complete(givenCatalog);
    } else {
      vertx.executeBlocking(() -> BaseImageCatalog.prepare(config.dataDir(), config.osImages(), config.baseUrl()),
          false).onComplete(ar -> {
            if (ar.succeeded()) {
              catalog = ar.result();
              catalogPromise.complete(ar.result());
            } else {
              LOG.error("base image catalog failed", ar.cause());
              catalogPromise.fail(ar.cause());
            }
          });
    }
    Router router = Router.router(vertx);
    router.get("/live").handler(ctx -> ctx.response().end("{}"));
    router.get("/health").handler(ctx -> {
      if (catalog == null) {
        error(ctx.response(), 503, "base images are not ready yet");
      } else {
        ctx.response().putHeader(HttpHeaders.CONTENT_TYPE, "application/json").end("{}");
      }
    });
    route(router, "/images/:id", this::iso);
    route(router, "/images/:id/pxe-initrd", this::pxeInitrd);
    route(router, "/images/:id/ipxe-script", this::ipxeScript);
    route(router, "/byid/:id/:version/:arch/:filename", ctx -> shortForm(ctx, Kind.NONE));
    route(router, "/bytoken/:token/:version/:arch/:filename", ctx -> shortForm(ctx, Kind.IMAGE_TOKEN));
    route(router, "/byapikey/:token/:version/:arch/:filename", ctx -> shortForm(ctx, Kind.API_KEY));
    route(router, "/boot-artifacts/:artifact", this::bootArtifact);
    router.route().handler(ctx -> error(ctx.response(), 404, "no such path: " + ctx.request().path()));
    return vertx.createHttpServer(serverOptions)
        .requestHandler(router)
        .listen(config.port(), config.host())
        .onSuccess(s -> {
          server = s;
          LOG.debug("image service listening on {}:{}", config.host(), s.actualPort());
        });
  }

  @Override
  public Future<?> stop() {
    Future<Void> closed = server == null ? Future.succeededFuture() : server.close();
    return closed.eventually(() -> vertx.executeBlocking(() -> {
      if (catalog != null) {
        catalog.close();
      }
      return null;
    }));
  }

  private interface Handler {
    void handle(RoutingContext ctx);
  }

  private void route(Router router, String path, Handler h) {
    router.route(path).handler(ctx -> {
      HttpMethod m = ctx.request().method();
      if (m != HttpMethod.GET && m != HttpMethod.HEAD) {
        ctx.response().putHeader(HttpHeaders.ALLOW, "GET, HEAD");
        error(ctx.response(), 405, "method " + m + " not allowed");
        return;
      }
      if (catalog == null) {
        ctx.response().putHeader(HttpHeaders.RETRY_AFTER, "10");
        error(ctx.response(), 503, "base images are not ready yet");
        return;
      }
      try {
        h.handle(ctx);
      } catch (ImageRequestException e) {
        error(ctx.response(), e);
      } catch (RuntimeException e) {
        LOG.error("image request {} failed", ctx.request().path(), e);
        error(ctx.response(), 500, "internal error");
      }
    });
  }

  // ---- routes

  private void iso(RoutingContext ctx) {
    String id = infraEnvId(ctx.pathParam("id"));
    Optional<ImageType> type = imageTypeParam(ctx.request().getParam("type"));
    serveIso(ctx, id, credential(ctx.request(), null, Kind.NONE), type,
        param(ctx, "version"), param(ctx, "arch"));
  }

  private void shortForm(RoutingContext ctx, Kind kind) {
    String id;
    String token = null;
    if (kind == Kind.NONE) {
      id = infraEnvId(ctx.pathParam("id"));
    } else {
      token = ctx.pathParam("token");
      id = infraEnvId(idFromJwt(token));
    }
    String filename = ctx.pathParam("filename");
    ImageType type = switch (filename) {
      case "full.iso" -> ImageType.FULL_ISO;
      case "minimal.iso" -> ImageType.MINIMAL_ISO;
      case "disconnected.iso" -> ImageType.DISCONNECTED_ISO;
      default -> throw ImageRequestException.notFound("unknown image file name " + filename);
    };
    serveIso(ctx, id, credential(ctx.request(), token, kind), Optional.of(type),
        ctx.pathParam("version"), ctx.pathParam("arch"));
  }

  private void serveIso(RoutingContext ctx, String id, ImageCredential cred, Optional<ImageType> type,
      String version, String arch) {
    checkExplicit(version, arch);
    if (type.isPresent() && type.get() == ImageType.DISCONNECTED_ISO) {
      throw ImageRequestException.badRequest("type", "type disconnected-iso is not supported");
    }
    lookup(ctx, id, cred, type, img -> {
      ImageType t = type.orElse(img.imageType());
      if (t == ImageType.DISCONNECTED_ISO) {
        throw ImageRequestException.badRequest("type", "type disconnected-iso is not supported");
      }
      String a = arch != null ? arch : orDefault(img.cpuArchitecture(), "x86_64");
      BaseImage base = baseImage(version != null ? version : img.openshiftVersion(), a);
      BaseImageFile file;
      if (t == ImageType.MINIMAL_ISO) {
        file = base.minimal().orElseThrow(() -> ImageRequestException.badRequest("type",
            "minimal-iso is not available for version " + base.entry().version() + " arch " + a));
      } else {
        file = base.full();
      }
      IsoOverlay.Served served = IsoOverlay.iso(file, img, a, t == ImageType.MINIMAL_ISO);
      send(ctx, t == ImageType.MINIMAL_ISO ? "minimal-iso" : "full-iso", served, file, lastModified(img.updatedAt(), file),
          id + "-discovery.iso", "application/octet-stream");
    });
  }

  private void pxeInitrd(RoutingContext ctx) {
    String id = infraEnvId(ctx.pathParam("id"));
    String version = param(ctx, "version");
    String arch = param(ctx, "arch");
    checkExplicit(version, arch);
    lookup(ctx, id, credential(ctx.request(), null, Kind.NONE), Optional.empty(), img -> {
      String a = arch != null ? arch : orDefault(img.cpuArchitecture(), "x86_64");
      BaseImage base = baseImage(version != null ? version : img.openshiftVersion(), a);
      IsoOverlay.Served served = IsoOverlay.pxeInitrd(base.full(), img);
      send(ctx, "pxe-initrd", served, base.full(), lastModified(img.updatedAt(), base.full()), id + "-initrd.img",
          "application/octet-stream");
    });
  }

  private void ipxeScript(RoutingContext ctx) {
    String id = infraEnvId(ctx.pathParam("id"));
    String version = param(ctx, "version");
    String arch = param(ctx, "arch");
    checkExplicit(version, arch);
    ImageCredential cred = credential(ctx.request(), null, Kind.NONE);
    lookup(ctx, id, cred, Optional.empty(), img -> {
      String a = arch != null ? arch : orDefault(img.cpuArchitecture(), "x86_64");
      BaseImage base = baseImage(version != null ? version : img.openshiftVersion(), a);
      String credParam = switch (cred.kind()) {
        case API_KEY -> "api_key";
        case IMAGE_TOKEN -> "image_token";
        default -> null;
      };
      String script = IpxeScript.render(config.baseUrl(), id, a, base.entry().openshiftVersion(), credParam,
          cred.value(), img.kernelArguments());
      ctx.response().putHeader(HttpHeaders.CONTENT_TYPE, "text/plain; charset=utf-8")
          .putHeader("Content-Disposition", "attachment; filename=" + id + "-ipxe-script")
          .end(script);
    });
  }

  private void bootArtifact(RoutingContext ctx) {
    String artifact = ctx.pathParam("artifact");
    String version = param(ctx, "version");
    String arch = orDefault(param(ctx, "arch"), "x86_64");
    if (version == null) {
      throw ImageRequestException.badRequest("version", "parameter version is required");
    }
    BaseImage base = baseImage(version, arch);
    IsoLayout layout = base.full().layout();
    Optional<IsoFile> file = switch (artifact) {
      case "kernel" -> layout.kernel();
      case "rootfs" -> layout.rootfs();
      case "initrd" -> layout.initrd();
      default -> throw ImageRequestException.notFound("unknown boot artifact " + artifact);
    };
    IsoFile f = file.orElseThrow(() -> ImageRequestException.notFound(
        "base image " + base.entry().version() + " has no " + artifact));
    send(ctx, artifact, IsoOverlay.artifact(base.full(), f), base.full(), base.full().modified(), null,
        "application/octet-stream");
  }

  // ---- helpers

  private void lookup(RoutingContext ctx, String id, ImageCredential cred, Optional<ImageType> type,
      java.util.function.Consumer<InfraEnvImage> then) {
    Future<Optional<InfraEnvImage>> f;
    try {
      f = source.lookup(id, cred, type);
    } catch (RuntimeException e) {
      f = Future.failedFuture(e);
    }
    f.onComplete(ar -> {
      try {
        if (ar.failed()) {
          if (ar.cause() instanceof ImageRequestException e) {
            throw e;
          }
          LOG.error("infra-env image lookup for {} failed", id, ar.cause());
          error(ctx.response(), 503, "infra-env lookup failed");
          return;
        }
        InfraEnvImage img = ar.result().orElseThrow(
            () -> ImageRequestException.notFound("infra-env " + id + " not found"));
        then.accept(img);
      } catch (ImageRequestException e) {
        error(ctx.response(), e);
      } catch (RuntimeException e) {
        LOG.error("image request {} failed", ctx.request().path(), e);
        error(ctx.response(), 500, "internal error");
      }
    });
  }

  private void send(RoutingContext ctx, String artifact, IsoOverlay.Served served, BaseImageFile file, Instant modified,
      String filename, String contentType) {
    HttpServerRequest req = ctx.request();
    HttpServerResponse resp = ctx.response();
    ImageBody body = served.body();
    long total = body.length();
    String lastModified = HTTP_DATE.format(modified);
    resp.putHeader(HttpHeaders.ACCEPT_RANGES, "bytes")
        .putHeader(HttpHeaders.ETAG, served.etag())
        .putHeader(HttpHeaders.LAST_MODIFIED, lastModified)
        .putHeader(HttpHeaders.CONTENT_TYPE, contentType);
    if (filename != null) {
      resp.putHeader("Content-Disposition", "attachment; filename=" + filename);
    }
    if (notModified(req, served.etag(), modified)) {
      resp.setStatusCode(304).end();
      return;
    }
    HttpRange.Result range = HttpRange.parse(req.getHeader("Range"), total);
    String ifRange = req.getHeader("If-Range");
    if (ifRange != null && !ifRange.equals(served.etag()) && !ifRange.equals(lastModified)) {
      range = new HttpRange.Whole();
    }
    long start = 0;
    long end = total;
    if (range instanceof HttpRange.Unsatisfiable) {
      resp.putHeader(HttpHeaders.CONTENT_RANGE, "bytes */" + total);
      error(resp, 416, "requested range not satisfiable");
      return;
    } else if (range instanceof HttpRange.Partial p) {
      start = p.range().start();
      end = p.range().endInclusive() + 1;
      resp.setStatusCode(206).putHeader(HttpHeaders.CONTENT_RANGE, p.range().contentRange(total));
    }
    resp.putHeader(HttpHeaders.CONTENT_LENGTH, Long.toString(end - start));
    if (req.method() == HttpMethod.HEAD) {
      resp.end();
      return;
    }
    streamer.send(req, body, file.channel(), body.slice(start, end))
        .onComplete(ar -> downloads.served(artifact, resp.bytesWritten(), ar.succeeded()))
        .onFailure(e -> LOG.debug("download of {} ended early: {}", req.path(), e.toString()));
  }

  private static boolean notModified(HttpServerRequest req, String etag, Instant modified) {
    String inm = req.getHeader(HttpHeaders.IF_NONE_MATCH);
    if (inm != null) {
      for (String t : inm.split(",")) {
        String tag = t.trim();
        if (tag.startsWith("W/")) {
          tag = tag.substring(2);
        }
        if (tag.equals("*") || tag.equals(etag)) {
          return true;
        }
      }
      return false;
    }
    String ims = req.getHeader(HttpHeaders.IF_MODIFIED_SINCE);
    if (ims != null) {
      try {
        Instant since = Instant.from(HTTP_DATE.parse(ims.trim()));
        return !modified.isAfter(since);
      } catch (RuntimeException e) {
        return false;
      }
    }
    return false;
  }

  private static Instant lastModified(Instant updatedAt, BaseImageFile file) {
    Instant m = updatedAt.isAfter(file.modified()) ? updatedAt : file.modified();
    return m.truncatedTo(ChronoUnit.SECONDS);
  }

  private BaseImage baseImage(String version, String arch) {
    if (!catalog.hasArchitecture(arch)) {
      throw ImageRequestException.badRequest("arch", "no base image for architecture " + arch);
    }
    if (version == null || version.isBlank()) {
      throw ImageRequestException.badRequest("version", "parameter version is required");
    }
    return catalog.find(version, arch).orElseThrow(() -> ImageRequestException.badRequest("version",
        "no base image of version " + version + " for architecture " + arch));
  }

  /** Explicit version/arch in the request are checked before the infra-env is looked up. */
  private void checkExplicit(String version, String arch) {
    if (arch != null && !catalog.hasArchitecture(arch)) {
      throw ImageRequestException.badRequest("arch", "no base image for architecture " + arch);
    }
    if (version != null && catalog.images().stream().noneMatch(
        i -> i.entry().matchesVersion(version) && (arch == null || i.entry().cpuArchitecture().equals(arch)))) {
      throw ImageRequestException.badRequest("version", "no base image of version " + version
          + (arch == null ? "" : " for architecture " + arch));
    }
  }

  private static Optional<ImageType> imageTypeParam(String raw) {
    if (raw == null || raw.isEmpty()) {
      return Optional.empty();
    }
    Optional<ImageType> t = ImageType.parse(raw);
    if (t.isEmpty()) {
      throw ImageRequestException.badRequest("type", "invalid type '" + raw + "': must be full-iso or minimal-iso");
    }
    return t;
  }

  private static String infraEnvId(String raw) {
    if (raw == null || !UUID.matcher(raw).matches()) {
      throw ImageRequestException.notFound("infra-env " + raw + " not found");
    }
    return raw;
  }

  /** Upstream reads the id out of the token without checking it: the source authorizes. */
  static String idFromJwt(String token) {
    String[] parts = token.split("\\.");
    if (parts.length < 2) {
      throw ImageRequestException.notFound("malformed token");
    }
    try {
      JsonNode claims = JSON.readTree(Base64.getUrlDecoder().decode(parts[1].replace('+', '-').replace('/', '_')
          .replace("=", "")));
      String sub = claims.path("sub").asText("");
      return sub.isEmpty() ? claims.path("infra_env_id").asText("") : sub;
    } catch (java.io.IOException | IllegalArgumentException e) {
      throw ImageRequestException.notFound("malformed token");
    }
  }

  private static ImageCredential credential(HttpServerRequest req, String pathToken, Kind pathKind) {
    if (pathToken != null && pathKind == Kind.API_KEY) {
      return new ImageCredential(Kind.API_KEY, pathToken);
    }
    String apiKey = req.getParam("api_key");
    if (apiKey != null) {
      return new ImageCredential(Kind.API_KEY, apiKey);
    }
    if (pathToken != null) {
      return new ImageCredential(Kind.IMAGE_TOKEN, pathToken);
    }
    String imageToken = req.getParam("image_token");
    if (imageToken == null) {
      imageToken = req.getHeader("Image-Token");
    }
    if (imageToken != null) {
      return new ImageCredential(Kind.IMAGE_TOKEN, imageToken);
    }
    String auth = req.getHeader(HttpHeaders.AUTHORIZATION);
    return auth != null ? new ImageCredential(Kind.AUTHORIZATION, auth) : ImageCredential.NONE;
  }

  private static String param(RoutingContext ctx, String name) {
    String v = ctx.request().getParam(name);
    return v == null || v.isEmpty() ? null : v;
  }

  private static String orDefault(String v, String dflt) {
    return v == null || v.isBlank() ? dflt : v;
  }

  private static void error(HttpServerResponse resp, ImageRequestException e) {
    String reason = e.parameter() == null ? e.getMessage() : e.parameter() + ": " + e.getMessage();
    error(resp, e.status(), reason);
  }

  static void error(HttpServerResponse resp, int status, String reason) {
    if (resp.headWritten()) {
      resp.reset();
      return;
    }
    String body = new JsonObject().put("code", Integer.toString(status)).put("href", "").put("id", status)
        .put("kind", "Error").put("reason", reason).encode();
    resp.setStatusCode(status)
        .putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
        .putHeader(HttpHeaders.CONTENT_LENGTH, Integer.toString(body.getBytes(StandardCharsets.UTF_8).length))
        .end(body);
  }
}
