package dev.rendezvous.service.domain.cluster;

import dev.rendezvous.service.domain.host.HostRole;
import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.host.HostStatus;

/**
 * Counts over a cluster's hosts that the cluster's validations, state machine and progress ask for on every unit of
 * work: hosts by status, hosts that are not disabled by role, those with an inventory or an install stage, and the
 * spread of their clocks. Kept up to date one host at a time ({@link #moved}) as {@link ClusterHosts} replaces and
 * adds hosts (issue 13: each of those questions was a pass over every host, per unit, so a unit in a 1,000-host
 * cluster cost a few thousand host visits whatever it changed). Immutable.
 */
public final class HostTally {
  private static final HostStatus[] STATUSES = HostStatus.values();
  private static final int ROLES = HostRole.values().length;

  /** By status ordinal; the last slot counts hosts with no status yet (a registration before its state machine ran). */
  private final int[] byStatus;
  /** Hosts not disabled, by role (a role master candidates are picked from counts as a candidate). */
  private final int[] activeByRole;
  private final int candidatesWithInventory;
  private final int withInventory;
  private final int withStage;
  /** The earliest and latest non-zero host clock and how many hosts are at each; {@code atEarliest} 0: none. */
  private final long earliest;
  private final long latest;
  private final int atEarliest;
  private final int atLatest;
  /** Whether a host at the earliest or latest clock moved away from it with no other at it: counted again on use. */
  private final boolean clockStale;

  private HostTally(int[] byStatus, int[] activeByRole, int candidatesWithInventory, int withInventory, int withStage,
      long earliest, long latest, int atEarliest, int atLatest, boolean clockStale) {
    this.byStatus = byStatus;
    this.activeByRole = activeByRole;
    this.candidatesWithInventory = candidatesWithInventory;
    this.withInventory = withInventory;
    this.withStage = withStage;
    this.earliest = earliest;
    this.latest = latest;
    this.atEarliest = atEarliest;
    this.atLatest = atLatest;
    this.clockStale = clockStale;
  }

  /** Whether a host is a master candidate the masters count picks from: not disabled, no role of its own. */
  public static boolean candidate(HostSnapshot h) {
    return h.status() != HostStatus.DISABLED && h.role() != null && h.role() != HostRole.MASTER
        && h.role() != HostRole.ARBITER && h.role() != HostRole.WORKER;
  }

  private static int slot(HostStatus s) {
    return s == null ? STATUSES.length : s.ordinal();
  }

  private static int slot(HostRole r) {
    return r == null ? ROLES : r.ordinal();
  }

  static HostTally of(HostSnapshot[] hosts) {
    HostTally t = new HostTally(new int[STATUSES.length + 1], new int[ROLES + 1], 0, 0, 0, 0, 0, 0, 0, false);
    int[] byStatus = t.byStatus;
    int[] byRole = t.activeByRole;
    int candidates = 0;
    int inventories = 0;
    int stages = 0;
    for (HostSnapshot h : hosts) {
      byStatus[slot(h.status())]++;
      if (h.status() != HostStatus.DISABLED) {
        byRole[slot(h.role())]++;
      }
      candidates += candidate(h) && h.inventory() != null ? 1 : 0;
      inventories += h.inventory() != null ? 1 : 0;
      stages += h.stage() != null ? 1 : 0;
    }
    HostTally clock = clock(hosts);
    return new HostTally(byStatus, byRole, candidates, inventories, stages, clock.earliest, clock.latest,
        clock.atEarliest, clock.atLatest, false);
  }

  private static HostTally clock(HostSnapshot[] hosts) {
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    int atMin = 0;
    int atMax = 0;
    for (HostSnapshot h : hosts) {
      long ts = h.hostTimestamp();
      if (ts == 0) {
        continue;
      }
      if (ts < min) {
        min = ts;
        atMin = 1;
      } else if (ts == min) {
        atMin++;
      }
      if (ts > max) {
        max = ts;
        atMax = 1;
      } else if (ts == max) {
        atMax++;
      }
    }
    return atMin == 0 ? new HostTally(null, null, 0, 0, 0, 0, 0, 0, 0, false)
        : new HostTally(null, null, 0, 0, 0, min, max, atMin, atMax, false);
  }

  /** This tally with {@code was} (null: none, a host added) replaced by {@code is}. */
  HostTally moved(HostSnapshot was, HostSnapshot is) {
    int[] status = byStatus.clone();
    int[] role = activeByRole.clone();
    int candidates = candidatesWithInventory;
    int inventories = withInventory;
    int stages = withStage;
    if (was != null) {
      status[slot(was.status())]--;
      if (was.status() != HostStatus.DISABLED) {
        role[slot(was.role())]--;
      }
      candidates -= candidate(was) && was.inventory() != null ? 1 : 0;
      inventories -= was.inventory() != null ? 1 : 0;
      stages -= was.stage() != null ? 1 : 0;
    }
    status[slot(is.status())]++;
    if (is.status() != HostStatus.DISABLED) {
      role[slot(is.role())]++;
    }
    candidates += candidate(is) && is.inventory() != null ? 1 : 0;
    inventories += is.inventory() != null ? 1 : 0;
    stages += is.stage() != null ? 1 : 0;

    long min = earliest;
    long max = latest;
    int atMin = atEarliest;
    int atMax = atLatest;
    boolean stale = clockStale;
    long gone = was == null ? 0 : was.hostTimestamp();
    long come = is.hostTimestamp();
    if (!stale && gone != come) {
      if (gone != 0) {
        // leaving the earliest or latest with no other host at it: which host is now is not known without a pass
        if (gone == min && --atMin == 0 || gone == max && --atMax == 0) {
          stale = true;
        }
      }
      if (!stale && come != 0) {
        if (atMin == 0 || come < min) {
          min = come;
          atMin = 1;
        } else if (come == min) {
          atMin++;
        }
        if (atMax == 0 || come > max) {
          max = come;
          atMax = 1;
        } else if (come == max) {
          atMax++;
        }
      }
    }
    return new HostTally(status, role, candidates, inventories, stages, min, max, atMin, atMax, stale);
  }

  /** This tally with its clock counted again when stale. */
  HostTally withClock(HostSnapshot[] hosts) {
    if (!clockStale) {
      return this;
    }
    HostTally c = clock(hosts);
    return new HostTally(byStatus, activeByRole, candidatesWithInventory, withInventory, withStage, c.earliest,
        c.latest, c.atEarliest, c.atLatest, false);
  }

  public int withStatus(HostStatus s) {
    return byStatus[s.ordinal()];
  }

  public int withStatusIn(java.util.Collection<HostStatus> statuses) {
    int n = 0;
    for (HostStatus s : statuses) {
      n += byStatus[s.ordinal()];
    }
    return n;
  }

  /** Hosts not disabled with this role. */
  public int active(HostRole role) {
    return activeByRole[role.ordinal()];
  }

  /** Master candidates (not disabled, no role of their own) with an inventory. */
  public int candidatesWithInventory() {
    return candidatesWithInventory;
  }

  public int withInventory() {
    return withInventory;
  }

  public int withStage() {
    return withStage;
  }

  boolean clockStale() {
    return clockStale;
  }

  /** Seconds between the earliest and the latest host clock; 0 with no host clock (or one). */
  public long clockSpread() {
    if (clockStale) {
      throw new IllegalStateException("clock counts are stale");
    }
    return atEarliest == 0 ? 0 : latest - earliest;
  }
}
