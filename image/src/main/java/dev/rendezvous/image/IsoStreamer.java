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
    if (zeroCopy(req)) {
      VertxConnection conn = (VertxConnection) req.connection();
      Future<Void> last = resp.writeHead();
      for (Part p : parts) {
        if (p instanceof MemoryPart m) {
          last = resp.write(m.bytes());
        } else {
          FilePart f = (FilePart) p;
          Promise<Void> done = Promise.promise();
          conn.sendFile(channel, f.fileOffset(), f.length()).addListener(cf -> {
            if (cf.isSuccess()) {
              done.tryComplete();
            } else {
              done.tryFail(cf.cause());
            }
          });
          last = done.future();
        }
      }
      // messages are queued in order: the last one's completion means all went out
      return last.compose(v -> resp.end(), err -> {
        resp.reset();
        return Future.failedFuture(err);
      });
    }
    return sendPiped(resp, body, parts, 0).compose(v -> resp.end(), err -> {
      resp.reset();
      return Future.failedFuture(err);
    });
  }

  private Future<Void> sendPiped(HttpServerResponse resp, ImageBody body, List<Part> parts, int index) {
    if (index == parts.size()) {
      return Future.succeededFuture();
    }
    Part p = parts.get(index);
    Future<Void> step;
    if (p instanceof MemoryPart m) {
      step = resp.write(m.bytes());
    } else {
      FilePart f = (FilePart) p;
      step = vertx.fileSystem().open(body.file().toString(), new OpenOptions().setRead(true).setWrite(false))
          .compose(file -> {
            file.setReadPos(f.fileOffset()).setReadLength(f.length());
            return file.pipe().endOnComplete(false).to(resp).eventually(file::close);
          });
    }
    return step.compose(v -> sendPiped(resp, body, parts, index + 1));
  }
}
