package dev.rendezvous.service.domain.cluster;

import dev.rendezvous.service.domain.cluster.ClusterContext.MonitoredOperator;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The operators an installation waits for (upstream's operator manager): the console always, the cluster version
 * operator when the service checks it, and every OLM operator the cluster asked for, with the namespace and
 * subscription the controller follows.
 */
public final class MonitoredOperators {
  /** Upstream's builtin operators wait an hour. */
  public static final long BUILTIN_TIMEOUT_SECONDS = 60 * 60;
  static final long OLM_TIMEOUT_SECONDS = 70 * 60;

  /** Namespace and subscription of the OLM operators upstream installs (others: openshift-NAME / NAME). */
  private static final Map<String, String[]> OLM = Map.of(
      "lso", new String[] {"openshift-local-storage", "local-storage-operator"},
      "odf", new String[] {"openshift-storage", "odf-operator"},
      "lvm", new String[] {"openshift-storage", "lvms-operator"},
      "cnv", new String[] {"openshift-cnv", "hco-operatorhub"},
      "mce", new String[] {"multicluster-engine", "multicluster-engine"},
      "mtv", new String[] {"openshift-mtv", "mtv-operator"},
      "nmstate", new String[] {"openshift-nmstate", "kubernetes-nmstate-operator"});

  private MonitoredOperators() {}

  public static List<MonitoredOperator> initial(ClusterContext c, boolean checkClusterVersion) {
    return of(c.olmOperators(), checkClusterVersion);
  }

  /** The console, the cluster version operator when checked, and the given OLM operators, none reported yet. */
  public static List<MonitoredOperator> of(List<String> olmOperators, boolean checkClusterVersion) {
    List<MonitoredOperator> out = new ArrayList<>();
    out.add(new MonitoredOperator("console", "builtin", "openshift-console", null, BUILTIN_TIMEOUT_SECONDS, "", null,
        null, null));
    if (checkClusterVersion) {
      out.add(new MonitoredOperator("cvo", "builtin", "openshift-cluster-version", null, BUILTIN_TIMEOUT_SECONDS, "",
          null, null, null));
    }
    for (String name : olmOperators) {
      String[] ns = OLM.getOrDefault(name, new String[] {"openshift-" + name, name});
      out.add(new MonitoredOperator(name, "olm", ns[0], ns[1], OLM_TIMEOUT_SECONDS, "", null, null, null));
    }
    return out;
  }
}
