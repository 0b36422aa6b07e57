package dev.rendezvous.controller.config;

import dev.rendezvous.controller.service.RetryPolicy;
import java.net.URI;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The controller's settings: upstream's environment (the Job's ConfigMap and Secret) overridden by flags. See
 * {@link ConfigLoader} for names and defaults.
 *
 * @param clusterId CLUSTER_ID
 * @param inventoryUrl INVENTORY_URL (the service; {@code /api/assisted-install} is appended)
 * @param openshiftVersion OPENSHIFT_VERSION (only the OCP 4.8 odf/ocs naming quirk reads it)
 * @param skipCertVerification SKIP_CERT_VERIFICATION
 * @param caCertPath CA_CERT_PATH, a PEM file added to the trusted roots
 * @param namespace NAMESPACE, where the controller runs and posts its ready event
 * @param controlPlaneCount CONTROL_PLANE_COUNT (1 = single node)
 * @param handoverHosts RDV_HANDOVER_HOSTS: the cluster's host list (JSON) as the service had it when the bootstrap
 *     rendered the Job, or null; used when the service cannot be reached (the agent-based installer's service ran on
 *     the rendezvous host and is gone once it rebooted into the cluster)
 * @param checkClusterVersion CHECK_CLUSTER_VERSION: also wait for the cluster version operator ({@code cvo})
 * @param mustGatherImage MUST_GATHER_IMAGE (plain image or JSON map); logged only, see the README
 * @param notifyNumReboots NOTIFY_NUM_REBOOTS
 * @param token the agent token (token file, else PULL_SECRET_TOKEN)
 * @param kubeconfig {@code --kubeconfig}: run outside the cluster; absent = bootstrap kubeconfig or in-cluster
 * @param dryRun DRY_ENABLE / {@code --dry-run}: a simulated cluster instead of Kubernetes
 * @param dryRunTimeScale DRY_TIME_SCALE / {@code --dry-run-time-scale}: multiplies every simulated duration
 * @param timings intervals and timeouts
 * @param retry the service client's retry policy
 * @param logTailChars how much of its own log a controller keeps for upload
 */
public record ControllerConfig(
    String clusterId,
    URI inventoryUrl,
    String openshiftVersion,
    boolean skipCertVerification,
    Optional<Path> caCertPath,
    String namespace,
    int controlPlaneCount,
    boolean checkClusterVersion,
    String mustGatherImage,
    boolean notifyNumReboots,
    String token,
    Optional<Path> kubeconfig,
    boolean dryRun,
    double dryRunTimeScale,
    Timings timings,
    RetryPolicy retry,
    int logTailChars,
    String handoverHosts) {

  /** The token stays out of logs. */
  @Override
  public String toString() {
    return "ControllerConfig[clusterId=" + clusterId + ", inventoryUrl=" + inventoryUrl
        + ", openshiftVersion=" + openshiftVersion + ", skipCertVerification=" + skipCertVerification
        + ", caCertPath=" + caCertPath.map(Path::toString).orElse("") + ", namespace=" + namespace
        + ", controlPlaneCount=" + controlPlaneCount + ", checkClusterVersion=" + checkClusterVersion
        + ", mustGatherImage=" + mustGatherImage + ", notifyNumReboots=" + notifyNumReboots
        + ", token=<SECRET>, kubeconfig=" + kubeconfig.map(Path::toString).orElse("")
        + ", dryRun=" + dryRun + ", dryRunTimeScale=" + dryRunTimeScale + ", timings=" + timings
        + ", retry=" + retry + "]";
  }
}
