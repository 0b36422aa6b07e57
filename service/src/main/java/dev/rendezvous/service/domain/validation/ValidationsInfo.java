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
  /**
   * And mostly the same documents: every ready host of a site passes the same ~60 validations with the same messages.
   * One map for equal documents (its tree, lists and entries were ~700 bytes per cached host and per cluster).
   */
  private static final SharedText.Values<Map<String, List<ValidationResult>>> SHARED_DOCUMENTS =
      new SharedText.Values<>();
  /** A host's own message (its name, its disk) makes its document its own; its other categories are shared still. */
  private static final SharedText.Values<List<ValidationResult>> SHARED_LISTS = new SharedText.Values<>();

  public ValidationsInfo {
    TreeMap<String, List<ValidationResult>> copy = new TreeMap<>();
    categories.forEach((k, v) -> copy.put(SharedText.of(k),
        SHARED_LISTS.of(v.stream().map(r -> SHARED.of(java.util.Objects.requireNonNull(r))).toList())));
    Categories doc = new Categories(copy);
    Map<String, List<ValidationResult>> known = SHARED_DOCUMENTS.of(doc);
    if (known != doc) {
      ((Categories) known).shared = true;
    }
    categories = known;
  }

  /**
   * {@code categories}, or {@code previous} when it holds the same results: a host refreshed with nothing new keeps
   * its document without building and looking up shared instances of each result, list and the document again.
   */
  public static ValidationsInfo of(Map<String, List<ValidationResult>> categories, ValidationsInfo previous) {
    return previous != null && sameResults(previous.categories, categories) ? previous : new ValidationsInfo(categories);
  }

  private static boolean sameResults(Map<String, List<ValidationResult>> a, Map<String, List<ValidationResult>> b) {
    if (a.size() != b.size()) {
      return false;
    }
    for (Map.Entry<String, List<ValidationResult>> e : b.entrySet()) {
      List<ValidationResult> mine = a.get(e.getKey());
      if (mine == null || !mine.equals(e.getValue())) {
        return false;
      }
    }
    return true;
  }

  /**
   * The categories in two arrays, sorted by name: what a tree map of eight entries holds in ~400 bytes, in ~120 (a
   * host's document is its own as soon as one message names the host). Immutable.
   */
  private static final class Categories extends java.util.AbstractMap<String, List<ValidationResult>> {
    private final String[] names;
    private final List<ValidationResult>[] results;
    /** Whether another document equal to this one was made (the JSON of a shared document is kept). */
    private volatile boolean shared;
    /** The JSON, once asked for, of a shared document. */
    private volatile String json;

    @SuppressWarnings("unchecked")
    Categories(TreeMap<String, List<ValidationResult>> sorted) {
      names = sorted.keySet().toArray(new String[0]);
      results = sorted.values().toArray(new List[0]);
    }

    @Override
    public int size() {
      return names.length;
    }

    @Override
    public List<ValidationResult> get(Object key) {
      int i = key instanceof String k ? java.util.Arrays.binarySearch(names, k) : -1;
      return i >= 0 ? results[i] : null;
    }

    @Override
    public boolean containsKey(Object key) {
      return get(key) != null;
    }

    @Override
    public java.util.Set<Entry<String, List<ValidationResult>>> entrySet() {
      return new java.util.AbstractSet<>() {
        @Override
        public int size() {
          return names.length;
        }

        @Override
        public java.util.Iterator<Entry<String, List<ValidationResult>>> iterator() {
          return new java.util.Iterator<>() {
            private int next;

            @Override
            public boolean hasNext() {
              return next < names.length;
            }

            @Override
            public Entry<String, List<ValidationResult>> next() {
              if (next >= names.length) {
                throw new java.util.NoSuchElementException();
              }
              int i = next++;
              return new SimpleImmutableEntry<>(names[i], results[i]);
            }
          };
        }
      };
    }
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

  /**
   * The document as JSON. A document many hosts share (every host registered to a site starts with the same one) is
   * written once and its text kept: a registration burst wrote each new host's ~7 KB afresh (6 % of the event loops);
   * a host's own document (a message names it) is written each time, not kept.
   */
  public String toJson() {
    if (categories instanceof Categories c && c.shared) {
      String j = c.json;
      if (j == null) {
        j = StepOutputs.toJson(categories);
        c.json = j;
      }
      return j;
    }
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
