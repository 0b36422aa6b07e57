package dev.rendezvous.service.domain.host;

import java.lang.ref.WeakReference;
import java.util.Objects;
import java.util.UUID;
import java.util.WeakHashMap;

/**
 * Columns that a cluster's connectivity reports share. Every host of a cluster reports the same peers (all hosts but
 * itself) with the same addresses and MACs, so host B's peer column is host A's with one peer swapped: A's entry
 * for B removed, B's entry for A inserted. Held as such a {@link Swapped} view of a recent report's full column, a
 * column costs ~32 bytes instead of 4 bytes per peer (the peer ids, addresses and MACs of a 50-host cluster: ~600
 * bytes per host; of a 1,000-host cluster ~12 KB per host). The domain reads columns only through
 * {@link #at(Object, int)}. A column is: null (no entries), one value (every entry equal), an {@code Object[]},
 * or a {@link Swapped}.
 */
final class PeerColumns {
  /** Below this many peers a full column is about as small as the view of another. */
  static final int MIN_PEERS = 4;

  private PeerColumns() {}

  /**
   * {@code base} with entries {@code [removeAt, removeAt + width)} removed and {@code width} entries inserted at
   * {@code insertAt} of what is left: {@code inserted} itself when width is 1, else an array of them.
   */
  record Swapped(Object[] base, int removeAt, int insertAt, int width, Object inserted) {
    Object get(int k) {
      if (k >= insertAt && k < insertAt + width) {
        return width == 1 ? inserted : ((Object[]) inserted)[k - insertAt];
      }
      int j = k < insertAt ? k : k - width;
      return base[j < removeAt ? j : j + width];
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Swapped s && same(this, s, base.length);
    }

    @Override
    public int hashCode() {
      return hash(this, base.length);
    }
  }

  static Object at(Object column, int entry) {
    if (column instanceof Object[] a) {
      return a[entry];
    }
    return column instanceof Swapped s ? s.get(entry) : column;
  }

  static int length(Object column) {
    if (column instanceof Object[] a) {
      return a.length;
    }
    return column instanceof Swapped s ? s.base.length : -1;
  }

  /** Whether two columns of {@code entries} entries hold equal values, whatever their forms. */
  static boolean same(Object a, Object b, int entries) {
    if (a == b) {
      return true;
    }
    if (a instanceof Object[] x && b instanceof Object[] y) {
      return java.util.Arrays.equals(x, y);
    }
    if (!(a instanceof Object[] || a instanceof Swapped) && !(b instanceof Object[] || b instanceof Swapped)) {
      return Objects.equals(a, b);
    }
    for (int k = 0; k < entries; k++) {
      if (!Objects.equals(at(a, k), at(b, k))) {
        return false;
      }
    }
    return true;
  }

  static int hash(Object column, int entries) {
    int h = 1;
    for (int k = 0; k < entries; k++) {
      h = 31 * h + Objects.hashCode(at(column, k));
    }
    return h;
  }

  /**
   * {@code column} as {@code base} with one run of {@code width} entries moved out and another in (a peer swapped),
   * {@code base} itself when they are equal, else {@code column} unchanged.
   */
  static Object against(Object[] base, Object column, int width) {
    if (!(column instanceof Object[] t) || base == null || base.length != t.length || width <= 0
        || t.length < 2 * width) {
      return column;
    }
    int n = t.length;
    int f = 0;
    while (f < n && Objects.equals(base[f], t[f])) {
      f++;
    }
    if (f == n) {
      return base;
    }
    int l = n - 1;
    while (Objects.equals(base[l], t[l])) {
      l--;
    }
    int middle = l - f - width + 1; // entries that moved by one run
    if (middle < 0) {
      return column;
    }
    if (sameRange(base, f + width, t, f, middle)) { // base's run at f left, t's run ending at l came in
      return new Swapped(base, f, l - width + 1, width, run(t, l - width + 1, width));
    }
    if (sameRange(base, f, t, f + width, middle)) { // base's run ending at l left, t's run at f came in
      return new Swapped(base, l - width + 1, f, width, run(t, f, width));
    }
    return column;
  }

  private static boolean sameRange(Object[] a, int from, Object[] b, int bFrom, int count) {
    for (int i = 0; i < count; i++) {
      if (!Objects.equals(a[from + i], b[bFrom + i])) {
        return false;
      }
    }
    return true;
  }

  private static Object run(Object[] t, int from, int width) {
    return width == 1 ? t[from] : java.util.Arrays.copyOfRange(t, from, from + width);
  }

  /**
   * The full columns of a recent report of a cluster: what its other hosts' reports are held against. Reports keep
   * their base alive (a field); the registry only finds it, weakly, by either of its first two peers (every other
   * host of the cluster lists at least one of them first).
   */
  record Base(Object[] peers, Object[][] columns) {}

  private static final WeakHashMap<UUID, WeakReference<Base>> BASES = new WeakHashMap<>();

  static synchronized Base baseFor(Object[] peers) {
    for (int i = 0; i < 2 && i < peers.length; i++) {
      if (peers[i] instanceof UUID id) {
        WeakReference<Base> ref = BASES.get(id);
        Base b = ref == null ? null : ref.get();
        if (b != null && b.peers.length == peers.length) {
          return b;
        }
      }
    }
    return null;
  }

  static synchronized void register(Base base) {
    WeakReference<Base> ref = new WeakReference<>(base);
    for (int i = 0; i < 2 && i < base.peers.length; i++) {
      if (base.peers[i] instanceof UUID id) {
        BASES.put(id, ref);
      }
    }
  }
}
