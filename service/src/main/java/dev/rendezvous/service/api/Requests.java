package dev.rendezvous.service.api;

import dev.rendezvous.service.validation.InvalidInputException;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** Reading path, query and body values with errors that name the parameter. */
public final class Requests {
  private Requests() {}

  public static UUID pathUuid(RoutingContext ctx, String name) {
    String v = ctx.pathParam(name);
    UUID id = parseUuid(v);
    if (id == null) {
      throw new InvalidInputException(name, "'" + v + "' is not a UUID");
    }
    return id;
  }

  public static UUID queryUuid(RoutingContext ctx, String name) {
    String v = ctx.request().getParam(name);
    if (v == null || v.isEmpty()) {
      return null;
    }
    UUID id = parseUuid(v);
    if (id == null) {
      throw new InvalidInputException(name, "'" + v + "' is not a UUID");
    }
    return id;
  }

  public static List<UUID> queryUuids(RoutingContext ctx, String name) {
    List<UUID> out = new ArrayList<>();
    for (String raw : ctx.queryParam(name)) {
      for (String v : raw.split(",")) {
        if (!v.isBlank()) {
          UUID id = parseUuid(v.strip());
          if (id == null) {
            throw new InvalidInputException(name, "'" + v + "' is not a UUID");
          }
          out.add(id);
        }
      }
    }
    return out;
  }

  public static List<String> queryList(RoutingContext ctx, String name, List<String> allowed) {
    List<String> out = new ArrayList<>();
    for (String raw : ctx.queryParam(name)) {
      for (String v : raw.split(",")) {
        if (v.isBlank()) {
          continue;
        }
        if (!allowed.contains(v.strip())) {
          throw new InvalidInputException(name, "'" + v + "' must be one of " + allowed);
        }
        out.add(v.strip());
      }
    }
    return out;
  }

  public static boolean queryBool(RoutingContext ctx, String name, boolean dflt) {
    String v = ctx.request().getParam(name);
    if (v == null || v.isEmpty()) {
      return dflt;
    }
    if (!v.equals("true") && !v.equals("false")) {
      throw new InvalidInputException(name, "must be true or false");
    }
    return Boolean.parseBoolean(v);
  }

  public static Long queryLong(RoutingContext ctx, String name) {
    String v = ctx.request().getParam(name);
    if (v == null || v.isEmpty()) {
      return null;
    }
    try {
      return Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw new InvalidInputException(name, "must be an integer");
    }
  }

  /** The JSON object body; anything else is a 400 naming "body". */
  public static JsonObject body(RoutingContext ctx) {
    String ct = ctx.request().getHeader("Content-Type");
    if (ct != null && !ct.toLowerCase().startsWith("application/json")) {
      throw new ApiError(415, "Content-Type", "must be application/json");
    }
    if (ctx.body() == null || ctx.body().length() == 0) {
      throw new InvalidInputException("body", "is required");
    }
    Object v;
    try {
      v = ctx.body().asJsonObject();
    } catch (RuntimeException e) {
      throw new InvalidInputException("body", "is not valid JSON");
    }
    if (v == null) {
      throw new InvalidInputException("body", "must be a JSON object");
    }
    rejectNul((JsonObject) v, "");
    return (JsonObject) v;
  }

  /** PostgreSQL text cannot hold U+0000: refuse it here, naming the field, rather than fail at the write. */
  private static void rejectNul(Object v, String path) {
    if (v instanceof String s && s.indexOf('\0') >= 0) {
      throw new InvalidInputException(path.isEmpty() ? "body" : path, "must not contain the NUL character (\\u0000)");
    } else if (v instanceof JsonObject o) {
      for (var e : o) {
        if (e.getKey().indexOf('\0') >= 0) {
          throw new InvalidInputException(path.isEmpty() ? "body" : path, "has a field name with the NUL character");
        }
        rejectNul(e.getValue(), path.isEmpty() ? e.getKey() : path + "." + e.getKey());
      }
    } else if (v instanceof io.vertx.core.json.JsonArray a) {
      for (int i = 0; i < a.size(); i++) {
        rejectNul(a.getValue(i), path + "[" + i + "]");
      }
    }
  }

  private static UUID parseUuid(String v) {
    try {
      UUID id = UUID.fromString(v);
      return id.toString().equalsIgnoreCase(v) ? id : null;
    } catch (IllegalArgumentException | NullPointerException e) {
      return null;
    }
  }
}
