package dev.rendezvous.service.api.params;

import dev.rendezvous.service.validation.InvalidInputException;
import dev.rendezvous.service.validation.Net;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.math.BigDecimal;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;

/** The building blocks request schemas are made of. */
public final class Rules {
  private Rules() {}

  private static InvalidInputException bad(String path, String reason) {
    return new InvalidInputException(path, reason);
  }

  public static Rule string(int minLen, int maxLen) {
    return (path, v) -> {
      if (!(v instanceof String s)) {
        throw bad(path, "must be a string");
      }
      if (s.length() < minLen || s.length() > maxLen) {
        throw bad(path, "length must be between " + minLen + " and " + maxLen);
      }
      return s;
    };
  }

  /** A string checked by a function that returns null when fine, else the reason. */
  public static Rule string(int maxLen, Function<String, String> problem) {
    Rule base = string(0, maxLen);
    return (path, v) -> {
      String s = (String) base.check(path, v);
      String p = problem.apply(s);
      if (p != null) {
        throw bad(path, p);
      }
      return s;
    };
  }

  public static Rule oneOf(String... values) {
    List<String> allowed = Arrays.asList(values);
    return (path, v) -> {
      if (!(v instanceof String s) || !allowed.contains(s)) {
        throw bad(path, "must be one of " + allowed);
      }
      return s;
    };
  }

  public static Rule bool() {
    return (path, v) -> {
      if (!(v instanceof Boolean)) {
        throw bad(path, "must be a boolean");
      }
      return v;
    };
  }

  public static Rule integer(long min, long max) {
    return (path, v) -> {
      if (!(v instanceof Number n) || new BigDecimal(n.toString()).stripTrailingZeros().scale() > 0) {
        throw bad(path, "must be an integer");
      }
      long l = n.longValue();
      if (l < min || l > max) {
        throw bad(path, "must be between " + min + " and " + max);
      }
      return l;
    };
  }

  public static Rule uuid() {
    return string(36, s -> {
      try {
        return UUID.fromString(s).toString().equals(s.toLowerCase()) ? null : "must be a UUID";
      } catch (IllegalArgumentException e) {
        return "must be a UUID";
      }
    });
  }

  public static Rule cidr() {
    return string(64, s -> Net.parseCidr(s).isPresent() ? null : "'" + s + "' is not a valid CIDR");
  }

  public static Rule ip() {
    return string(64, s -> Net.isIp(s) ? null : "'" + s + "' is not a valid IP address");
  }

  public static Rule mac() {
    return string(17, s -> Net.isMac(s) ? null : "'" + s + "' is not a valid MAC address");
  }

  /** A JSON-encoded object carried in a string (upstream does this for several fields). */
  public static Rule jsonObjectString(int maxLen) {
    return string(maxLen, s -> {
      try {
        new JsonObject(s);
        return null;
      } catch (RuntimeException e) {
        return "must be a JSON object encoded as a string";
      }
    });
  }

  public static Rule arrayOf(Rule item, int maxItems) {
    return (path, v) -> {
      if (!(v instanceof JsonArray a)) {
        throw bad(path, "must be an array");
      }
      if (a.size() > maxItems) {
        throw bad(path, "must have at most " + maxItems + " items");
      }
      JsonArray out = new JsonArray();
      for (int i = 0; i < a.size(); i++) {
        Object e = a.getValue(i);
        String p = path + "[" + i + "]";
        if (e == null) {
          throw bad(p, "must not be null");
        }
        out.add(item.check(p, e));
      }
      return out;
    };
  }

  public static Rule object(Map<String, Rule> fields, Set<String> required) {
    Schema schema = new Schema(fields, required);
    return (path, v) -> {
      if (!(v instanceof JsonObject o)) {
        throw bad(path, "must be an object");
      }
      return schema.validate(path + ".", o, false);
    };
  }
}
