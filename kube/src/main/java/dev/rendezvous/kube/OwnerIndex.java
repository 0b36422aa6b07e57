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
  /** A map kept with its inverse. */
  private static final class TwoWay {
    private final Map<String, String> forward = new ConcurrentHashMap<>();
    private final Map<String, String> back = new ConcurrentHashMap<>();

    void put(String key, String value) {
      forward.put(key, value);
      back.put(value, key);
    }

    Optional<String> get(String key) {
      return Optional.ofNullable(forward.get(key));
    }

    Optional<String> keyOf(String value) {
      return Optional.ofNullable(back.get(value));
    }

    void remove(String key) {
      String value = forward.remove(key);
      if (value != null) {
        back.remove(value);
      }
    }

    int size() {
      return forward.size();
    }
  }

  private final TwoWay clusters = new TwoWay();
  private final TwoWay infraEnvs = new TwoWay();
  private final Map<String, String> infraEnvOfHost = new ConcurrentHashMap<>();

  public void cluster(String installKey, String clusterId) {
    clusters.put(installKey, clusterId);
  }

  public Optional<String> clusterOf(String installKey) {
    return clusters.get(installKey);
  }

  public Optional<String> installOf(String clusterId) {
    return clusters.keyOf(clusterId);
  }

  public void forgetInstall(String installKey) {
    clusters.remove(installKey);
  }

  public void infraEnv(String crKey, String infraEnvId) {
    infraEnvs.put(crKey, infraEnvId);
  }

  public Optional<String> infraEnvOf(String crKey) {
    return infraEnvs.get(crKey);
  }

  public Optional<String> infraEnvCrOf(String infraEnvId) {
    return infraEnvs.keyOf(infraEnvId);
  }

  public void forgetInfraEnv(String crKey) {
    infraEnvs.remove(crKey);
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
    return clusters.size();
  }
}
