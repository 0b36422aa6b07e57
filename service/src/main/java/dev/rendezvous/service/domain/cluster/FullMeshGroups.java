package dev.rendezvous.service.domain.cluster;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The largest group of hosts that all reach each other, found as upstream's majority-group calculator finds it
 * (internal/network/connectivity_groups.go): each host's view (itself and every host it is connected to both
 * ways) is a candidate group; equal views merge and count their hosts as participants; a group all of whose
 * members participate is a full mesh; otherwise the largest groups are intersected with the original views, size
 * by size, until a full mesh is found. Polynomial in the number of hosts, unlike an exact maximum-clique search,
 * which a 1,000-host cluster with half its connectivity reported kept busy for minutes on an event loop.
 */
final class FullMeshGroups {
  private FullMeshGroups() {}

  /**
   * {@code connected[i]}: the hosts host {@code i} is connected to both ways (itself excluded). Returns the group's
   * host indices, or an empty set when no full mesh of at least {@code minGroupSize} hosts exists.
   */
  static BitSet largest(BitSet[] connected, int minGroupSize) {
    Groups groups = new Groups();
    for (int i = 0; i < connected.length; i++) {
      BitSet view = (BitSet) connected[i].clone();
      view.set(i);
      if (view.cardinality() >= minGroupSize) {
        BitSet me = new BitSet();
        me.set(i);
        groups.addOrMerge(new Group(view, me, null));
      }
    }
    List<Group> primaries = groups.all();
    for (int i = 0; i < primaries.size(); i++) {
      BitSet index = new BitSet();
      index.set(i);
      primaries.get(i).primaries = index;
    }
    for (Group candidate = groups.largest(minGroupSize); candidate != null; candidate = groups.largest(minGroupSize)) {
      if (candidate.fullMesh()) {
        return candidate.members;
      }
      int currentSize = candidate.size;
      groups.bySize.remove(currentSize); // from now on, smaller groups only
      int biggest = groups.biggestSize();
      for (int i = 0; i < primaries.size(); i++) {
        Group primary = primaries.get(i);
        if (candidate.primaries.get(i) || primary.size < biggest) {
          continue; // already part of this group, or too small to matter now
        }
        Group intersected = candidate.intersect(primary);
        if (intersected.size >= minGroupSize && intersected.size < currentSize) {
          groups.addOrMerge(intersected);
          biggest = Math.max(biggest, intersected.size);
        }
      }
    }
    return new BitSet();
  }

  private static final class Group {
    final BitSet members;
    final int size;
    /** Hosts whose own view led to this group. */
    BitSet participants;
    /** The original views this group was intersected from. */
    BitSet primaries;

    Group(BitSet members, BitSet participants, BitSet primaries) {
      this.members = members;
      this.size = members.cardinality();
      this.participants = participants;
      this.primaries = primaries;
    }

    boolean fullMesh() {
      return participants.cardinality() == size;
    }

    void merge(Group other) {
      BitSet p = (BitSet) participants.clone();
      p.or(other.participants);
      p.and(members);
      participants = p;
      if (primaries != null && other.primaries != null) {
        BitSet q = (BitSet) primaries.clone();
        q.or(other.primaries);
        primaries = q;
      }
    }

    Group intersect(Group other) {
      BitSet m = (BitSet) members.clone();
      m.and(other.members);
      Group g = new Group(m, participants, primaries);
      g.merge(other);
      return g;
    }

    /** Upstream's order among equally large groups: the one whose lowest differing host index is lower. */
    boolean before(Group other) {
      BitSet diff = (BitSet) members.clone();
      diff.xor(other.members);
      int first = diff.nextSetBit(0);
      return first >= 0 && members.get(first);
    }
  }

  private static final class Groups {
    final TreeMap<Integer, List<Group>> bySize = new TreeMap<>();

    void addOrMerge(Group g) {
      List<Group> same = bySize.computeIfAbsent(g.size, k -> new ArrayList<>());
      for (Group existing : same) {
        if (existing.members.equals(g.members)) {
          existing.merge(g);
          return;
        }
      }
      same.add(g);
    }

    int biggestSize() {
      return bySize.isEmpty() ? 0 : bySize.lastKey();
    }

    /** The largest group; among equals the one most hosts led to, then upstream's order. */
    Group largest(int minGroupSize) {
      if (biggestSize() < minGroupSize) {
        return null;
      }
      Group best = null;
      for (Group g : bySize.lastEntry().getValue()) {
        int n = g.participants.cardinality();
        int b = best == null ? -1 : best.participants.cardinality();
        if (best == null || n > b || (n == b && g.before(best))) {
          best = g;
        }
      }
      return best;
    }

    /** Largest first, each size in the order its groups were added. */
    List<Group> all() {
      List<Group> out = new ArrayList<>();
      for (Map.Entry<Integer, List<Group>> e : bySize.descendingMap().entrySet()) {
        out.addAll(e.getValue());
      }
      return out;
    }
  }
}
