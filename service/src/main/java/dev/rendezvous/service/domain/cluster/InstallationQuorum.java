package dev.rendezvous.service.domain.cluster;

import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.host.HostStatus;
import java.util.Collection;
import java.util.EnumSet;
import java.util.Set;

/** Upstream HasEnoughMastersAndWorkers: can the cluster still come up with the hosts in these statuses? */
public final class InstallationQuorum {
  private InstallationQuorum() {}

  public static final Set<HostStatus> INSTALLING_ENOUGH = EnumSet.of(HostStatus.INSTALLING,
      HostStatus.INSTALLING_IN_PROGRESS, HostStatus.INSTALLED, HostStatus.INSTALLING_PENDING_USER_ACTION,
      HostStatus.PREPARING_SUCCESSFUL);
  public static final Set<HostStatus> FINALIZING_ENOUGH = EnumSet.of(HostStatus.INSTALLED);

  public static boolean enough(ClusterContext c, Collection<HostSnapshot> hosts, Set<HostStatus> statuses) {
    int masters = 0;
    int mastersIn = 0;
    int arbiters = 0;
    int arbitersIn = 0;
    int workers = 0;
    int workersIn = 0;
    for (HostSnapshot h : hosts) {
      boolean in = statuses.contains(h.status());
      switch (h.effectiveRole()) {
        case MASTER, BOOTSTRAP -> { masters++; if (in) { mastersIn++; } }
        case ARBITER -> { arbiters++; if (in) { arbitersIn++; } }
        case WORKER -> { workers++; if (in) { workersIn++; } }
        default -> {}
      }
    }
    if (c.singleNode()) {
      return mastersIn == 1 && workersIn == 0;
    }
    int minMasters = arbiters > 0 || c.controlPlaneCount() == 2 ? 2 : 3;
    boolean mastersOk = mastersIn == masters && mastersIn >= minMasters;
    boolean arbitersOk = arbiters == 0 || arbitersIn >= 1;
    boolean workersOk = workers < 2 || workersIn >= 2;
    return mastersOk && arbitersOk && workersOk;
  }
}
