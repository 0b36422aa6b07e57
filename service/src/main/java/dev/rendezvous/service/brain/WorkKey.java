package dev.rendezvous.service.brain;

import java.util.UUID;

/**
 * What one unit of work covers: a cluster and all its hosts, or the unbound hosts of one infra-env. It is
 * also the lane (all work for one key runs serially in this process) and, as a string, the bus partition key.
 */
public record WorkKey(UUID clusterId, UUID infraEnvId) {

  public WorkKey {
    if ((clusterId == null) == (infraEnvId == null)) {
      throw new IllegalArgumentException("a work key is a cluster id or an infra-env id");
    }
    // the cache holds its keys: the ids' one instance, not a copy per key (issue 13: memory per site)
    clusterId = dev.rendezvous.service.domain.SharedText.id(clusterId);
    infraEnvId = dev.rendezvous.service.domain.SharedText.id(infraEnvId);
  }

  public static WorkKey cluster(UUID id) {
    return new WorkKey(id, null);
  }

  public static WorkKey unbound(UUID infraEnvId) {
    return new WorkKey(null, infraEnvId);
  }

  public boolean isCluster() {
    return clusterId != null;
  }

  /** The bus partition key of this work (BusEvent.partitionKey). */
  public String partitionKey() {
    return isCluster() ? clusterId.toString() : infraEnvId.toString();
  }

  @Override
  public String toString() {
    return isCluster() ? "cluster " + clusterId : "infra-env " + infraEnvId + " (unbound hosts)";
  }
}
