package dev.rendezvous.service.brain;

import static dev.rendezvous.service.brain.Brain.micros;
import static dev.rendezvous.service.brain.Brain.uuid;

import dev.rendezvous.bus.BusEvent;
import dev.rendezvous.bus.event.ClusterActionRequested;
import dev.rendezvous.bus.event.ClusterPreparationFinished;
import dev.rendezvous.bus.event.FinalizingStageReported;
import dev.rendezvous.bus.event.HostProgressReported;
import dev.rendezvous.bus.event.HostRegistered;
import dev.rendezvous.bus.event.InstallationCompletionReported;
import dev.rendezvous.bus.event.KubeconfigStored;
import dev.rendezvous.bus.event.LogsReported;
import dev.rendezvous.bus.event.OperatorStatusReported;
import dev.rendezvous.bus.event.StepReplyReceived;
import dev.rendezvous.service.brain.Brain.Apply;
import dev.rendezvous.service.domain.cluster.ClusterContext;
import dev.rendezvous.service.domain.cluster.ClusterStatus;
import dev.rendezvous.service.domain.cluster.ClusterTransition;
import dev.rendezvous.service.domain.cluster.InstallReports;
import io.vertx.core.Future;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which key a bus event's work runs under (its cluster, else its host's, else its infra-env's unbound hosts) and
 * what it does there, as {@link BrainRules} calls; the brain groups the targets of a batch into units per key.
 */
final class EventRouting {
  private static final Logger LOG = LoggerFactory.getLogger(Brain.class);

  private final BrainStore store;
  private final BrainRules rules;
  /** Shared with the brain, which learns host keys from its loads. */
  private final Map<HostKey, WorkKey> hostKeys;

  EventRouting(BrainStore store, BrainRules rules, Map<HostKey, WorkKey> hostKeys) {
    this.store = store;
    this.rules = rules;
    this.hostKeys = hostKeys;
  }

  /** The key an event's work runs under: its cluster if the envelope names one, else the host's, else the infra-env's. */
  Future<Optional<WorkKey>> keyFor(BusEvent e) {
    UUID cluster = uuid(e.clusterId());
    if (cluster != null) {
      return Future.succeededFuture(Optional.of(WorkKey.cluster(cluster)));
    }
    UUID host = uuid(e.hostId());
    UUID infraEnv = uuid(e.infraEnvId());
    if (infraEnv == null) {
      return Future.succeededFuture(Optional.empty());
    }
    if (host != null) {
      WorkKey known = hostKeys.get(new HostKey(infraEnv, host));
      if (known != null) {
        return Future.succeededFuture(Optional.of(known));
      }
      return store.keyOfHost(host, infraEnv).compose(k -> k.isPresent() ? Future.succeededFuture(k) : keyOfInfraEnv(infraEnv));
    }
    return keyOfInfraEnv(infraEnv);
  }

  Future<Optional<WorkKey>> keyOfInfraEnv(UUID infraEnv) {
    return store.infraEnv(infraEnv).map(ie -> ie.map(i -> i.clusterId() != null ? WorkKey.cluster(i.clusterId())
        : WorkKey.unbound(i.id())));
  }

  Future<Optional<WorkKey>> keyOfHost(UUID hostId, UUID infraEnvId) {
    WorkKey known = hostKeys.get(new HostKey(infraEnvId, hostId));
    return known != null ? Future.succeededFuture(Optional.of(known)) : store.keyOfHost(hostId, infraEnvId);
  }

  /** Where an event's work runs and what it does there; empty for an event with nothing to act on. */
  record Target(WorkKey key, Apply apply) {}

  /** {@code parsed}: the parse of the event's output started off the lane (null: none). */
  Future<Optional<Target>> target(BusEvent e, Map<UUID, Future<Optional<BrainStore.InfraEnvInfo>>> infraEnvs,
      Future<Object> parsed) {
    if (e.payload() instanceof HostRegistered reg) {
      UUID hostId = uuid(reg.hostId());
      UUID infraEnvId = uuid(reg.infraEnvId());
      if (hostId == null || infraEnvId == null) {
        LOG.atWarn().addKeyValue("event_id", e.eventId()).log("registration with malformed ids skipped");
        return Future.succeededFuture(Optional.empty());
      }
      Instant at = micros(e.occurredAt());
      return infraEnvs.computeIfAbsent(infraEnvId, store::infraEnv).map(ie -> {
        if (ie.isEmpty()) {
          LOG.atWarn().addKeyValue("infra_env_id", infraEnvId).addKeyValue("host_id", hostId)
              .log("registration for an unknown infra-env skipped");
        }
        return ie;
      }).compose(found -> {
        if (found.isEmpty()) {
          return Future.succeededFuture(Optional.<Target>empty());
        }
        BrainStore.InfraEnvInfo info = found.get();
        // a host bound late (actions/bind) to a cluster registers again under that cluster, as upstream's does
        Future<Optional<WorkKey>> bound = info.clusterId() != null ? Future.succeededFuture(Optional.empty())
            : keyOfHost(hostId, infraEnvId).map(k -> k.filter(WorkKey::isCluster));
        return bound.map(b -> {
          WorkKey key = b.orElse(info.clusterId() != null ? WorkKey.cluster(info.clusterId()) : WorkKey.unbound(infraEnvId));
          UUID clusterId = key.isCluster() ? key.clusterId() : null;
          return Optional.of(new Target(key, new Apply(e.eventId(), e.hostId(), w -> {
            w.tenant(info.tenant());
            w.staticNetworking(infraEnvId, info.staticNetworking());
            rules.register(w, hostId, infraEnvId, clusterId, reg.discoveryAgentVersion(), at);
          })));
        });
      });
    }
    Consumer<Work> body = body(e, parsed);
    if (body == null) {
      return Future.succeededFuture(Optional.empty());
    }
    return keyFor(e).map(k -> k.map(key -> new Target(key, new Apply(e.eventId(), e.hostId(), body, parsed))));
  }

  /** What an event (but a registration or presence) does to its key's work; null when nothing. */
  private Consumer<Work> body(BusEvent e, Future<Object> parsed) {
    UUID host = uuid(e.hostId());
    Instant at = micros(e.occurredAt());
    if (e.payload() instanceof StepReplyReceived r) {
      return host == null ? null : w -> rules.stepReply(w, host, r.stepType(), r.exitCode(), r.output(), r.error(), at,
          OutputPreParsing.result(parsed));
    }
    if (e.payload() instanceof HostProgressReported p) {
      // INFO: a report accepted at the edge and refused once handled is the sender's business (a retry of an earlier
      // stage after a later one landed), not the service's; at 10,000 sites, tens of thousands of WARN lines
      return host == null ? null : w -> rules.progress(w, host, p.currentStage(), p.progressInfo()).ifPresent(why ->
          LOG.atInfo().addKeyValue("host_id", host).addKeyValue("stage", p.currentStage()).log("progress refused: " + why));
    }
    if (e.payload() instanceof LogsReported l && "host".equals(l.logsType()) && host != null) {
      return w -> rules.hostLogs(w, host, l.logsState()).ifPresent(why -> LOG.atWarn().addKeyValue("host_id", host)
          .log("host logs report refused: " + why));
    }
    if (uuid(e.clusterId()) == null) {
      return null; // every other event is about a cluster
    }
    if (e.payload() instanceof ClusterActionRequested a) {
      return w -> rules.clusterAction(w, a.action());
    }
    if (e.payload() instanceof ClusterPreparationFinished p) {
      Instant started;
      try {
        started = Instant.parse(p.installStartedAt());
      } catch (RuntimeException bad) {
        LOG.atWarn().addKeyValue("event_id", e.eventId()).log("preparation result with a malformed install_started_at skipped");
        return null;
      }
      return w -> rules.preparationFinished(w, started, p.succeeded(), p.reason(), p.generator());
    }
    java.util.function.BiFunction<ClusterContext, Instant, ClusterTransition> report = clusterReport(e);
    if (report == null) {
      return null;
    }
    return w -> rules.clusterReport(w, c -> report.apply(c, w.now)).ifPresent(why -> {
      // a report that lands after the cluster was installed (the controller's last finalizing stage behind the
      // service's own conclusion, seen in a 5-site swarm) is late news, not trouble: INFO, as refused host progress
      boolean late = w.cluster() != null && w.cluster().status() == ClusterStatus.INSTALLED;
      (late ? LOG.atInfo() : LOG.atWarn()).addKeyValue("cluster_id", e.clusterId()).addKeyValue("type", e.type())
          .log("cluster report refused: " + why);
    });
  }

  /** The controller's reports about its cluster, as domain transitions (null: not such a report). */
  static java.util.function.BiFunction<ClusterContext, Instant, ClusterTransition> clusterReport(BusEvent e) {
    if (e.payload() instanceof FinalizingStageReported p) {
      return (c, now) -> InstallReports.finalizingStage(c, p.finalizingStage(), now);
    }
    if (e.payload() instanceof OperatorStatusReported p) {
      return (c, now) -> InstallReports.operatorStatus(c, p.name(), p.status(), p.statusInfo(), p.version(), now);
    }
    if (e.payload() instanceof KubeconfigStored) {
      return (c, now) -> InstallReports.kubeconfigStored(c);
    }
    if (e.payload() instanceof InstallationCompletionReported p) {
      return (c, now) -> InstallReports.completionReported(c, p.isSuccess(), p.errorInfo(), p.operatorsReport());
    }
    if (e.payload() instanceof LogsReported l) {
      return (c, now) -> InstallReports.controllerLogs(c, l.logsState(), now);
    }
    return null;
  }
}
