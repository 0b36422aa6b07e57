package dev.rendezvous.service.api;

import dev.rendezvous.service.db.DatabaseUnavailable;
import dev.rendezvous.service.validation.InvalidInputException;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.HttpException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns every failure into upstream's error shape {code, href, id, kind, reason} (plus the
 * offending "field" when there is one). Unexpected exceptions are logged and answered 500 without
 * internals; everything a client can cause maps to a 4xx before it gets here.
 */
public final class ErrorReplies {
  private static final Logger LOG = LoggerFactory.getLogger(ErrorReplies.class);

  /** What a client is told to wait when the database is down: the supervisor restarts an embedded one in ~1–3 s. */
  static final int RETRY_AFTER_SECONDS = 2;

  private ErrorReplies() {}

  public static JsonObject body(int status, String field, String reason) {
    JsonObject o = new JsonObject()
        .put("code", Integer.toString(status))
        .put("href", "")
        .put("id", status)
        .put("kind", "Error")
        .put("reason", field == null ? reason : field + ": " + reason);
    if (field != null) {
      o.put("field", field);
    }
    return o;
  }

  public static void send(RoutingContext ctx, int status, String field, String reason) {
    send(ctx, status, field, reason, null);
  }

  static void send(RoutingContext ctx, int status, String field, String reason, JsonObject extra) {
    HttpServerResponse r = ctx.response();
    if (r.ended()) {
      return;
    }
    if (r.headWritten()) {
      r.reset();
      return;
    }
    JsonObject body = body(status, field, reason);
    if (extra != null) {
      extra.forEach(e -> body.put(e.getKey(), e.getValue()));
    }
    r.setStatusCode(status).putHeader("Content-Type", "application/json").end(body.encode());
  }

  /**
   * The reason of a 404 for a path no route serves, so a client (and ApiCompatibilityTest) can tell it from a 404
   * for an object that does not exist ("cluster ... not found").
   */
  public static final String NO_ROUTE = "no such route";

  /** The router's failure handler. */
  public static void handle(RoutingContext ctx) {
    Throwable t = ctx.failure();
    if ((t == null || t instanceof HttpException) && (t == null ? ctx.statusCode() : ((HttpException) t).getStatusCode()) == 404) {
      send(ctx, 404, null, NO_ROUTE + ": " + ctx.request().method() + " " + ctx.request().path());
      return;
    }
    if (t instanceof ApiError e) {
      if (e.status() == 503) {
        ctx.response().putHeader("Retry-After", Integer.toString(RETRY_AFTER_SECONDS));
      }
      send(ctx, e.status(), e.field(), e.getMessage(), e.extra());
    } else if (t instanceof InvalidInputException e) {
      send(ctx, 400, e.field(), e.reason());
    } else if (t instanceof DecodeException) {
      send(ctx, 400, "body", "is not valid JSON");
    } else if (t instanceof HttpException e) {
      int s = e.getStatusCode();
      send(ctx, s, s == 413 ? "body" : null, s == 413 ? "is larger than the limit" : statusText(s));
    } else if (t instanceof io.vertx.pgclient.PgException pg && pg.getSqlState() != null
        && (pg.getSqlState().equals("22021") || pg.getSqlState().equals("22P05"))) {
      // a character the database cannot store (U+0000) that came in some other way than a JSON body
      send(ctx, 400, null, "the request has a character that cannot be stored (U+0000)");
    } else if (t != null && dev.rendezvous.service.db.TransientConflict.is(t)) {
      // crossed another transaction (a deadlock, a serialization failure) on every attempt: nothing was written
      LOG.atWarn().addKeyValue("path", ctx.normalizedPath()).log("transient conflict: " + t);
      ctx.response().putHeader("Retry-After", Integer.toString(RETRY_AFTER_SECONDS));
      send(ctx, 503, null, "a concurrent change conflicted with this request; retry later");
    } else if (t != null && DatabaseUnavailable.is(t)) {
      LOG.atWarn().addKeyValue("path", ctx.normalizedPath()).log("database unavailable: " + t);
      ctx.response().putHeader("Retry-After", Integer.toString(RETRY_AFTER_SECONDS));
      send(ctx, 503, null, "the database is unavailable; retry later");
    } else if (t == null) {
      int s = ctx.statusCode() > 0 ? ctx.statusCode() : 500;
      send(ctx, s, s == 413 ? "body" : null, s == 413 ? "is larger than the limit" : statusText(s));
    } else {
      LOG.atError().setCause(t).addKeyValue("path", ctx.normalizedPath()).log("unexpected failure");
      send(ctx, 500, null, "internal error");
    }
  }

  static String statusText(int s) {
    return switch (s) {
      case 400 -> "bad request";
      case 401 -> "unauthorized";
      case 403 -> "forbidden";
      case 404 -> "not found";
      case 405 -> "method not allowed";
      case 413 -> "request body too large";
      case 415 -> "unsupported media type";
      default -> "error " + s;
    };
  }
}
