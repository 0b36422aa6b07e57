package dev.rendezvous.service.domain.validation;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import dev.rendezvous.service.domain.SharedText;
import dev.rendezvous.service.domain.planning.InvalidStepOutputException;
import dev.rendezvous.service.domain.planning.StepOutputs;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The validations_info document of a host or cluster: category → results. Upstream marshals a Go map,
 * so categories come out sorted by name; results keep evaluation order (operators sorted by id).
 */
public record ValidationsInfo(Map<String, List<ValidationResult>> categories) {

  /** Most hosts carry the same results: one instance of each (issue 13: memory per idle host). */
  private static final SharedText.Values<ValidationResult> SHARED = new SharedText.Values<>();

  public ValidationsInfo {
    Map<String, List<ValidationResult>> copy = new TreeMap<>();
    categories.forEach((k, v) -> copy.put(SharedText.of(k), v.stream().map(r -> SHARED.of(java.util.Objects.requireNonNull(r))).toList()));
    categories = Collections.unmodifiableMap(copy);
  }

  public static ValidationsInfo empty() {
    return new ValidationsInfo(Map.of());
  }

  public Optional<ValidationResult> find(String id) {
    for (List<ValidationResult> l : categories.values()) {
      for (ValidationResult r : l) {
        if (r.id().equals(id)) {
          return Optional.of(r);
        }
      }
    }
    return Optional.empty();
  }

  public List<ValidationResult> all() {
    List<ValidationResult> out = new ArrayList<>();
    categories.values().forEach(out::addAll);
    return out;
  }

  /** Messages of failed validations, sorted, as upstream's $FAILING_VALIDATIONS. */
  public List<String> failedMessages() {
    List<String> out = new ArrayList<>();
    for (ValidationResult r : all()) {
      if (r.status() == ValidationStatus.FAILURE) {
        out.add(r.message());
      }
    }
    Collections.sort(out);
    return out;
  }

  /** Messages of pending validations, sorted: what status_info lists when nothing failed. */
  public List<String> pendingMessages() {
    List<String> out = new ArrayList<>();
    for (ValidationResult r : all()) {
      if (r.status() == ValidationStatus.PENDING) {
        out.add(r.message());
      }
    }
    Collections.sort(out);
    return out;
  }

  public String toJson() {
    return StepOutputs.toJson(categories);
  }

  public static ValidationsInfo parse(String json) {
    if (json == null || json.isBlank()) {
      return empty();
    }
    try {
      Map<String, List<ValidationResult>> m =
          StepOutputs.JSON.readValue(json, new TypeReference<LinkedHashMap<String, List<ValidationResult>>>() {});
      return new ValidationsInfo(m == null ? Map.of() : m);
    } catch (JsonProcessingException e) {
      throw new InvalidStepOutputException("validations_info", e.getOriginalMessage(), e);
    }
  }
}
