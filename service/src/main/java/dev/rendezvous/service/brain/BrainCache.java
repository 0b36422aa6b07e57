package dev.rendezvous.service.brain;

import dev.rendezvous.service.domain.cluster.ClusterStatus;
import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.host.HostStatus;
import io.vertx.core.Future;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the brain of this instance remembers between units of work: each key's parsed state (reused while its row
 * versions hold), the finished keys parked out of memory, when each key was last written here, which key each host
 * runs under, and the check-ins written but not folded in yet. A key's entries are touched on its lane's context;
 * the monitor's cross-check ({@link #dropStale}) and the gauges read from anywhere.
 */
final class BrainCache {

  /** Parsed state per key, reused while its row versions hold. */
  private final Map<WorkKey, Loaded> loaded = new ConcurrentHashMap<>();
  /**
   * When this instance last wrote each cached key (a sequence, not a clock): the monitor's version check reads the
   * rows while units commit, and a key written since that read began only looks changed by someone else.
   */
  private final AtomicLong writeSequence = new AtomicLong();
  private final Map<WorkKey, Long> lastWrite = new ConcurrentHashMap<>();
  /** Which key a host's work runs under (cluster, else infra-env), learnt from loads. */
  private final Map<HostKey, WorkKey> hostKeys = new ConcurrentHashMap<>();
  /** Check-ins written but not yet folded into the cache (they do not wait in the lanes). */
  private final CheckIns checkIns = new CheckIns();
  /**
   * Finished keys (an installed cluster whose hosts are all installed) kept out of the cache, with their rows'
   * versions when parked: nothing clock-driven is left for them, so the monitor leaves them alone until those change.
   * A fleet's installed sites then cost no memory in the brain.
   */
  private final Map<WorkKey, BrainStore.Versions> parked = new ConcurrentHashMap<>();

  Map<HostKey, WorkKey> hostKeys() {
    return hostKeys;
  }

  CheckIns checkIns() {
    return checkIns;
  }

  Loaded get(WorkKey key) {
    return loaded.get(key);
  }

  boolean contains(WorkKey key) {
    return loaded.containsKey(key);
  }

  /** Drops a key so its next unit reads the rows again. */
  void forget(WorkKey key) {
    loaded.remove(key);
  }

  /**
   * A cluster's row changed under the cache (a user's change through the API): its next unit starts from the row read
   * again, with the cached hosts while nobody wrote them ({@link BrainStore#rereadCluster}). A key not cached is read
   * whole by its next unit anyway.
   */
  Future<Void> rereadCluster(WorkKey key, BrainStore store) {
    Loaded c = loaded.get(key);
    if (c == null || !key.isCluster() || c.cluster() == null) {
      loaded.remove(key);
      return Future.succeededFuture();
    }
    return store.rereadCluster(c).map(l -> {
      loaded.put(key, read(key, l));
      return (Void) null;
    }).recover(e -> {
      loaded.remove(key); // read whole by the next unit, which says what is wrong
      return Future.succeededFuture();
    });
  }

  /** Forgets every key (e.g. when this instance's partitions changed). */
  void clear() {
    loaded.clear();
    lastWrite.clear();
    checkIns.clear(); // a load reads them from the rows
    parked.clear();
  }

  /** A host moved to another key (bind, unbind): its next unit looks its key up again. */
  void hostMoved(UUID infraEnvId, UUID hostId) {
    hostKeys.remove(new HostKey(infraEnvId, hostId));
  }

  /** The key's state with the check-ins written since folded in: from memory, else read from the store. */
  Future<Loaded> load(WorkKey key, BrainStore store) {
    Loaded c = loaded.get(key);
    if (c != null) {
      Loaded folded = checkIns.foldInto(c);
      if (folded != c) {
        loaded.put(key, folded);
      }
      return Future.succeededFuture(folded);
    }
    return store.load(key).map(l -> read(key, l));
  }

  /** What was read for a key: its hosts' key learnt, the check-ins written since folded in. */
  private Loaded read(WorkKey key, Loaded l) {
    l.hosts().values().forEach(h -> hostKeys.put(HostKey.of(h.snapshot()), key));
    return checkIns.foldInto(l);
  }

  /** A unit of the key committed: its state after, and the key of each host it wrote (new ones among them). */
  void committed(WorkKey key, Loaded after, java.util.Collection<UUID> written) {
    loaded.put(key, after);
    parked.remove(key);
    wrote(key);
    // the others were routed here when their rows were read
    written.forEach(id -> hostKeys.put(HostKey.of(after.hosts().get(id).snapshot()), key));
  }

  /**
   * A key a unit read and left unchanged: cached (the next unit need not read it again), or parked when finished.
   * Before, such a key was read again by every monitor pass (an installed 1,000-host cluster after a restart).
   */
  void keep(WorkKey key, Loaded base) {
    Loaded cached = loaded.get(key);
    if (cached == base) {
      return;
    }
    if (cached != null && cached.sameRowsAs(base)) {
      loaded.put(key, base); // only the plan floor moved: nothing read or written
      return;
    }
    if (finished(base)) {
      loaded.remove(key);
      parked.put(key, BrainStore.Versions.of(base));
    } else {
      loaded.put(key, base);
      parked.remove(key);
    }
    wrote(key); // read in this lane after the monitor's last version read began: not someone else's write
  }

  /** Parks the key if it is cached, finished and has no check-in to fold in (on its lane). */
  void parkIfFinished(WorkKey key) {
    Loaded l = loaded.get(key);
    if (l != null && finished(l) && checkIns.latest(key) == null) {
      loaded.remove(key);
      parked.put(key, BrainStore.Versions.of(l));
      wrote(key);
    }
  }

  /** An installed cluster whose hosts are all installed: no rule of the domain runs on a clock for it any more. */
  static boolean finished(Loaded l) {
    if (l.cluster() == null || l.cluster().context().status() != ClusterStatus.INSTALLED || l.hosts().isEmpty()) {
      return false;
    }
    for (HostRecord r : l.hosts().values()) {
      HostStatus s = r.snapshot().status();
      if (s != HostStatus.INSTALLED && s != HostStatus.ADDED_TO_EXISTING_CLUSTER) {
        return false;
      }
    }
    return true;
  }

  boolean parked(WorkKey key) {
    return parked.containsKey(key);
  }

  /** The cached host, if its key is cached. */
  Optional<HostSnapshot> cachedHost(WorkKey key, UUID hostId) {
    Loaded l = loaded.get(key);
    return l == null ? Optional.empty() : Optional.ofNullable(l.hosts().get(hostId)).map(HostRecord::snapshot);
  }

  /** Hosts held in the cache. */
  long hostCount() {
    long n = 0;
    for (Loaded l : loaded.values()) {
      n += l.hostCount();
    }
    return n;
  }

  int parkedCount() {
    return parked.size();
  }

  /** A mark to take before reading the rows' versions for {@link #dropStale}. */
  long writeMark() {
    return writeSequence.get();
  }

  /** Drops cached keys whose rows changed in the database (other writers): the monitor's cross-check. */
  void dropStale(Map<WorkKey, BrainStore.Versions> current, long mark) {
    // a parked key whose rows changed (or are gone) is read again; one parked since the versions were read is kept
    parked.entrySet().removeIf(p -> lastWrite.getOrDefault(p.getKey(), 0L) <= mark
        && !p.getValue().sameAs(current.get(p.getKey())));
    for (WorkKey k : List.copyOf(loaded.keySet())) {
      if (lastWrite.getOrDefault(k, 0L) > mark) {
        continue; // written here after the versions were read: the rows read may be older than the cache
      }
      BrainStore.Versions v = current.get(k);
      loaded.computeIfPresent(k, (key, l) -> v != null && v.matches(l) ? l : null);
    }
  }

  /** Marks the key as written by this instance now; see {@link #dropStale}. */
  private void wrote(WorkKey key) {
    lastWrite.put(key, writeSequence.incrementAndGet());
  }
}
