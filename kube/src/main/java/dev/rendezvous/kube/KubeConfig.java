package dev.rendezvous.kube;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The kube face's settings. {@code kubeconfig}: the hub's kubeconfig ({@code --kubeconfig} / {@code RDV_KUBECONFIG});
 * the literal {@code in-cluster} uses the pod's service account. {@code namespaces}: where CRs are watched (empty: all).
 * {@code apiBase}/{@code token}: the service's REST API v2 and an admin token (null with auth off).
 */
public record KubeConfig(
    String kubeconfig,
    List<String> namespaces,
    String apiBase,
    String token,
    int workers,
    Duration missingDependencyRetry,
    javax.net.ssl.SSLContext apiTls) {

  public static final String IN_CLUSTER = "in-cluster";

  /** Without TLS settings of its own towards the API (the JVM's trusted roots). */
  public KubeConfig(String kubeconfig, List<String> namespaces, String apiBase, String token, int workers,
      Duration missingDependencyRetry) {
    this(kubeconfig, namespaces, apiBase, token, workers, missingDependencyRetry, null);
  }

  /** From flags and environment: {@code kubeconfig}, {@code kube-namespaces} and {@code kube-workers}. */
  public static KubeConfig from(Function<String, String> flag, Map<String, String> env, String apiBase, String token) {
    String kubeconfig = first(flag.apply("kubeconfig"), env.get("RDV_KUBECONFIG"));
    if (kubeconfig == null && env.get("KUBERNETES_SERVICE_HOST") != null && "true".equals(env.get("RDV_KUBE_IN_CLUSTER"))) {
      kubeconfig = IN_CLUSTER;
    }
    String ns = first(flag.apply("kube-namespaces"), env.get("RDV_KUBE_NAMESPACES"));
    List<String> namespaces = ns == null || ns.isBlank() ? List.of()
        : List.of(ns.split(",")).stream().map(String::strip).filter(s -> !s.isEmpty()).toList();
    String w = first(flag.apply("kube-workers"), env.get("RDV_KUBE_WORKERS"));
    return new KubeConfig(kubeconfig, namespaces, apiBase, token, w == null ? 4 : Integer.parseInt(w),
        Duration.ofSeconds(10), null);
  }

  public boolean enabled() {
    return kubeconfig != null && !kubeconfig.isBlank();
  }

  public Path kubeconfigPath() {
    return IN_CLUSTER.equals(kubeconfig) ? null : Path.of(kubeconfig);
  }

  private static String first(String a, String b) {
    return a != null && !a.isBlank() ? a : b;
  }
}
