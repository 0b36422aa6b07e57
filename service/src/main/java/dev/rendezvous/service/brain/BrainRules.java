package dev.rendezvous.service.brain;

import dev.rendezvous.service.domain.DomainConfig;
import dev.rendezvous.service.domain.DomainEvent;
import dev.rendezvous.service.domain.EventSeverity;
import dev.rendezvous.service.domain.cluster.ClusterContext;
import dev.rendezvous.service.domain.cluster.ClusterEvent;
import dev.rendezvous.service.domain.cluster.ClusterStateMachine;
import dev.rendezvous.service.domain.cluster.ClusterStatus;
import dev.rendezvous.service.domain.cluster.ClusterTransition;
import dev.rendezvous.service.domain.cluster.InstallOrchestrator;
import dev.rendezvous.service.domain.cluster.InstallReports;
import dev.rendezvous.service.domain.cluster.MachineNetworks;
import dev.rendezvous.service.domain.host.HostLogs;
import dev.rendezvous.service.domain.cluster.MajorityGroups;
import dev.rendezvous.service.domain.cluster.RoleAssigner;
import dev.rendezvous.service.domain.host.HostEvent;
import dev.rendezvous.service.domain.host.HostRole;
import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.host.HostStage;
import dev.rendezvous.service.domain.host.HostStateMachine;
import dev.rendezvous.service.domain.host.HostTransition;
import dev.rendezvous.service.domain.host.Inventory;
import dev.rendezvous.service.domain.planning.InvalidStepOutputException;
import dev.rendezvous.service.domain.planning.NextStepPlanner;
import dev.rendezvous.service.domain.planning.StepIdGenerator;
import dev.rendezvous.service.domain.planning.StepType;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;

/**
 * What each kind of input does to a {@link Work}, in domain terms: apply the event to its host, store step
 * outputs, then settle (majority groups, role suggestions, host refreshes, cluster refresh, again while the
 * cluster moves), then plan the hosts' next steps and decide which plans to push ({@link PushRules}). No I/O.
 */
final class BrainRules {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(BrainRules.class);
  /** Rounds of host+cluster refresh per unit: enough for ready → preparing → installing in one go. */
  private static final int SETTLE_ROUNDS = 4;
  /** Clusters up to this size recompute their majority groups at every unit that moved their inputs. */
  static final int GROUPS_EVERY_UNIT_MAX_HOSTS = 100;
  /** Where majority groups are computed (upstream: before install only; day-2 clusters adding hosts too). */
  private static final java.util.Set<ClusterStatus> GROUPS_STATES = java.util.EnumSet.of(ClusterStatus.PENDING_FOR_INPUT,
      ClusterStatus.INSUFFICIENT, ClusterStatus.READY, ClusterStatus.ADDING_HOSTS);

  /**
   * Whether a host's new connectivity report can move what other hosts read without the unit seeing it: the majority
   * groups are the only cross-host reader of connectivity, and a cluster of up to {@link #GROUPS_EVERY_UNIT_MAX_HOSTS}
   * recomputes them in the unit (a change then shows in the cluster's own fields); a bigger one only in full passes.
   */
  static boolean connectivityReadAcrossHosts(ClusterStatus status, int hosts) {
    return GROUPS_STATES.contains(status) && hosts > GROUPS_EVERY_UNIT_MAX_HOSTS;
  }
  /** How far the host clock must move before it is stored again (its checks allow minutes of skew). */
  static final long CLOCK_GRANULARITY_SECONDS = 60;
  private final DomainConfig config;
  private final HostStateMachine hostMachine;
  private final ClusterStateMachine clusterMachine;
  private final RoleAssigner roles;
  private final PushRules pushes;
  private final InstallOrchestrator installer;
  private final StepOutputStore outputs;

  BrainRules(DomainConfig config, StepIdGenerator ids) {
    this.config = config;
    this.hostMachine = new HostStateMachine(config);
    this.clusterMachine = new ClusterStateMachine(config);
    this.roles = new RoleAssigner(config);
    this.pushes = new PushRules(new NextStepPlanner(config, ids));
    this.installer = new InstallOrchestrator(config);
    this.outputs = new StepOutputStore(config, hostMachine);
  }

  // ------------------------------------------------------------------------------------- registration

  /** A host registered. Rejected (cluster not accepting hosts, ...): an event, and no row. */
  void register(Work w, UUID hostId, UUID infraEnvId, UUID clusterId, String agentVersion, Instant at) {
    HostSnapshot h = w.host(hostId);
    boolean isNew = h == null;
    if (isNew) {
      h = HostSnapshot.builder(hostId, infraEnvId).clusterId(clusterId).registeredAt(w.now)
          .staticNetworking(Boolean.TRUE.equals(w.staticNetworking(infraEnvId))).discoveryAgentVersion(agentVersion)
          .build();
    }
    HostTransition t = hostMachine.apply(h, w.cluster(), new HostEvent.Register(agentVersion), w.now, w.seen);
    if (t.rejected()) {
      String name = h.nameForMessages();
      w.event(new DomainEvent("host_registration_failed", EventSeverity.ERROR, "Host " + name
          + ": Failed to register: " + t.rejection().message(), clusterId, hostId, infraEnvId, Map.of("host_name", name)));
      return;
    }
    if (isNew) {
      w.insert(h);
    }
    HostSnapshot before = isNew ? null : h;
    w.apply(hostId, t);
    contact(w, hostId, at);
    HostSnapshot after = w.host(hostId);
    // a new host has neither inventory nor report: it joins no group and moves nobody's (as a re-registration that
    // keeps both)
    if (!Inventory.sameAddresses(before == null ? null : before.inventory(), after.inventory())
        || !dev.rendezvous.service.domain.host.ConnectivityReport.sameReach(
            before == null ? null : before.connectivity(), after.connectivity())) {
      w.connectivityInputsChanged = true;
    }
    w.refresh(hostId);
  }

  // ---------------------------------------------------------------------------------------- step replies

  /** A step reply: route by step type and exit code (§6 reply routing); the host is refreshed with the unit. */
  void stepReply(Work w, UUID hostId, String stepType, int exitCode, String output, String error, Instant at) {
    stepReply(w, hostId, stepType, exitCode, output, error, at, null);
  }

  /** {@code parsed}: the output parsed already (off the lane), or null. */
  void stepReply(Work w, UUID hostId, String stepType, int exitCode, String output, String error, Instant at,
      Object parsed) {
    HostSnapshot h = w.host(hostId);
    if (h == null) {
      // a deleted host's late reply; a registration always comes before its replies (they share one topic)
      LOG.atWarn().addKeyValue("host_id", hostId).log("a " + stepType + " reply for a host that is not registered: dropped");
      return;
    }
    Optional<StepType> type = StepType.parse(stepType);
    if (exitCode == 256) {
      contact(w, hostId, at);
      w.apply(hostId, hostMachine.apply(w.host(hostId), w.cluster(), new HostEvent.MediaDisconnected(), w.now, w.seen));
      w.refresh(hostId);
      return;
    }
    HostSnapshot before = w.host(hostId);
    try {
      outputs.store(w, before, type.orElse(null), exitCode, output, error, parsed);
    } catch (InvalidStepOutputException e) {
      String name = before.nameForMessages();
      w.event(DomainEventFactory.host(before, "host_step_reply_invalid", EventSeverity.WARNING, "Host " + name
          + ": the " + stepType + " step reply was refused: " + e.getMessage()));
      return; // nothing else: the stored state stays as it was
    }
    contact(w, hostId, at);
    if (exitCode == 0 && w.host(hostId).mediaDisconnected()) {
      w.put(w.host(hostId).toBuilder().mediaDisconnected(false).build()); // media is back
    }
    w.refresh(hostId); // the others read the new aggregates at the key's next full refresh
  }

  /** The agent was heard from at {@code at}: it is checked in, and its clock is about then. */
  void contact(Work w, UUID hostId, Instant at) {
    HostSnapshot h = w.host(hostId);
    if (h == null || at == null) {
      return;
    }
    HostSnapshot.Builder b = h.toBuilder();
    if (h.checkedInAt() == null || at.isAfter(h.checkedInAt())) {
      b.checkedInAt(at);
    }
    if (at.getEpochSecond() - h.hostTimestamp() >= CLOCK_GRANULARITY_SECONDS) {
      b.hostTimestamp(at.getEpochSecond()); // upstream learns it at each poll, about once a minute
    }
    w.put(b.build());
  }

  // ------------------------------------------------------------------------------------------ progress

  /** Installer progress. Returns the rejection message when the domain refuses it (nothing changes then). */
  Optional<String> progress(Work w, UUID hostId, String stage, String info) {
    HostSnapshot h = w.host(hostId);
    if (h == null) {
      return Optional.of("unknown host " + hostId);
    }
    Optional<HostStage> s = HostStage.parse(stage);
    if (s.isEmpty()) {
      return Optional.of("unknown installation stage '" + stage + "'");
    }
    HostTransition t = hostMachine.apply(h, w.cluster(), new HostEvent.ProgressReported(s.get(), info), w.now, w.seen);
    if (t.rejected()) {
      return Optional.of(t.rejection().message());
    }
    w.apply(hostId, t);
    w.refresh(hostId);
    return Optional.empty();
  }

  /** What the domain would answer to installer progress now (nothing changes): the refusal, or empty. */
  Optional<HostTransition.Rejection> checkProgress(Work w, UUID hostId, String stage, String info) {
    HostSnapshot h = w.host(hostId);
    if (h == null) {
      return Optional.of(new HostTransition.Rejection(404, "host " + hostId + " not found"));
    }
    Optional<HostStage> s = HostStage.parse(stage);
    if (s.isEmpty()) {
      return Optional.of(new HostTransition.Rejection(400, "current_stage: '" + stage + "' is not a host stage"));
    }
    HostTransition t = hostMachine.apply(h, w.cluster(), new HostEvent.ProgressReported(s.get(), info), w.now, w.seen);
    return Optional.ofNullable(t.rejection());
  }

  // ------------------------------------------------------------------------------------ cluster actions

  /** install / cancel / reset; a refusal becomes a warning event (the REST call already answered 202). */
  void clusterAction(Work w, String action) {
    ClusterContext c = w.cluster();
    if (c == null) {
      return;
    }
    switch (action) {
      case "install" -> install(w);
      case "cancel" -> cancelOrReset(w, clusterMachine.apply(c, new ClusterEvent.CancelInstallation(
          "Installation was cancelled by user"), w.now), action);
      case "reset" -> cancelOrReset(w, clusterMachine.apply(c, new ClusterEvent.ResetInstallation(null), w.now), action);
      default -> w.event(DomainEventFactory.cluster(c, "cluster_action_rejected", EventSeverity.WARNING,
          "Unknown cluster action '" + action + "' ignored"));
    }
  }

  private void install(Work w) {
    settle(w, w.hostIds()); // upstream refreshes hosts and cluster before deciding
    InstallOrchestrator.InstallDecision d = installer.install(w.cluster(), w.now);
    if (d.rejected()) {
      w.event(DomainEventFactory.cluster(w.cluster(), "cluster_action_rejected", EventSeverity.WARNING,
          "Install refused: " + d.rejection().message()));
      return;
    }
    d.roles().forEach((id, role) -> w.put(w.host(id).toBuilder().role(role).build()));
    if (d.bootstrapHost() != null) {
      w.put(w.host(d.bootstrapHost()).toBuilder().bootstrap(true).build());
    }
    d.events().forEach(w::event);
    w.apply(d.cluster(), false);
    // The install-config and Ignition files are generated after this unit commits (Brain's preparation hook);
    // their result comes back as a ClusterPreparationFinished event.
    settle(w, w.hostIds());
  }

  // ------------------------------------------------------------------------------------ install reports

  /** The preparation's result (generated files stored, or the reason they could not be). */
  void preparationFinished(Work w, Instant preparationStartedAt, boolean succeeded, String reason, String generator) {
    if (w.cluster() != null) {
      w.apply(InstallReports.preparationFinished(w.cluster(), preparationStartedAt, succeeded, reason, generator), true);
      settle(w, w.hostIds());
    }
  }

  /**
   * A report of the controller about the cluster (finalizing stage, operator, kubeconfig, logs, completion),
   * already turned into a transition by the domain; a refusal is returned (the REST API checked it before
   * publishing, so one here means the cluster moved on meanwhile).
   */
  Optional<String> clusterReport(Work w, java.util.function.Function<ClusterContext, ClusterTransition> report) {
    if (w.cluster() == null) {
      return Optional.of("cluster is gone");
    }
    ClusterTransition t = report.apply(w.cluster());
    if (t.rejected()) {
      return Optional.of(t.rejection().message());
    }
    w.apply(t, true);
    settle(w, w.hostIds());
    return Optional.empty();
  }

  /** Host logs-progress or an uploaded host bundle. */
  Optional<String> hostLogs(Work w, UUID hostId, String state) {
    HostSnapshot h = w.host(hostId);
    if (h == null) {
      return Optional.of("unknown host " + hostId);
    }
    HostLogs.Outcome o = HostLogs.report(h, state, w.now);
    if (o.error() != null) {
      return Optional.of(o.error());
    }
    w.put(o.host());
    o.events().forEach(w::event);
    return Optional.empty();
  }

  private void cancelOrReset(Work w, ClusterTransition t, String action) {
    if (t.rejected()) {
      w.event(DomainEventFactory.cluster(w.cluster(), "cluster_action_rejected", EventSeverity.WARNING,
          "Cluster " + action + " refused: " + t.rejection().message()));
      return;
    }
    w.apply(t, true);
    t.hostEvents().forEach((id, e) -> {
      HostSnapshot h = w.host(id);
      if (h != null) {
        w.apply(id, hostMachine.apply(h, w.cluster(), e, w.now, w.seen));
      }
    });
    settle(w, w.hostIds());
  }

  // ---------------------------------------------------------------------------------------- user updates

  /** A REST host update (any field may be null): each through the machine, refused updates throw. */
  void updateHost(Work w, UUID hostId, HostRole role, String hostname, String diskId, String diskField, String spec) {
    HostSnapshot h = w.host(hostId);
    if (h == null) {
      throw new HostUpdateRejected(404, null, "host " + hostId + " not found");
    }
    if (!HostStateMachine.EDITABLE.contains(h.status())) {
      throw new HostUpdateRejected(400, null, "host " + hostId + " is " + h.status()
          + "; role, host name, disks and labels can be set only before installation");
    }
    if (role != null) {
      user(w, hostId, new HostEvent.RoleUpdated(role), "host_role");
    }
    if (hostname != null) {
      user(w, hostId, new HostEvent.HostnameUpdated(hostname), "host_name");
    }
    if (diskId != null) {
      user(w, hostId, new HostEvent.InstallationDiskSelected(diskId), diskField);
    }
    if (spec != null) {
      HostRecord r = w.record(hostId);
      HostRecord withSpec = new HostRecord(r.snapshot(), r.rowVersion(), spec, r.otherResults());
      // disks_skip_formatting is read into the snapshot by the mapper: derive it the same way
      HostSnapshot derived = SnapshotMapper.host(SnapshotMapper.stored(withSpec)).snapshot();
      w.putRecord(withSpec.withSnapshot(r.snapshot().toBuilder().skipFormattingDiskIds(derived.skipFormattingDiskIds())
          .installerArgs(derived.installerArgs()).build()));
    }
    w.connectivityInputsChanged = hostname != null;
    settle(w, w.hostIds());
  }

  /** A user's host action (bind, unbind, reset, day-2 install) through the state machine; refusals throw. */
  void hostAction(Work w, UUID hostId, HostEvent e) {
    if (w.host(hostId) == null) {
      throw new HostUpdateRejected(404, null, "host " + hostId + " not found");
    }
    user(w, hostId, e, null);
    w.refresh(hostId);
    settle(w, w.hostIds());
  }

  /**
   * Forgets a persisted check result so it runs again (upstream's reset-validation): the installation disk's speed
   * test or the failed image pulls. Any other id is a 400; an unbound host has nothing to reset (409).
   */
  void resetValidation(Work w, UUID hostId, String validationId) {
    HostSnapshot h = w.host(hostId);
    if (h == null) {
      throw new HostUpdateRejected(404, null, "host " + hostId + " not found");
    }
    if (h.clusterId() == null) {
      throw new HostUpdateRejected(409, null, "host " + hostId + " is not bound to any cluster, nothing to reset");
    }
    HostSnapshot next;
    if ("sufficient-installation-disk-speed".equals(validationId)) {
      Map<String, HostSnapshot.DiskSpeed> speeds = new LinkedHashMap<>(h.diskSpeeds());
      if (h.installationDiskPath() != null) {
        speeds.remove(h.installationDiskPath());
      } else {
        speeds.clear();
      }
      next = h.toBuilder().diskSpeeds(speeds).build();
    } else if ("container-images-available".equals(validationId)) {
      next = h.toBuilder().imagesStatus(h.imagesStatus().stream().filter(i -> !i.invalid()).toList()).build();
    } else {
      throw new HostUpdateRejected(400, "validation_id", "Validation \"" + validationId
          + "\" cannot be reset or does not exist");
    }
    w.put(next);
    w.refresh(hostId);
    settle(w, w.hostIds());
  }

  private void user(Work w, UUID hostId, HostEvent e, String field) {
    HostTransition t = hostMachine.apply(w.host(hostId), w.cluster(), e, w.now, w.seen);
    if (t.rejected()) {
      throw new HostUpdateRejected(t.rejection().httpStatus(), field, t.rejection().message());
    }
    w.apply(hostId, t);
  }

  // ---------------------------------------------------------------------------------------------- settle

  /**
   * Brings the key to rest: recompute the majority groups if their inputs changed, refresh suggested roles,
   * refresh the given hosts, refresh the cluster; when the cluster's status moved, refresh every host and the
   * cluster again (ready → preparing → installing can then happen within one unit).
   */
  void settle(Work w, List<UUID> hosts) {
    if (hosts.size() == w.hostCount()) {
      w.settledAll();
    }
    if (w.cluster() == null) {
      for (UUID id : hosts) {
        refreshHost(w, id);
      }
      return;
    }
    List<UUID> scope = hosts;
    MachineNetworks.derive(w.cluster()).ifPresent(w::putCluster);
    // the groups read every host's view of every peer (O(hosts²)): a big cluster recomputes them in its full passes
    // (debounced, right after a burst), a small one at every unit whose inputs moved; as upstream, only before install
    boolean groupsDue = GROUPS_STATES.contains(w.cluster().status())
        && (hosts.size() == w.hostCount() || (w.connectivityInputsChanged && w.hostCount() <= GROUPS_EVERY_UNIT_MAX_HOSTS));
    if (groupsDue) {
      MajorityGroups groups = MajorityGroups.compute(w.snapshots());
      if (!groups.equals(w.cluster().connectivityMajorityGroups())) {
        w.putCluster(w.cluster().toBuilder().connectivityMajorityGroups(groups).build());
      }
      w.connectivityInputsChanged = false;
    }
    for (int round = 0; round < SETTLE_ROUNDS; round++) {
      if (scope.size() == w.hostCount() || w.sharedInputsChanged()) {
        RoleAssigner.Suggestions s = roles.suggest(w.cluster());
        s.suggestedRoles().forEach((id, role) -> w.put(w.host(id).toBuilder().suggestedRole(role).build()));
        s.events().forEach(w::event);
      }
      for (UUID id : scope) {
        refreshHost(w, id);
      }
      if (scope.size() < w.hostCount() && !w.sharedInputsChanged()) {
        break; // nothing the cluster's rules read has moved: the monitor's passes cover the clock
      }
      ClusterTransition ct = clusterMachine.apply(w.cluster(), new ClusterEvent.Refresh(), w.now);
      w.apply(ct, true);
      if (!ct.statusChanged()) {
        break;
      }
      scope = w.hostIds();
      w.settledAll();
    }
    w.progress(SnapshotMapper.progressJson(w.cluster()));
  }

  /** Host refreshes run so far (each one all of a host's validations and its state machine): the brain's work. */
  long hostEvaluations() {
    return hostEvaluations.sum();
  }

  private final java.util.concurrent.atomic.LongAdder hostEvaluations = new java.util.concurrent.atomic.LongAdder();

  private void refreshHost(Work w, UUID id) {
    HostSnapshot h = w.host(id);
    if (h != null && h.status() != null && (h.unbound() || w.cluster() != null)) {
      hostEvaluations.increment();
      w.apply(id, hostMachine.apply(h, w.cluster(), new HostEvent.Refresh(), w.now, w.seen));
    }
  }

  // ------------------------------------------------------------------------------------------------ plans

  /** See {@link PushRules#plan(Work, Function, double)}. */
  void plan(Work w, Function<HostSnapshot, PushMark> marks) {
    pushes.plan(w, marks, 1.0);
  }

  /** See {@link PushRules#plan(Work, Function, double)}. */
  void plan(Work w, Function<HostSnapshot, PushMark> marks, double pace) {
    pushes.plan(w, marks, pace);
  }

  /** Event shapes the adapter records itself (the domain's own events come with its transitions). */
  static final class DomainEventFactory {
    private DomainEventFactory() {}

    static DomainEvent host(HostSnapshot h, String name, EventSeverity sev, String message) {
      return new DomainEvent(name, sev, message, h.clusterId(), h.id(), h.infraEnvId(),
          Map.of("host_name", h.nameForMessages()));
    }

    static DomainEvent cluster(ClusterContext c, String name, EventSeverity sev, String message) {
      return new DomainEvent(name, sev, message, c.id(), null, null, Map.of());
    }
  }
}
