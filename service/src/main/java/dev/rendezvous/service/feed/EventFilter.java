package dev.rendezvous.service.feed;

import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * What a stream reader asked for, with {@code GET /v2/events}' meaning: the tenant always; a cluster, narrowed to
 * some hosts and/or its cluster-level events; or hosts alone; or an infra-env; severities and categories.
 */
public record EventFilter(String tenant, UUID clusterId, Set<UUID> hostIds, boolean clusterLevel, UUID infraEnvId,
    Set<String> severities, Set<String> categories) {

  public EventFilter {
    hostIds = Set.copyOf(hostIds);
    severities = Set.copyOf(severities);
    categories = Set.copyOf(categories);
  }

  public boolean matches(FeedEvent e) {
    if (!tenant.equals(e.tenant()) || !severities.contains(e.severity()) || !categories.contains(e.category())) {
      return false;
    }
    if (clusterId != null) {
      if (!clusterId.equals(e.clusterId())) {
        return false;
      }
      if (hostIds.isEmpty() && !clusterLevel) {
        return true;
      }
      return e.hostId() != null && hostIds.contains(e.hostId()) || clusterLevel && e.hostId() == null;
    }
    if (!hostIds.isEmpty()) {
      return e.hostId() != null && hostIds.contains(e.hostId());
    }
    return infraEnvId == null || infraEnvId.equals(e.infraEnvId());
  }

  /** The same filter as SQL over the events table, its arguments appended to {@code args} from $ index 1. */
  String where(List<Object> args) {
    StringBuilder w = new StringBuilder("tenant = $" + add(args, tenant));
    if (clusterId != null) {
      w.append(" AND cluster_id = $").append(add(args, clusterId));
      if (!hostIds.isEmpty() && clusterLevel) {
        w.append(" AND (host_id = ANY($").append(add(args, hostIds.toArray(new UUID[0]))).append(") OR host_id IS NULL)");
      } else if (!hostIds.isEmpty()) {
        w.append(" AND host_id = ANY($").append(add(args, hostIds.toArray(new UUID[0]))).append(")");
      } else if (clusterLevel) {
        w.append(" AND host_id IS NULL");
      }
    } else if (!hostIds.isEmpty()) {
      w.append(" AND host_id = ANY($").append(add(args, hostIds.toArray(new UUID[0]))).append(")");
    } else if (infraEnvId != null) {
      w.append(" AND infra_env_id = $").append(add(args, infraEnvId));
    }
    w.append(" AND severity = ANY($").append(add(args, severities.toArray(new String[0]))).append(")");
    w.append(" AND category = ANY($").append(add(args, categories.toArray(new String[0]))).append(")");
    return w.toString();
  }

  private static int add(List<Object> args, Object v) {
    args.add(v);
    return args.size();
  }
}
