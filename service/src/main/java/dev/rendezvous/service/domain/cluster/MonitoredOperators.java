package dev.rendezvous.service.domain.cluster;

import dev.rendezvous.service.domain.cluster.ClusterContext.MonitoredOperator;
import java.util.ArrayList;
import dev.rendezvous.service.domain.operators.OlmOperator;
import java.util.List;
import java.util.Optional;

/**
 * The operators an installation waits for (upstream's operator manager): the console always, the cluster version
 * operator when the service checks it, and every OLM operator the cluster asked for, with the namespace and
 * subscription the controller follows.
 */
public final class MonitoredOperators {
  /** Upstream's builtin operators wait an hour. */
  public static final long BUILTIN_TIMEOUT_SECONDS = 60 * 60;
  /** For a name no {@link OlmOperator} knows (refused at creation; kept so old rows still show). */
  static final long OLM_TIMEOUT_SECONDS = 70 * 60;

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
      Optional<OlmOperator> op = OlmOperator.parse(name);
      String namespace = op.map(o -> o.subscription().namespace()).orElse("openshift-" + name);
      String subscription = op.map(o -> o.subscription().name()).orElse(name);
      long timeout = op.map(OlmOperator::timeoutSeconds).orElse(OLM_TIMEOUT_SECONDS);
      out.add(new MonitoredOperator(name, "olm", namespace, subscription, timeout, "", null, null, null));
    }
    return out;
  }
}
