package dev.rendezvous.service.brain;

import dev.rendezvous.service.domain.DomainEvent;
import dev.rendezvous.service.domain.EventSeverity;
import dev.rendezvous.service.domain.cluster.ClusterContext;
import dev.rendezvous.service.domain.cluster.ClusterStatus;
import dev.rendezvous.service.domain.cluster.ClusterTransition;
import dev.rendezvous.service.domain.host.HostEvent;
import io.vertx.core.Future;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * The REST API's user actions that change domain state and are not cluster install/cancel/reset (those go over
 * the bus): ignored validations, allow-add-hosts, and host bind/unbind/reset/install. Each runs as a unit of work
 * in the key's lane, like a host PATCH, so the state machine decides and the answer (or refusal) is immediate.
 * Refusals fail with {@link HostUpdateRejected} carrying upstream's status.
 */
public final class UserActions {
  /** Upstream's status_info of a cluster that accepts day-2 hosts. */
  public static final String INFO_ADDING_HOSTS = "cluster is adding hosts to existing OCP cluster";

  private final Brain brain;

  public UserActions(Brain brain) {
    this.brain = brain;
  }

  /** Stores the ignored validations in the cluster's domain state and re-evaluates hosts and cluster at once. */
  public Future<Void> ignoreValidations(UUID clusterId, Set<String> host, Set<String> cluster) {
    WorkKey key = WorkKey.cluster(clusterId);
    return brain.run(key, null, w -> {
      ClusterContext c = requireCluster(w, clusterId);
      w.putCluster(c.toBuilder().ignoredHostValidations(host).ignoredClusterValidations(cluster).build());
      w.hostIds().forEach(w::refresh);
      brain.rules().settle(w, w.hostIds());
    }).mapEmpty();
  }

  /** installed → adding-hosts (upstream's TransformClusterToDay2); 409 from any other status. */
  public Future<Void> allowAddHosts(UUID clusterId) {
    return brain.run(WorkKey.cluster(clusterId), null, w -> {
      ClusterContext c = requireCluster(w, clusterId);
      if (c.status() != ClusterStatus.INSTALLED) {
        throw new HostUpdateRejected(409, null, "cannot transform cluster " + clusterId
            + " to day2. Expected cluster status: installed, but cluster status is: " + c.status());
      }
      w.apply(new ClusterTransition(c.status(), ClusterStatus.ADDING_HOSTS, INFO_ADDING_HOSTS, "Transform to day2",
          List.of(), List.of(DomainEvent.cluster("cluster_status_updated", EventSeverity.INFO,
              "Updated status of the cluster to " + ClusterStatus.ADDING_HOSTS.wire(), clusterId,
              Map.of("cluster_status", ClusterStatus.ADDING_HOSTS.wire(), "status_info", INFO_ADDING_HOSTS))),
          null, Map.of(), null), true);
      w.putCluster(w.cluster().toBuilder().day2(true).build());
    }).mapEmpty();
  }

  /**
   * A host action through the host state machine. Bind and unbind (reclaim too) move the host to another key
   * (cluster ↔ its infra-env's unbound pool): both keys are read again by their next unit.
   */
  public Future<Void> hostAction(UUID infraEnvId, UUID hostId, HostEvent event) {
    return brain.keyOfHost(hostId, infraEnvId).compose(k -> {
      if (k.isEmpty()) {
        return Future.failedFuture(new HostUpdateRejected(404, null, "host " + hostId + " not found"));
      }
      WorkKey from = k.get();
      return brain.run(from, null, w -> brain.rules().hostAction(w, hostId, event)).compose(r -> {
        boolean unbinds = event instanceof HostEvent.Unbind || event instanceof HostEvent.Reclaim;
        if (!(event instanceof HostEvent.Bind) && !unbinds) {
          return Future.succeededFuture();
        }
        brain.hostMoved(infraEnvId, hostId);
        WorkKey to = event instanceof HostEvent.Bind b ? WorkKey.cluster(b.clusterId()) : WorkKey.unbound(infraEnvId);
        return Future.all(brain.refresh(from), brain.refresh(to)).mapEmpty();
      });
    });
  }

  /** Clears a persisted validation result of a host (disk speed, image availability) so it is checked again. */
  public Future<Void> resetValidation(UUID infraEnvId, UUID hostId, String validationId) {
    return brain.keyOfHost(hostId, infraEnvId).compose(k -> k.isEmpty()
        ? Future.failedFuture(new HostUpdateRejected(404, null, "host " + hostId + " not found"))
        : brain.run(k.get(), null, w -> brain.rules().resetValidation(w, hostId, validationId)).mapEmpty());
  }

  /** Stores a host's extra coreos-installer arguments (upstream's installer_args; checked by the caller). */
  public Future<Void> installerArgs(UUID infraEnvId, UUID hostId, List<String> args) {
    return brain.keyOfHost(hostId, infraEnvId).compose(k -> k.isEmpty()
        ? Future.failedFuture(new HostUpdateRejected(404, null, "host " + hostId + " not found"))
        : brain.run(k.get(), null, w -> {
          HostRecord r = w.record(hostId);
          if (r == null) {
            throw new HostUpdateRejected(404, null, "host " + hostId + " not found");
          }
          io.vertx.core.json.JsonObject merged = new io.vertx.core.json.JsonObject(r.spec())
              .put("installer_args", new io.vertx.core.json.JsonArray(List.copyOf(args)));
          String spec = StoredJson.canonical(StoredJson.object(merged.encode()));
          w.putRecord(new HostRecord(r.snapshot().toBuilder().installerArgs(args).build(), r.rowVersion(), spec,
              r.otherResults()));
          String name = r.snapshot().nameForMessages();
          w.event(new DomainEvent("host_installer_args_applied", EventSeverity.INFO, "Host " + name
              + ": custom installer arguments were applied", r.snapshot().clusterId(), hostId, infraEnvId,
              Map.of("host_name", name)));
        }).mapEmpty());
  }

  private static ClusterContext requireCluster(Work w, UUID clusterId) {
    ClusterContext c = w.cluster();
    if (c == null) {
      throw new HostUpdateRejected(404, null, "cluster " + clusterId + " not found");
    }
    return c;
  }
}
