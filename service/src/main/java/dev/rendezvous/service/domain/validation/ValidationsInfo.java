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
  private static final SharedText.Values<ResultList> SHARED_LISTS = new SharedText.Values<>();

  public ValidationsInfo {
    TreeMap<String, List<ValidationResult>> copy = new TreeMap<>();
    categories.forEach((k, v) -> copy.put(SharedText.of(k), ResultList.shared(v)));
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

    /** As Jackson writes the map (names in order), from each category's kept JSON. */
    String toJson() {
      StringBuilder b = new StringBuilder(1024).append('{');
      for (int i = 0; i < names.length; i++) {
        if (i > 0) {
          b.append(',');
        }
        b.append(QUOTED_NAMES.computeIfAbsent(names[i], StepOutputs::toJson)).append(':');
        b.append(results[i] instanceof ResultList r ? r.json() : StepOutputs.toJson(results[i]));
      }
      return b.append('}').toString();
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
    if (!(categories instanceof Categories c)) {
      return StepOutputs.toJson(categories);
    }
    if (c.shared) {
      String j = c.json;
      if (j == null) {
        j = c.toJson();
        c.json = j;
      }
      return j;
    }
    return c.toJson();
  }

  /**
   * One category's results, shared by the documents that hold equal ones, with their JSON once asked for: a host's
   * own document (a message names it: its hostname, its disk) is written category by category, and only the category
   * naming the host is written afresh (writing the whole document for every write of a renamed host was 3 % of the
   * service's CPU in scripts/bench-one-cluster 1000 256). Immutable; equal to any list of the same results.
   */
  private static final class ResultList extends java.util.AbstractList<ValidationResult>
      implements java.util.RandomAccess {
    private final ValidationResult[] results;
    /** Whether an equal list was made again (only a shared list keeps its JSON: a host's own one would cost memory). */
    private volatile boolean shared;
    private volatile String json;

    private ResultList(ValidationResult[] results) {
      this.results = results;
    }

    /** The one instance of these results (each result shared too). */
    static ResultList shared(List<ValidationResult> results) {
      ResultList made = new ResultList(results.stream().map(r -> SHARED.of(java.util.Objects.requireNonNull(r)))
          .toArray(ValidationResult[]::new));
      ResultList known = SHARED_LISTS.of(made);
      if (known != made) {
        known.shared = true;
      }
      return known;
    }

    @Override
    public ValidationResult get(int index) {
      return results[index];
    }

    @Override
    public int size() {
      return results.length;
    }

    String json() {
      String j = json;
      if (j == null) {
        j = StepOutputs.toJson(java.util.Arrays.asList(results));
        if (shared) {
          json = j;
        }
      }
      return j;
    }
  }

  /** Each category name as a JSON string (a handful of names). */
  private static final java.util.concurrent.ConcurrentHashMap<String, String> QUOTED_NAMES =
      new java.util.concurrent.ConcurrentHashMap<>();

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
