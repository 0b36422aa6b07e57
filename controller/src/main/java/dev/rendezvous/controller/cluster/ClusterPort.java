package dev.rendezvous.controller.cluster;

import dev.rendezvous.controller.service.ProxySettings;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * Everything the controller's loops ask of the new cluster. Two adapters: {@link Fabric8ClusterPort} (a real
 * cluster, followed through informers) and the dry-run simulated cluster. Reads of watched kinds answer from
 * memory; writes and occasional reads are asynchronous.
 */
public interface ClusterPort extends AutoCloseable {

  /** Starts following the cluster; completes once the watched kinds are listed (or given up on, see adapter). */
  CompletableFuture<Void> start();

  /** Called (from any thread) whenever a watched object changed in a way the loops care about. */
  void addChangeListener(Runnable listener);

  /** A cheap call proving the API server answers (upstream lists nodes). */
  CompletableFuture<Void> ping();

  List<Views.Node> nodes();

  List<Views.Csr> csrs();

  /** Approves a CSR with this condition reason and message. */
  CompletableFuture<Void> approveCsr(String name, String reason, String message);

  Optional<Views.ClusterOperator> clusterOperator(String name);

  List<Views.ClusterOperator> clusterOperators();

  Optional<Views.ClusterVersion> clusterVersion();

  /** {@code ca-bundle.crt} of configmap {@code openshift-config-managed/default-ingress-cert}, once it exists. */
  Optional<String> ingressCaBundle();

  /** Creates an event in {@code namespace} about {@code involvedObjectName}; an existing one is fine. */
  CompletableFuture<Views.EventCreation> createEvent(String namespace, String name, String reason, String message,
      String involvedObjectName);

  /** Merge-patches these labels onto the node. */
  CompletableFuture<Void> mergeNodeLabels(String node, Map<String, String> labels);

  /** Removes {@code node.cloudprovider.kubernetes.io/uninitialized} from the node. */
  CompletableFuture<Void> removeUninitializedTaint(String node);

  /** Merge-patches {@code spec.paused} of a MachineConfigPool. */
  CompletableFuture<Void> setMachineConfigPoolPaused(String pool, boolean paused);

  /** {@code status.currentCSV} of an OLM Subscription, once set. */
  CompletableFuture<Optional<String>> subscriptionCurrentCsv(String namespace, String subscription);

  CompletableFuture<Optional<Views.Csv>> csv(String namespace, String name);

  /**
   * Upstream's workaround for OLM's early-setup bug: deletes failed Jobs in {@code openshift-marketplace} and
   * failed InstallPlans of the subscription, so OLM tries again.
   */
  CompletableFuture<Void> cleanUpFailedOlmInstalls(String namespace, String subscription);

  /** Applies manifests (YAML, possibly several documents each), as {@code oc apply} with the given kubeconfig. */
  CompletableFuture<Void> applyManifests(Optional<byte[]> kubeconfig, List<byte[]> manifests);

  /** Logs of the machine-config-server pods for the last {@code since} (who fetched Ignition). */
  CompletableFuture<String> machineConfigServerLogs(Duration since);

  /** The running controller pod's log (label {@code job-name=assisted-installer-controller}), if any. */
  CompletableFuture<Optional<byte[]>> controllerPodLog(String namespace);

  /** The must-gather a client can reach: logs of the namespace's pods and its events. */
  CompletableFuture<List<Views.NamedFile>> namespaceDiagnostics(String namespace);

  /** The cluster-wide proxy ({@code proxies.config.openshift.io/cluster} status); NONE when there is none. */
  CompletableFuture<ProxySettings> clusterProxy();

  /** {@code invoker} of configmap {@code openshift-config/openshift-install-manifests}, if set. */
  CompletableFuture<Optional<String>> installInvoker();

  @Override
  void close();
}
