package dev.rendezvous.image;

import dev.rendezvous.image.ImageBody.FilePart;
import dev.rendezvous.image.ImageBody.MemoryPart;
import dev.rendezvous.image.ImageBody.Part;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.file.OpenOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.net.impl.VertxConnection;
import java.nio.channels.FileChannel;
import java.util.List;

/**
 * Streams a slice of an {@link ImageBody} as the body of a response whose status and headers
 * (Content-Length included) are already set, then ends it.
 *
 * <p>On plain HTTP/1.1 the base-file stretches go to the socket as Netty file regions through
 * the connection's own ordered write queue (the same path {@code HttpServerResponse.sendFile}
 * uses, but several times in one response, interleaved with the overlay buffers): no base byte is
 * copied into the JVM and each download holds only its overlay in memory. That uses Vert.x's
 * internal {@code VertxConnection}; elsewhere (TLS, HTTP/2, another Vert.x) the stretches are
 * piped from an {@code AsyncFile} instead, with back-pressure.
 */
public final class IsoStreamer {

  private final Vertx vertx;

  public IsoStreamer(Vertx vertx) {
    this.vertx = vertx;
  }

  /** Whether this request's connection takes the zero-copy path. */
  public static boolean zeroCopy(HttpServerRequest req) {
    return req.connection() instanceof VertxConnection && !req.isSSL() && req.version() != HttpVersion.HTTP_2;
  }

  public Future<Void> send(HttpServerRequest req, ImageBody body, FileChannel channel, List<Part> parts) {
    HttpServerResponse resp = req.response();
    boolean zeroCopy = zeroCopy(req);
    Future<Void> head = zeroCopy ? resp.writeHead() : Future.succeededFuture();
    return head.compose(v -> sendFrom(req, body, channel, parts, 0, zeroCopy))
        .compose(v -> resp.end(), err -> {
          resp.reset();
          return Future.failedFuture(err);
        });
  }

  /**
   * One part at a time: the connection sends a long file stretch as a chain of 1 MiB regions,
   * each queued when the previous one is written, so the next part may only be queued once the
   * stretch is complete.
   */
  private Future<Void> sendFrom(HttpServerRequest req, ImageBody body, FileChannel channel, List<Part> parts,
      int index, boolean zeroCopy) {
    if (index == parts.size()) {
      return Future.succeededFuture();
    }
    HttpServerResponse resp = req.response();
    Part p = parts.get(index);
    Future<Void> step;
    if (p instanceof MemoryPart m) {
      step = resp.write(m.bytes());
    } else if (zeroCopy) {
      FilePart f = (FilePart) p;
      Promise<Void> done = Promise.promise();
      ((VertxConnection) req.connection()).sendFile(channel, f.fileOffset(), f.length()).addListener(cf -> {
        if (cf.isSuccess()) {
          done.tryComplete();
        } else {
          done.tryFail(cf.cause());
        }
      });
      step = done.future();
    } else {
      FilePart f = (FilePart) p;
      step = vertx.fileSystem().open(body.file().toString(), new OpenOptions().setRead(true).setWrite(false))
          .compose(file -> {
            file.setReadPos(f.fileOffset()).setReadLength(f.length());
            return file.pipe().endOnComplete(false).to(resp).eventually(file::close);
          });
    }
    return step.compose(v -> sendFrom(req, body, channel, parts, index + 1, zeroCopy));
  }
}
