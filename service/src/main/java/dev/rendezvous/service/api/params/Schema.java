package dev.rendezvous.service.api.params;

import dev.rendezvous.service.validation.InvalidInputException;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import java.util.Set;

/**
 * A request body's fields and their rules. Unknown fields are ignored (as upstream's generated
 * server does); null counts as absent, which is how upstream's PATCH bodies say "unchanged".
 */
public record Schema(Map<String, Rule> fields, Set<String> required) {

  public JsonObject validate(JsonObject body, boolean partial) {
    return validate("", body, partial);
  }

  JsonObject validate(String prefix, JsonObject body, boolean partial) {
    JsonObject out = new JsonObject();
    if (!partial) {
      for (String r : required) {
        if (body.getValue(r) == null) {
          throw new InvalidInputException(prefix + r, "is required");
        }
      }
    }
    for (Map.Entry<String, Rule> f : fields.entrySet()) {
      Object v = body.getValue(f.getKey());
      if (v != null) {
        out.put(f.getKey(), f.getValue().check(prefix + f.getKey(), v));
      }
    }
    return out;
  }
}
