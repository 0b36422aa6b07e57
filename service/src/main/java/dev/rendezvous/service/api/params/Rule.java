package dev.rendezvous.service.api.params;

/**
 * Checks one JSON value (String, Number, Boolean, JsonObject, JsonArray; never null) found at
 * {@code path} and returns it normalised, or throws InvalidInputException naming the path.
 */
@FunctionalInterface
public interface Rule {
  Object check(String path, Object value);
}
