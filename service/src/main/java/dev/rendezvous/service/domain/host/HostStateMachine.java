package dev.rendezvous.service.domain.host;

import static dev.rendezvous.service.domain.host.HostStatus.*;

import dev.rendezvous.service.domain.DomainConfig;
import dev.rendezvous.service.domain.DomainEvent;
import dev.rendezvous.service.domain.EventSeverity;
import dev.rendezvous.service.domain.Formats;
import dev.rendezvous.service.domain.cluster.ClusterContext;
import dev.rendezvous.service.domain.cluster.ClusterStatus;
import dev.rendezvous.service.domain.host.HostRuleTables.Post;
import dev.rendezvous.service.domain.host.HostRuleTables.Rule;
import dev.rendezvous.service.domain.host.HostTransition.Rejection;
import dev.rendezvous.service.domain.validation.HostValidator;
import dev.rendezvous.service.domain.validation.ValidationChanges;
import dev.rendezvous.service.domain.validation.ValidationsInfo;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The host state machine of upstream statemachine.go/pool_host_statemachine.go as a pure function. For
 * each event kind the rules are tried in upstream registration order; the first whose source state
 * matches and whose condition holds wins. No rule: the event is rejected (409) and nothing changes.
 */
public final class HostStateMachine {

  static final String INFO_DISCOVERING = "Waiting for host to send hardware details";
  static final String INFO_DISCONNECTED = "Host has stopped communicating with the installation service";
  static final String INFO_INSUFFICIENT_HW = "Host does not meet the minimum hardware requirements: $FAILING_VALIDATIONS";
  static final String INFO_PENDING_INPUT = "Waiting for user input: $FAILING_VALIDATIONS";
  static final String INFO_NOT_READY = "Host cannot be installed due to following failing validation(s): $FAILING_VALIDATIONS";
  static final String INFO_PREPARATION_TIMEOUT = "The host has encountered a preparation timeout, the following conditions failed: ";
  static final String INFO_PREPARATION_TIMEOUT_DISK = "the installation disk speed check did not complete within the timeout.";
  static final String INFO_PREPARATION_TIMEOUT_IMAGES = "container availability was not determined within the timeout.";
  static final String INFO_KNOWN = "Host is ready to be installed";
  static final String INFO_INSTALLING = "Installation is in progress";
  static final String INFO_RESETTING_PENDING_USER_ACTION = "Host requires booting into the discovery image to complete resetting the installation";
  static final String INFO_PREPARATION_SUCCESSFUL = "Host finished successfully to prepare for installation";
  static final String INFO_PREPARATION_FAILURE = "Host failed to prepare for installation due to following failing validation(s): $FAILING_VALIDATIONS";
  static final String INFO_ABORTING_CLUSTER_ERROR = "Host is part of a cluster that failed to install";
  static final String INFO_INSTALLATION_TIMED_OUT = "Host failed to install due to timeout while starting installation";
  static final String INFO_CONNECTION_TIMED_OUT_INSTALLING = "Host failed to install due to timeout while connecting to host during the installation phase.";
  static final String INFO_CONNECTION_TIMED_OUT_PREPARING = "Host failed to install due to timeout while connecting to host during the preparation phase.";
  static final String INFO_STAGE_TIMED_OUT = "Host failed to install because its installation stage $STAGE took longer than expected $MAX_TIME";
  static final String INFO_WRITING_IMAGE_TIMED_OUT = "Host failed to install because its installation stage $STAGE did not sufficiently progress in the last $MAX_TIME.";
  static final String INFO_READY_TO_BE_BOUND = "Host is ready to be bound to a cluster";
  static final String INFO_BINDING = "Host is waiting to be bound to the cluster";
  static final String INFO_REBOOT_TIMEOUT = "Host timed out when pulling the configuration files. Verify in the host console that the host boots from the OpenShift installation disk $INSTALLATION_DISK and has network access to the cluster API. The installation will resume after the host successfully boots and can access the cluster API";
  static final String INFO_UNBINDING = "Host is waiting to be unbound from the cluster";
  static final String INFO_REBOOTING_DAY2 = "Host has rebooted and no further updates will be posted. Please check console for progress and to possibly approve pending CSRs";
  static final String INFO_REBOOTING_FOR_RECLAIM = "Host is rebooting into the discovery image";
  static final String INFO_RESTARTED_DURING_INSTALLATION = "The host unexpectedly restarted during the installation";
  // Not in the upstream sources read: own wording, kept in upstream style.
  static final String INFO_SOFT_DISCONNECTED = "Host is not responding to the installation service; the installation continues and the host is expected to reconnect";
  static final String INFO_SOFT_STAGE_TIMED_OUT = "Host installation stage $STAGE is taking longer than expected $MAX_TIME; the installation continues";
  static final String INFO_PENDING_USER_ACTION_TIMED_OUT = "Host did not boot from the installation disk within $MAX_TIME and the cluster can be installed without it";

  static final Set<HostStatus> UNBOUND_POOL = EnumSet.of(KNOWN_UNBOUND, DISCONNECTED_UNBOUND, INSUFFICIENT_UNBOUND,
      DISCOVERING_UNBOUND, DISABLED_UNBOUND);
  /** Statuses where role, hostname and disk may still be edited (upstream hostStatusesBeforeInstallationOrUnbound). */
  public static final Set<HostStatus> EDITABLE = EnumSet.of(DISCOVERING, KNOWN, DISCONNECTED, INSUFFICIENT,
      PENDING_FOR_INPUT, DISCONNECTED_UNBOUND, INSUFFICIENT_UNBOUND, DISCOVERING_UNBOUND, KNOWN_UNBOUND, BINDING);
  static final Set<HostStage> WRONG_BOOT_STAGES = EnumSet.of(HostStage.REBOOTING, HostStage.WAITING_FOR_CONTROL_PLANE,
      HostStage.WAITING_FOR_CONTROLLER, HostStage.WAITING_FOR_BOOTKUBE);

  private final DomainConfig config;
  private final HostValidator validator;
  /** The refresh table, built once: it reads only the configuration (it was built anew, ~40 rules, per refresh). */
  private final List<HostRuleTables.Rule> refreshRules;

  public HostStateMachine(DomainConfig config) {
    this.config = config;
    this.validator = new HostValidator(config);
    this.refreshRules = List.copyOf(HostRuleTables.refreshRules(config));
  }

  // --- entry point -------------------------------------------------------------------------------

  /**
   * Applies one event to one host. {@code cluster} is the host's cluster (with all its hosts) or null for
   * an unbound host; {@code now} is the only clock the machine uses.
   */
  public HostTransition apply(HostSnapshot host, ClusterContext cluster, HostEvent event, Instant now) {
    return apply(host, cluster, event, now, now);
  }

  /**
   * Like {@link #apply(HostSnapshot, ClusterContext, HostEvent, Instant)}, for a caller that may not have seen what
   * the host sent lately: {@code seen} is the instant through which everything the host sent (check-ins, progress)
   * is in {@code host}. The clock's judgments of the host's silence (disconnection, stage and installation timeouts)
   * are made at {@code seen}, not {@code now}: a host whose last check-in still waits in the caller's backlog has
   * not gone quiet. What is written (status and stage times) still takes {@code now}.
   */
  public HostTransition apply(HostSnapshot host, ClusterContext cluster, HostEvent event, Instant now, Instant seen) {
    Instant judged = seen.isBefore(now) ? seen : now;
    return dispatch(host, cluster, event, new Moment(now, judged));
  }

  /** The clock as the machine uses it: {@code now} for what it writes, {@code judged} for silence it measures. */
  record Moment(Instant now, Instant judged) {}

  private HostTransition dispatch(HostSnapshot host, ClusterContext cluster, HostEvent event, Moment m) {
    if (!host.unbound() && cluster == null && !(event instanceof HostEvent.Register)) {
      throw new IllegalArgumentException("host " + host.id() + " is bound to cluster " + host.clusterId() + " but no cluster was given");
    }
    if (event instanceof HostEvent.Register r) {
      return register(host, cluster, r, m);
    }
    if (event instanceof HostEvent.Refresh) {
      return refresh(host, cluster, m, List.of());
    }
    if (event instanceof HostEvent.ProgressReported p) {
      return progress(host, cluster, p, m);
    }
    if (event instanceof HostEvent.RoleUpdated u) {
      return userUpdate(host, cluster, m, new HostEffect.SetRole(u.role(), u.role() == HostRole.WORKER),
          // the user's choice is also the suggestion (upstream's UpdateRole); auto-assign asks for a new one
          host.toBuilder().role(u.role()).suggestedRole(u.role())
              .bootstrap(u.role() == HostRole.WORKER ? false : host.bootstrap()).build(),
          roleError(host, u.role()));
    }
    if (event instanceof HostEvent.InstallationDiskSelected d) {
      return diskUpdate(host, cluster, d, m);
    }
    if (event instanceof HostEvent.HostnameUpdated n) {
      return userUpdate(host, cluster, m, new HostEffect.SetRequestedHostname(n.hostname()),
          host.toBuilder().requestedHostname(n.hostname()).build(), hostnameError(host, n.hostname()));
    }
    return run(host, cluster, event, m, HostRuleTables.userRules(event), null, List.of());
  }

  private HostTransition register(HostSnapshot host, ClusterContext cluster, HostEvent.Register r, Moment m) {
    if (host.status() == null && !host.unbound()) {
      Set<ClusterStatus> accepting = EnumSet.of(ClusterStatus.INSUFFICIENT, ClusterStatus.READY,
          ClusterStatus.PENDING_FOR_INPUT, ClusterStatus.ADDING_HOSTS);
      if (cluster == null || !accepting.contains(cluster.status())) {
        return rejected(host, new Rejection(409, String.format(
            "Cluster %s is in %s state, host can register only in one of [insufficient ready pending-for-input adding-hosts] states",
            host.clusterId(), cluster == null ? "unknown" : cluster.status())));
      }
    }
    HostTransition t = run(host, cluster, r, m, HostRuleTables.REGISTER, null, List.of());
    if (t.rejected() || t.rule().startsWith("Ignore") || t.rule().equals("Register during error")) {
      return t;
    }
    List<DomainEvent> events = new ArrayList<>(t.events());
    String name = host.nameForMessages();
    events.add(0, DomainEvent.host("host_registration_succeeded", EventSeverity.INFO, "Host " + name + ": Successfully registered",
        host, Map.of("host_name", name)));
    return new HostTransition(t.previousStatus(), t.status(), t.statusInfo(), t.rule(), t.effects(), events, null, null);
  }

  private HostTransition refresh(HostSnapshot host, ClusterContext cluster, Moment m, List<HostEffect> leading) {
    HostFacts facts = new HostFacts(config, validator, host, cluster, new HostEvent.Refresh(), m.now(), m.judged());
    HostTransition t = run(host, cluster, facts.event, m,
        host.unbound() ? HostRuleTables.POOL_REFRESH : refreshRules, facts, leading);
    ValidationsInfo info = facts.v().info();
    List<DomainEvent> events = new ArrayList<>(ValidationChanges.forHost(host, host.validationsInfo(), info));
    events.addAll(t.events());
    if (t.rejected()) {
      // Upstream: no refresh rule means nothing to do; still store fresh validations.
      return new HostTransition(host.status(), host.status(), host.statusInfo(), "no matching refresh rule", leading,
          events, info, null);
    }
    return new HostTransition(t.previousStatus(), t.status(), t.statusInfo(), t.rule(), t.effects(), events, info, null);
  }

  private HostTransition progress(HostSnapshot host, ClusterContext cluster, HostEvent.ProgressReported p, Moment m) {
    Instant now = m.now();
    HostStage stage = p.stage();
    String info = p.progressInfo() == null ? "" : p.progressInfo();
    boolean sno = cluster != null && cluster.singleNode();
    List<HostStage> stages = StageSequences.forHost(host, sno);
    if (host.day2() && stage == HostStage.REBOOTING) {
      stage = HostStage.DONE; // day-2 without kube-API: Rebooting is the last stage the service hears of
    }
    if (stage == host.stage() && info.equals(host.progress().progressInfo())) {
      // the same report again (a retry whose answer was lost, a controller that read the host before the first was
      // applied): accepted as upstream does, and nothing changes, so no second event either
      return new HostTransition(host.status(), host.status(), host.statusInfo(), "same progress reported again",
          List.of(), List.of(), null, null);
    }
    if (stage == HostStage.FAILED) {
      String statusInfo = info.isEmpty() ? HostStage.FAILED.wire() : HostStage.FAILED.wire() + " - " + info;
      HostProgress progress = new HostProgress(stage, info, startedAt(host, stage, now), now, host.progress().installationPercentage());
      return finish(host, now, ERROR, statusInfo, "Host stage Failed moves the host to error",
          List.of(new HostEffect.SetProgress(progress)), List.of(progressEvent(host, stage, info)), null);
    }
    if (!EnumSet.of(INSTALLING, INSTALLING_IN_PROGRESS, INSTALLING_PENDING_USER_ACTION).contains(host.status())) {
      return rejected(host, new Rejection(409, String.format("Can't set progress <%s> to host in status <%s>", stage, host.status())));
    }
    if (!stages.contains(stage)) {
      return rejected(host, new Rejection(409, String.format("Stages %s isn't available for host role %s bootstrap %s",
          stage, host.effectiveRole(), host.bootstrap())));
    }
    HostStage current = host.stage();
    if (current != null && stages.indexOf(stage) < stages.indexOf(current)) {
      return rejected(host, new Rejection(409, String.format(
          "Can't assign lower stage \"%s\" after host has been in stage \"%s\"", stage, current)));
    }
    HostProgress progress = new HostProgress(stage, info, startedAt(host, stage, now), now,
        StageSequences.percentage(stage, stages));
    List<HostEffect> leading = new ArrayList<>(List.of(new HostEffect.SetProgress(progress)));
    if (host.stageTimedOut() && stage != current) {
      leading.add(new HostEffect.SetStageTimedOut(false));
    }
    if (stage == current) {
      return new HostTransition(host.status(), host.status(), host.statusInfo(), "same stage, progress info updated",
          leading, List.of(progressEvent(host, stage, info)), null, null);
    }
    HostTransition t = run(host, cluster, p, m, HostRuleTables.progressRules(stage), null, leading);
    List<DomainEvent> events = new ArrayList<>(t.events());
    DomainEvent reached = progressEvent(host, stage, info);
    if (current != null && host.progress().stageStartedAt() != null && !host.progress().stageStartedAt().isAfter(now)) {
      // how long the stage just left took: the stage-duration metrics read it from the event
      Map<String, String> props = new java.util.LinkedHashMap<>(reached.props());
      props.put("previous_stage", current.wire());
      props.put("previous_stage_seconds",
          Double.toString(java.time.Duration.between(host.progress().stageStartedAt(), now).toMillis() / 1000.0));
      props.put("role", host.bootstrap() ? "bootstrap" : host.effectiveRole().wire());
      reached = new DomainEvent(reached.name(), reached.severity(), reached.message(), reached.clusterId(),
          reached.hostId(), reached.infraEnvId(), props);
    }
    events.add(0, reached);
    return new HostTransition(t.previousStatus(), t.status(), t.statusInfo(), t.rule(), t.effects(), events, null, t.rejection());
  }

  private static Instant startedAt(HostSnapshot host, HostStage stage, Instant now) {
    return stage == host.stage() && host.progress().stageStartedAt() != null ? host.progress().stageStartedAt() : now;
  }

  private static DomainEvent progressEvent(HostSnapshot host, HostStage stage, String info) {
    String event = "reached installation stage " + stage + (info.isEmpty() ? "" : ": " + info);
    return DomainEvent.host("host_install_progress_updated", EventSeverity.INFO,
        "Host: " + host.nameForMessages() + ", " + event, host, Map.of("host_name", host.nameForMessages(), "event", event));
  }

  private static Rejection roleError(HostSnapshot host, HostRole role) {
    if (role == HostRole.BOOTSTRAP) {
      return new Rejection(400, "Requested role (bootstrap) is invalid for host " + host.id() + " from infraEnv " + host.infraEnvId());
    }
    if (host.day2() && role != HostRole.WORKER && role != HostRole.AUTO_ASSIGN && role != HostRole.MASTER) {
      return new Rejection(400, "Requested role (" + role + ") is invalid for host " + host.id() + " from infraEnv " + host.infraEnvId());
    }
    return null;
  }

  private static Rejection hostnameError(HostSnapshot host, String name) {
    if (name == null || HostValidator.FORBIDDEN_HOSTNAMES.contains(name)
        || !java.util.regex.Pattern.matches(HostValidator.HOSTNAME_PATTERN, name)) {
      return new Rejection(400, "host_name: " + name + " is not a valid hostname, it should match pattern "
          + HostValidator.HOSTNAME_PATTERN + " and not be localhost");
    }
    return null;
  }

  private HostTransition diskUpdate(HostSnapshot host, ClusterContext cluster, HostEvent.InstallationDiskSelected d, Moment m) {
    Optional<Inventory.Disk> disk = host.inventory() == null ? Optional.empty() : host.inventory().diskById(d.diskId());
    Rejection err = null;
    if (disk.isEmpty()) {
      err = new Rejection(400, "Requested installation disk " + d.diskId() + " is not part of the host's valid disks");
    } else {
      long min = cluster == null ? config.hardware().smallestDiskRole().diskSizeGb()
          : config.hardware().forRole(host.effectiveRole(), cluster.singleNode(), cluster.openshiftVersion(), null).diskSizeGb();
      List<String> reasons = DiskEligibility.notEligibleReasons(disk.get(), host.inventory(), min,
          cluster == null ? null : cluster.openshiftVersion(), cluster == null ? null : cluster.cpuArchitecture());
      if (!reasons.isEmpty()) {
        err = new Rejection(400, "Requested installation disk " + d.diskId() + " is not eligible: " + String.join("; ", reasons));
      }
    }
    String path = disk.map(Inventory.Disk::path).orElse(null);
    return userUpdate(host, cluster, m, new HostEffect.SetInstallationDisk(d.diskId(), path),
        host.toBuilder().installationDiskId(d.diskId()).installationDiskPath(path).build(), err);
  }

  /** PATCH-style updates: allowed only before installation, then the host is re-evaluated at once. */
  private HostTransition userUpdate(HostSnapshot host, ClusterContext cluster, Moment m, HostEffect effect,
      HostSnapshot updated, Rejection error) {
    if (!EDITABLE.contains(host.status())) {
      return rejected(host, new Rejection(400, String.format(
          "Host is in %s state, host role can be set only in one of [discovering known disconnected insufficient pending-for-input] states",
          host.status())));
    }
    if (error != null) {
      return rejected(host, error);
    }
    ClusterContext c = cluster == null ? null : cluster.withHost(updated);
    return refresh(updated, c, m, List.of(effect));
  }

  // --- rule engine -------------------------------------------------------------------------------

  private HostTransition run(HostSnapshot host, ClusterContext cluster, HostEvent event, Moment m, List<Rule> rules,
      HostFacts given, List<HostEffect> leading) {
    HostFacts f = given != null ? given : new HostFacts(config, validator, host, cluster, event, m.now(), m.judged());
    for (Rule r : rules) {
      boolean sourceMatches = host.status() == null ? r.fromNew() : r.from().contains(host.status());
      if (!sourceMatches || !r.when().test(f)) {
        continue;
      }
      Post post = r.post().apply(f);
      if (post.rejection() != null) {
        return rejected(host, post.rejection());
      }
      HostStatus to = r.to() == null ? host.status() : r.to();
      String info = post.info() == null ? host.statusInfo() : render(post.info(), f);
      List<HostEffect> effects = new ArrayList<>(leading);
      effects.addAll(post.effects());
      return finish(host, f.now, to, info, r.name(), effects, post.events(), null);
    }
    return rejected(host, new Rejection(409, String.format("no transition for event %s from host status %s",
        event.getClass().getSimpleName(), host.status() == null ? "(new)" : host.status())));
  }

  private HostTransition finish(HostSnapshot host, Instant now, HostStatus to, String info, String rule, List<HostEffect> effects,
      List<DomainEvent> extraEvents, ValidationsInfo validations) {
    List<DomainEvent> events = new ArrayList<>(extraEvents);
    if (host.status() != to) {
      String name = host.nameForMessages();
      String from = host.status() == null ? "" : host.status().wire();
      String msg = String.format("Host %s: updated status from %s to %s", name, from, to.wire());
      if (!info.isEmpty()) {
        msg += " (" + info + ")";
      }
      Map<String, String> props = new java.util.LinkedHashMap<>(
          Map.of("host_name", name, "src_status", from, "new_status", to.wire(), "info", info));
      if (to == KNOWN && host.registeredAt() != null && !host.registeredAt().isAfter(now)) {
        // time from registration to known, for the metric of the same name
        props.put("seconds_since_registration",
            Double.toString(java.time.Duration.between(host.registeredAt(), now).toMillis() / 1000.0));
      }
      events.add(0, DomainEvent.host("host_status_updated", severityFor(to), msg, host, props));
    }
    return new HostTransition(host.status(), to, info, rule, effects, events, validations, null);
  }

  private static HostTransition rejected(HostSnapshot host, Rejection r) {
    return new HostTransition(host.status(), host.status(), host.statusInfo(), "rejected", List.of(), List.of(), null, r);
  }

  static EventSeverity severityFor(HostStatus s) {
    return switch (s) {
      case DISCONNECTED, INSUFFICIENT, INSTALLING_PENDING_USER_ACTION -> EventSeverity.WARNING;
      case ERROR -> EventSeverity.ERROR;
      default -> EventSeverity.INFO;
    };
  }

  private String render(String template, HostFacts f) {
    String s = template;
    if (s.contains("$STAGE")) {
      s = s.replace("$STAGE", f.host.stage() == null ? "" : f.host.stage().wire());
    }
    if (s.contains("$MAX_TIME")) {
      s = s.replace("$MAX_TIME", Formats.goDuration(f.stageTimeout()));
    }
    if (s.contains("$INSTALLATION_DISK")) {
      s = s.replace("$INSTALLATION_DISK", f.host.installationDisk()
          .map(d -> "(" + d.name() + ", " + d.identifier() + ")").orElse(""));
    }
    if (s.contains("$FAILING_VALIDATIONS")) {
      s = failingValidations(s, f.v().info());
    }
    return s;
  }

  /**
   * Fills {@code $FAILING_VALIDATIONS} with the failed validations' messages, as upstream. Upstream
   * leaves an empty list when nothing failed (only pending validations hold the host back); here the
   * pending ones are listed instead, under "pending validation(s)" where the template says "failing
   * validation(s)", and with nothing failed or pending the list and its colon are dropped.
   */
  static String failingValidations(String template, ValidationsInfo info) {
    List<String> failed = info.failedMessages();
    if (!failed.isEmpty()) {
      return template.replace("$FAILING_VALIDATIONS", String.join(" ; ", failed));
    }
    List<String> pending = info.pendingMessages();
    if (!pending.isEmpty()) {
      return template.replace("following failing validation(s)", "following pending validation(s)")
          .replace("$FAILING_VALIDATIONS", String.join(" ; ", pending));
    }
    String shortened = template.replace(" due to following failing validation(s): $FAILING_VALIDATIONS", "")
        .replace(": $FAILING_VALIDATIONS", "");
    return shortened.replace("$FAILING_VALIDATIONS", "");
  }

}
