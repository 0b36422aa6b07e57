package dev.rendezvous.kube;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which service object each custom resource made, both ways: AgentClusterInstall "ns/name" ↔ cluster id, InfraEnv
 * "ns/name" ↔ infra-env id, and the infra-env of each host the bus told about. Rebuilt at start from the service's
 * {@code kube_key}s; kept current by the reconcilers.
 */
public final class OwnerIndex {
  private final Map<String, String> clusterOfInstall = new ConcurrentHashMap<>();
  private final Map<String, String> installOfCluster = new ConcurrentHashMap<>();
  private final Map<String, String> infraEnvOfCr = new ConcurrentHashMap<>();
  private final Map<String, String> crOfInfraEnv = new ConcurrentHashMap<>();
  private final Map<String, String> infraEnvOfHost = new ConcurrentHashMap<>();

  public void cluster(String installKey, String clusterId) {
    clusterOfInstall.put(installKey, clusterId);
    installOfCluster.put(clusterId, installKey);
  }

  public Optional<String> clusterOf(String installKey) {
    return Optional.ofNullable(clusterOfInstall.get(installKey));
  }

  public Optional<String> installOf(String clusterId) {
    return Optional.ofNullable(installOfCluster.get(clusterId));
  }

  public void forgetInstall(String installKey) {
    String id = clusterOfInstall.remove(installKey);
    if (id != null) {
      installOfCluster.remove(id);
    }
  }

  public void infraEnv(String crKey, String infraEnvId) {
    infraEnvOfCr.put(crKey, infraEnvId);
    crOfInfraEnv.put(infraEnvId, crKey);
  }

  public Optional<String> infraEnvOf(String crKey) {
    return Optional.ofNullable(infraEnvOfCr.get(crKey));
  }

  public Optional<String> infraEnvCrOf(String infraEnvId) {
    return Optional.ofNullable(crOfInfraEnv.get(infraEnvId));
  }

  public void forgetInfraEnv(String crKey) {
    String id = infraEnvOfCr.remove(crKey);
    if (id != null) {
      crOfInfraEnv.remove(id);
    }
  }

  public void host(String hostId, String infraEnvId) {
    infraEnvOfHost.put(hostId, infraEnvId);
  }

  public Optional<String> infraEnvOfHost(String hostId) {
    return Optional.ofNullable(infraEnvOfHost.get(hostId));
  }

  public void forgetHost(String hostId) {
    infraEnvOfHost.remove(hostId);
  }

  public int installs() {
    return clusterOfInstall.size();
  }
}
