package dev.rendezvous.service.brain;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.UUID;

/**
 * A key's hosts as its cache holds them (rows, or rows as stored): an immutable map in load order that a committed
 * unit advances by the few hosts it wrote without copying the others. It is a shared table and a small table of
 * replaced or added hosts; once that grows past ~2·√n entries it is folded into a new shared table. A 1,000-host
 * cluster's units each copied the whole map two or three times (the unit's working copy, the rows after the commit,
 * the rows as stored): most of a unit's cost outside its own hosts' rules. Values are never null; hosts are never
 * removed (a host leaving the key is seen by reading the key again).
 */
final class HostTable<V> extends AbstractMap<UUID, V> {
  private static final HostTable<?> EMPTY = new HostTable<>(Map.of(), Map.of(), 0);

  private final Map<UUID, V> shared;
  private final Map<UUID, V> recent;
  /** How many keys of {@code recent} are not in {@code shared}. */
  private final int added;
  private Set<Entry<UUID, V>> entries;

  private HostTable(Map<UUID, V> shared, Map<UUID, V> recent, int added) {
    this.shared = shared;
    this.recent = recent;
    this.added = added;
  }

  @SuppressWarnings("unchecked")
  static <V> HostTable<V> empty() {
    return (HostTable<V>) EMPTY;
  }

  /** {@code m} itself when it is a table already, else a table holding a copy of it (in its order). */
  static <V> HostTable<V> of(Map<UUID, V> m) {
    if (m instanceof HostTable<V> t) {
      return t;
    }
    return m.isEmpty() ? empty() : new HostTable<>(new LinkedHashMap<>(m), Map.of(), 0);
  }

  /** This table with {@code changes} put in (a replaced host keeps its place, a new one comes last). */
  HostTable<V> with(Map<UUID, V> changes) {
    if (changes.isEmpty()) {
      return this;
    }
    LinkedHashMap<UUID, V> next = new LinkedHashMap<>(recent);
    int more = added;
    for (Entry<UUID, V> e : changes.entrySet()) {
      V old = next.put(e.getKey(), java.util.Objects.requireNonNull(e.getValue(), "value"));
      if (old == null && !shared.containsKey(e.getKey())) {
        more++;
      }
    }
    HostTable<V> t = new HostTable<>(shared, next, more);
    int limit = Math.max(16, 2 * (int) Math.sqrt(shared.size()));
    return next.size() <= limit ? t : new HostTable<>(new LinkedHashMap<>(t), Map.of(), 0);
  }

  @Override
  public V get(Object key) {
    V v = recent.get(key);
    return v != null ? v : shared.get(key);
  }

  @Override
  public boolean containsKey(Object key) {
    return recent.containsKey(key) || shared.containsKey(key);
  }

  @Override
  public int size() {
    return shared.size() + added;
  }

  @Override
  public Set<Entry<UUID, V>> entrySet() {
    if (entries == null) {
      entries = new AbstractSet<>() {
        @Override
        public Iterator<Entry<UUID, V>> iterator() {
          return recent.isEmpty() ? java.util.Collections.unmodifiableMap(shared).entrySet().iterator() : new Merged();
        }

        @Override
        public int size() {
          return HostTable.this.size();
        }
      };
    }
    return entries;
  }

  /** The shared entries in order with the recent values in their place, then the added ones. */
  private final class Merged implements Iterator<Entry<UUID, V>> {
    private final Iterator<Entry<UUID, V>> first = shared.entrySet().iterator();
    private final Iterator<Entry<UUID, V>> then = recent.entrySet().iterator();
    private Entry<UUID, V> next = advance();

    private Entry<UUID, V> advance() {
      if (first.hasNext()) {
        Entry<UUID, V> e = first.next();
        V v = recent.get(e.getKey());
        return v == null ? Map.entry(e.getKey(), e.getValue()) : Map.entry(e.getKey(), v);
      }
      while (then.hasNext()) {
        Entry<UUID, V> e = then.next();
        if (!shared.containsKey(e.getKey())) {
          return Map.entry(e.getKey(), e.getValue());
        }
      }
      return null;
    }

    @Override
    public boolean hasNext() {
      return next != null;
    }

    @Override
    public Entry<UUID, V> next() {
      if (next == null) {
        throw new NoSuchElementException();
      }
      Entry<UUID, V> e = next;
      next = advance();
      return e;
    }
  }
}
