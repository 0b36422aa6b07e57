package dev.rendezvous.service.domain.host;

import static dev.rendezvous.service.domain.host.HostStatus.*;

import dev.rendezvous.service.domain.DomainConfig;
import dev.rendezvous.service.domain.DomainEvent;
import dev.rendezvous.service.domain.DomainTimeouts;
import dev.rendezvous.service.domain.EventSeverity;
import dev.rendezvous.service.domain.Formats;
import dev.rendezvous.service.domain.cluster.ClusterContext;
import dev.rendezvous.service.domain.cluster.ClusterStatus;
import dev.rendezvous.service.domain.cluster.InstallationQuorum;
import dev.rendezvous.service.domain.host.HostEffect.ClearDiscoveryData;
import dev.rendezvous.service.domain.host.HostEffect.ClearForUnbind;
import dev.rendezvous.service.domain.host.HostTransition.Rejection;
import dev.rendezvous.service.domain.validation.HostValidation;
import dev.rendezvous.service.domain.validation.HostValidationId.Blocking;
import dev.rendezvous.service.domain.validation.HostValidationId;
import dev.rendezvous.service.domain.validation.HostValidator;
import dev.rendezvous.service.domain.validation.ValidationChanges;
import dev.rendezvous.service.domain.validation.ValidationStatus;
import dev.rendezvous.service.domain.validation.ValidationsInfo;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;

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

  public HostStateMachine(DomainConfig config) {
    this.config = config;
    this.validator = new HostValidator(config);
  }

  /** Everything a rule may look at; the validation is computed once, on demand. */
  private final class Facts {
    final HostSnapshot host;
    final ClusterContext cluster;
    final HostEvent event;
    final Instant now;
    private HostValidation validation;

    Facts(HostSnapshot host, ClusterContext cluster, HostEvent event, Instant now) {
      this.host = host;
      this.cluster = cluster;
      this.event = event;
      this.now = now;
    }

    HostValidation v() {
      if (validation == null) {
        validation = validator.validate(host, cluster, now);
      }
      return validation;
    }

    boolean connected() {
      return v().passes(HostValidationId.CONNECTED);
    }

    boolean mediaConnected() {
      return v().passes(HostValidationId.MEDIA_CONNECTED);
    }

    boolean c() {
      return connected() && mediaConnected();
    }

    boolean inv() {
      return v().passes(HostValidationId.HAS_INVENTORY) && v().passes(HostValidationId.INVENTORY_NOT_FULLY_TRUNCATED);
    }

    boolean hw() {
      return v().group(Blocking.HARDWARE);
    }

    boolean input() {
      return v().group(Blocking.INPUT);
    }

    boolean suff() {
      return v().group(Blocking.SUFFICIENT);
    }

    boolean vs() {
      return v().group(Blocking.VSPHERE);
    }

    boolean clusterIs(ClusterStatus s) {
      return cluster != null && cluster.status() == s;
    }

    boolean preparing() {
      return clusterIs(ClusterStatus.PREPARING_FOR_INSTALLATION);
    }

    boolean validRole() {
      HostRole r = host.effectiveRole();
      return r == HostRole.MASTER || r == HostRole.WORKER || r == HostRole.ARBITER;
    }

    boolean soft() {
      return cluster != null && cluster.softTimeoutsEnabled();
    }

    boolean statusOlderThan(Duration d) {
      return host.statusUpdatedAt() != null && Duration.between(host.statusUpdatedAt(), now).compareTo(d) > 0;
    }

    Duration stageTimeout() {
      return config.timeouts().stageTimeout(host.stage(), cluster != null && cluster.singleNode());
    }

    boolean stageTimedOut() {
      Instant at = host.progress().stageUpdatedAt();
      return at != null && Duration.between(at, now).compareTo(stageTimeout()) > 0;
    }

    boolean diskSpeedOk() {
      return v().diskSpeedCheckSuccessful();
    }

    boolean diskSpeedOkOrUnknown() {
      return v().passes(HostValidationId.SUFFICIENT_INSTALLATION_DISK_SPEED);
    }

    boolean imagesOk() {
      return v().imagesAvailabilitySuccessful();
    }

    boolean imagesOkOrUnknown() {
      return v().passes(HostValidationId.CONTAINER_IMAGES_AVAILABLE);
    }

    boolean atLeastOneUnknown() {
      boolean diskUnknown = !diskSpeedOk() && diskSpeedOkOrUnknown();
      boolean imagesUnknown = !imagesOk() && imagesOkOrUnknown();
      return (diskUnknown || imagesUnknown) && diskSpeedOkOrUnknown() && imagesOkOrUnknown();
    }
  }

  /** A rule's outcome before rendering: status info template (null: keep) plus extras. */
  private record Post(String info, List<HostEffect> effects, List<DomainEvent> events, Rejection rejection) {
    static Post info(String info, HostEffect... effects) {
      return new Post(info, List.of(effects), List.of(), null);
    }

    static Post keep(HostEffect... effects) {
      return new Post(null, List.of(effects), List.of(), null);
    }

    static Post reject(int status, String message) {
      return new Post(null, List.of(), List.of(), new Rejection(status, message));
    }
  }

  private record Rule(String name, Set<HostStatus> from, boolean fromNew, Predicate<Facts> when, HostStatus to,
      Function<Facts, Post> post) {}

  private static Rule rule(String name, Set<HostStatus> from, Predicate<Facts> when, HostStatus to, Function<Facts, Post> post) {
    return new Rule(name, from, false, when, to, post);
  }

  private static Set<HostStatus> of(HostStatus first, HostStatus... rest) {
    return EnumSet.of(first, rest);
  }

  private static final Predicate<Facts> ALWAYS = f -> true;

  // --- rule tables, upstream order ---------------------------------------------------------------

  private static final List<Rule> REGISTER = List.of(
      new Rule("Initial registration", Set.of(), true, f -> !f.host.unbound(), DISCOVERING, HostStateMachine::postNewHost),
      new Rule("Initial registration of an unbound host", Set.of(), true, f -> f.host.unbound(), DISCOVERING_UNBOUND,
          f -> Post.info(INFO_DISCOVERING)),
      rule("Re-registration while preparing", of(PREPARING_FOR_INSTALLATION, PREPARING_SUCCESSFUL), ALWAYS, KNOWN,
          f -> Post.info(INFO_KNOWN, new HostEffect.ResetClusterPreparation())),
      rule("Re-registration", of(DISCOVERING, KNOWN, DISCONNECTED, INSUFFICIENT, RESETTING_PENDING_USER_ACTION, BINDING,
          PENDING_FOR_INPUT), ALWAYS, DISCOVERING, HostStateMachine::postReRegister),
      rule("Ignore register while rebooting host in resetting", of(RESETTING), f -> f.host.stage() == HostStage.REBOOTING,
          RESETTING, f -> Post.keep()),
      rule("Register non-rebooting host in resetting", of(RESETTING), ALWAYS, DISCOVERING, HostStateMachine::postReRegister),
      rule("Wrong boot order detection", of(INSTALLING_IN_PROGRESS, INSTALLING_PENDING_USER_ACTION, ADDED_TO_EXISTING_CLUSTER),
          f -> f.host.stage() == HostStage.REBOOTING || (f.host.day2() && f.host.stage() == HostStage.DONE),
          INSTALLING_PENDING_USER_ACTION, HostStateMachine::postRegisterDuringReboot),
      rule("Register during installation", of(INSTALLING, INSTALLING_IN_PROGRESS), ALWAYS, ERROR,
          f -> Post.info(INFO_RESTARTED_DURING_INSTALLATION)),
      rule("Register during error", of(ERROR), ALWAYS, ERROR, f -> Post.keep()),
      rule("Register post-installation", of(INSTALLED), ALWAYS, INSTALLED, f -> Post.reject(403,
          "Host is trying to register after the cluster has already been installed. That most probably means that "
              + "the host is booting from the installation ISO, and therefore not effectively joining the cluster. "
              + "The request will be ignored. Fix the boot order and reboot the host.")),
      rule("Pool re-registration", of(KNOWN_UNBOUND, DISCONNECTED_UNBOUND, INSUFFICIENT_UNBOUND, DISCOVERING_UNBOUND,
          DISABLED_UNBOUND, UNBINDING, UNBINDING_PENDING_USER_ACTION, RECLAIMING_REBOOTING), ALWAYS, DISCOVERING_UNBOUND,
          HostStateMachine::postReRegister));

  private static final List<Rule> MEDIA_DISCONNECT = List.of(
      rule("Move to disconnected when virtual media disconnects pre-installation",
          of(DISCOVERING, INSUFFICIENT, KNOWN, PENDING_FOR_INPUT, DISCONNECTED, BINDING), ALWAYS, DISCONNECTED,
          HostStateMachine::postMediaDisconnected),
      rule("Move to error when virtual media disconnects post-installation", of(PREPARING_FOR_INSTALLATION,
          PREPARING_FAILED, PREPARING_SUCCESSFUL, INSTALLING, INSTALLING_IN_PROGRESS, ERROR), ALWAYS, ERROR,
          HostStateMachine::postMediaDisconnected),
      rule("Pool media disconnect", of(KNOWN_UNBOUND, DISCONNECTED_UNBOUND, INSUFFICIENT_UNBOUND, DISCOVERING_UNBOUND,
          DISABLED_UNBOUND, UNBINDING), ALWAYS, DISCONNECTED_UNBOUND, HostStateMachine::postMediaDisconnected));

  private static final Set<HostStatus> PRE_INSTALL = of(KNOWN, DISCOVERING, DISCONNECTED, INSUFFICIENT, PENDING_FOR_INPUT);

  private List<Rule> userRules(HostEvent e) {
    if (e instanceof HostEvent.InstallationFailed x) {
      return List.of(rule("Installation failed while host is installing",
          of(INSTALLING, INSTALLING_IN_PROGRESS), ALWAYS, ERROR, f -> Post.info(x.reason())));
    } else if (e instanceof HostEvent.CancelInstallation x) {
      return List.of(
          rule("Installation canceled while host is installing", of(INSTALLING_PENDING_USER_ACTION, INSTALLING,
              INSTALLING_IN_PROGRESS, INSTALLED, ERROR), ALWAYS, CANCELLED, f -> withEvent(Post.info(x.reason()),
              f, "host_installation_cancelled", EventSeverity.INFO, "Installation cancelled for host " + f.host.nameForMessages())),
          rule("Cancel while preparing", of(PREPARING_FOR_INSTALLATION, PREPARING_SUCCESSFUL), ALWAYS, KNOWN,
              f -> Post.info(x.reason())),
          rule("Cancel while known", of(KNOWN), ALWAYS, KNOWN, f -> Post.keep()));
    } else if (e instanceof HostEvent.InstallHost x) {
      return List.of(rule("Install known host", of(KNOWN), f -> f.host.day2(), INSTALLING,
          f -> withEvent(Post.info(INFO_INSTALLING), f, "host_installation_started", EventSeverity.INFO,
              "Host " + f.host.nameForMessages() + " starting installation as a worker node")));
    } else if (e instanceof HostEvent.ResetPendingUserAction x) {
      return List.of(rule("Reset pending user action all states", of(RESETTING,
          DISCOVERING, KNOWN, INSTALLING_PENDING_USER_ACTION, INSTALLING, PREPARING_FOR_INSTALLATION, PREPARING_SUCCESSFUL,
          PREPARING_FAILED, PENDING_FOR_INPUT, RESETTING_PENDING_USER_ACTION, INSTALLING_IN_PROGRESS, INSTALLED, ERROR,
          CANCELLED, ADDED_TO_EXISTING_CLUSTER), ALWAYS, RESETTING_PENDING_USER_ACTION,
          f -> withEvent(Post.info(INFO_RESETTING_PENDING_USER_ACTION), f, "user_required_complete_installation_reset",
              EventSeverity.INFO, "User action is required in order to complete installation reset for host "
                  + f.host.nameForMessages())));
    } else if (e instanceof HostEvent.MediaDisconnected x) {
      return MEDIA_DISCONNECT;
    } else if (e instanceof HostEvent.Bind x) {
      return List.of(rule("Bind host", of(KNOWN_UNBOUND), ALWAYS, BINDING,
          f -> withEvent(Post.info(INFO_BINDING, new ClearDiscoveryData(null), new HostEffect.SetCluster(x.clusterId())),
              f, "host_bind_succeeded", EventSeverity.INFO, "Host " + f.host.nameForMessages()
                  + ": Successfully bound to cluster " + x.clusterId())));
    } else if (e instanceof HostEvent.Unbind x) {
      return List.of(
          rule("Unbind pre-installation", PRE_INSTALL, ALWAYS, UNBINDING, HostStateMachine::postUnbind),
          rule("Unbind during or after installation", of(PREPARING_FOR_INSTALLATION, PREPARING_SUCCESSFUL, PREPARING_FAILED,
              INSTALLING, INSTALLING_IN_PROGRESS, INSTALLING_PENDING_USER_ACTION, INSTALLED, ADDED_TO_EXISTING_CLUSTER,
              ERROR, CANCELLED), ALWAYS, UNBINDING_PENDING_USER_ACTION, HostStateMachine::postUnbind));
    } else if (e instanceof HostEvent.Reclaim x) {
      return List.of(
          rule("Reclaim successful host", of(INSTALLED, ADDED_TO_EXISTING_CLUSTER), ALWAYS, RECLAIMING, HostStateMachine::postUnbind),
          rule("Reclaim pre-installation", PRE_INSTALL, ALWAYS, UNBINDING, HostStateMachine::postUnbind),
          rule("Reclaim failed host", of(ERROR, CANCELLED), ALWAYS, UNBINDING_PENDING_USER_ACTION, HostStateMachine::postUnbind));
    } else if (e instanceof HostEvent.RebootingForReclaim x) {
      return List.of(rule("Rebooting for reclaim reclaiming host", of(RECLAIMING), ALWAYS,
          RECLAIMING_REBOOTING, f -> Post.info(INFO_REBOOTING_FOR_RECLAIM)));
    } else if (e instanceof HostEvent.ReclaimFailed x) {
      return List.of(rule("Reclaim failure for reclaiming host", of(RECLAIMING,
          RECLAIMING_REBOOTING), ALWAYS, UNBINDING_PENDING_USER_ACTION, HostStateMachine::postUnbind));
    }
    return List.of();
  }

  private List<Rule> refreshRules() {
    List<Rule> r = new ArrayList<>();
    r.add(rule("Refresh reclaiming host", of(RECLAIMING, RECLAIMING_REBOOTING),
        f -> f.statusOlderThan(config.timeouts().reclaim()), UNBINDING_PENDING_USER_ACTION, HostStateMachine::postUnbind));
    r.add(rule("Refresh known host in preparing cluster", of(KNOWN), f -> f.validRole() && f.c() && f.preparing(),
        PREPARING_FOR_INSTALLATION, f -> {
          List<HostEffect> effects = new ArrayList<>();
          if (f.v().status(HostValidationId.CONTAINER_IMAGES_AVAILABLE) == ValidationStatus.FAILURE) {
            effects.add(new HostEffect.ClearImagesStatus());
          }
          effects.add(new HostEffect.ResetLogs());
          return new Post(INFO_PREPARATION_SUCCESSFUL, effects, List.of(), null);
        }));
    r.add(rule("Refresh successfully preparing host", of(PREPARING_FOR_INSTALLATION),
        f -> f.c() && f.diskSpeedOk() && f.imagesOk() && f.preparing(), PREPARING_SUCCESSFUL,
        f -> Post.info(INFO_PREPARATION_SUCCESSFUL)));
    r.add(rule("Stay in preparing successful", of(PREPARING_SUCCESSFUL), f -> f.c() && f.preparing(),
        PREPARING_SUCCESSFUL, f -> Post.keep()));
    r.add(rule("Move successfully prepared host to installing", of(PREPARING_SUCCESSFUL),
        f -> f.c() && f.clusterIs(ClusterStatus.INSTALLING), INSTALLING, f -> Post.info(INFO_INSTALLING)));
    r.add(rule("Move preparing host to known when cluster stops preparing", of(PREPARING_FOR_INSTALLATION),
        f -> f.c() && f.diskSpeedOkOrUnknown() && f.imagesOkOrUnknown() && !f.preparing(), KNOWN,
        f -> Post.info(INFO_KNOWN)));
    r.add(rule("Preparing failed disk speed host move to insufficient", of(PREPARING_FOR_INSTALLATION, PREPARING_FAILED, KNOWN),
        f -> f.c() && !f.diskSpeedOkOrUnknown(), INSUFFICIENT, f -> Post.info(INFO_NOT_READY)));
    r.add(rule("Preparing timed out host move to preparing failed", of(PREPARING_FOR_INSTALLATION),
        f -> f.c() && f.statusOlderThan(config.timeouts().hostPreparation()) && f.atLeastOneUnknown(), PREPARING_FAILED,
        f -> {
          List<String> failed = new ArrayList<>();
          if (!f.diskSpeedOk()) {
            failed.add(INFO_PREPARATION_TIMEOUT_DISK);
          }
          if (!f.imagesOk()) {
            failed.add(INFO_PREPARATION_TIMEOUT_IMAGES);
          }
          return Post.info(INFO_PREPARATION_TIMEOUT + String.join(" ", failed));
        }));
    r.add(rule("Preparing failed image pull host move to preparing failed", of(PREPARING_FOR_INSTALLATION),
        f -> f.c() && !f.imagesOkOrUnknown(), PREPARING_FAILED, f -> Post.info(INFO_PREPARATION_FAILURE)));
    r.add(rule("Stay in preparing for installation", of(PREPARING_FOR_INSTALLATION),
        f -> f.c() && f.atLeastOneUnknown() && f.preparing(), PREPARING_FOR_INSTALLATION, f -> Post.keep()));
    r.add(rule("Failed preparing to known when cluster is no longer preparing", of(PREPARING_FAILED),
        f -> f.c() && !f.preparing(), KNOWN, f -> Post.info(INFO_KNOWN)));
    r.add(rule("Successful preparing to known when cluster is no longer preparing", of(PREPARING_SUCCESSFUL),
        f -> f.c() && !f.preparing() && !f.clusterIs(ClusterStatus.INSTALLING), KNOWN, f -> Post.info(INFO_KNOWN)));
    r.add(rule("Move host to disconnected when connected times out", of(DISCOVERING, INSUFFICIENT, KNOWN,
        PENDING_FOR_INPUT, DISCONNECTED, PREPARING_FAILED), f -> !f.c(), DISCONNECTED, f -> Post.info(INFO_DISCONNECTED)));
    r.add(rule("Move host to error when cluster is in error", of(INSTALLING, INSTALLING_IN_PROGRESS, INSTALLED,
        RESETTING_PENDING_USER_ACTION, INSTALLING_PENDING_USER_ACTION), f -> f.clusterIs(ClusterStatus.ERROR) && !f.host.day2(),
        ERROR, f -> Post.info(INFO_ABORTING_CLUSTER_ERROR)));
    r.add(rule("Move host to error when installation times out", of(INSTALLING),
        f -> f.statusOlderThan(config.timeouts().installingWithoutProgress()), ERROR, f -> Post.info(INFO_INSTALLATION_TIMED_OUT)));
    r.add(rule("Move preparing host to disconnected when connection times out", of(PREPARING_FOR_INSTALLATION,
        PREPARING_SUCCESSFUL), f -> !f.c(), DISCONNECTED, f -> Post.info(INFO_CONNECTION_TIMED_OUT_PREPARING)));
    r.add(rule("Move installing host to error when connection times out", of(INSTALLING, INSTALLING_IN_PROGRESS),
        f -> !f.connected() && !f.soft(), ERROR, f -> Post.info(INFO_CONNECTION_TIMED_OUT_INSTALLING)));
    for (HostStatus st : List.of(INSTALLING, INSTALLING_IN_PROGRESS)) {
      r.add(rule("Keep installing host when connection times out", of(st),
          f -> !f.connected() && f.soft() && !f.host.connectionTimedOut(), st,
          f -> Post.info(INFO_SOFT_DISCONNECTED, new HostEffect.SetConnectionTimedOut(true))));
      r.add(rule("Keep installing host when host recovers from disconnection", of(st),
          f -> f.connected() && f.soft() && f.host.connectionTimedOut(), st,
          f -> Post.info(INFO_INSTALLING, new HostEffect.SetConnectionTimedOut(false))));
    }
    Predicate<Facts> ignoreStageTimeout = f -> WRONG_BOOT_STAGES.contains(f.host.stage())
        && f.clusterIs(ClusterStatus.INSTALLING_PENDING_USER_ACTION);
    r.add(rule("Ignore timeout if host is in particular installation in progress stages", of(INSTALLING_IN_PROGRESS),
        ignoreStageTimeout, INSTALLING_IN_PROGRESS, f -> {
          Instant at = f.host.progress().stageUpdatedAt();
          return at == null || Duration.between(at, f.now).compareTo(Duration.ofMinutes(1)) >= 0
              ? Post.keep(new HostEffect.RefreshStageUpdatedAt(f.now)) : Post.keep();
        }));
    Set<HostStage> writingOrRebooting = EnumSet.of(HostStage.WRITING_IMAGE_TO_DISK, HostStage.REBOOTING);
    r.add(rule("Move to error on stage timeout", of(INSTALLING_IN_PROGRESS),
        f -> !f.soft() && !writingOrRebooting.contains(f.host.stage()) && f.stageTimedOut() && !ignoreStageTimeout.test(f),
        ERROR, f -> Post.info(INFO_STAGE_TIMED_OUT)));
    r.add(rule("Move to error on writing-image-to-disk timeout", of(INSTALLING_IN_PROGRESS),
        f -> !f.soft() && f.host.stage() == HostStage.WRITING_IMAGE_TO_DISK && f.stageTimedOut() && !ignoreStageTimeout.test(f),
        ERROR, f -> Post.info(INFO_WRITING_IMAGE_TIMED_OUT)));
    r.add(rule("Indicate stage timeout and continue installation", of(INSTALLING_IN_PROGRESS),
        f -> f.soft() && !f.host.stageTimedOut() && f.host.stage() != HostStage.REBOOTING && f.stageTimedOut()
            && !ignoreStageTimeout.test(f),
        INSTALLING_IN_PROGRESS, f -> withEvent(Post.info(INFO_SOFT_STAGE_TIMED_OUT, new HostEffect.SetStageTimedOut(true)),
            f, "host_stage_timed_out", EventSeverity.WARNING, "Host " + f.host.nameForMessages() + ": host stage "
                + f.host.stage() + " has been active more than the expected completion time (" + f.stageTimeout().toMinutes()
                + " minutes)")));
    r.add(rule("Tell user about boot order when reboot takes too long", of(INSTALLING_IN_PROGRESS),
        f -> f.stageTimedOut() && f.host.stage() == HostStage.REBOOTING, INSTALLING_PENDING_USER_ACTION,
        f -> Post.info(INFO_REBOOT_TIMEOUT)));
    r.add(rule("Pending user action timed out", of(INSTALLING_PENDING_USER_ACTION),
        f -> f.statusOlderThan(config.timeouts().installingPendingUserAction()) && f.cluster != null
            && f.cluster.status() != ClusterStatus.INSTALLED && f.cluster.status() != ClusterStatus.ADDING_HOSTS
            && InstallationQuorum.enough(f.cluster,
                f.cluster.hosts().stream().filter(h -> !h.id().equals(f.host.id())).toList(), InstallationQuorum.INSTALLING_ENOUGH),
        ERROR, f -> Post.info(INFO_PENDING_USER_ACTION_TIMED_OUT.replace("$MAX_TIME",
            Formats.goDuration(config.timeouts().installingPendingUserAction())))));
    r.add(rule("Refresh without cluster error stays", of(INSTALLING, INSTALLING_IN_PROGRESS, INSTALLED,
        INSTALLING_PENDING_USER_ACTION, RESETTING_PENDING_USER_ACTION), f -> !f.clusterIs(ClusterStatus.ERROR),
        null, f -> Post.keep()));
    Set<HostStatus> discovery = of(DISCONNECTED, DISCOVERING, INSUFFICIENT, KNOWN, PENDING_FOR_INPUT);
    r.add(rule("Host reconnected without inventory", of(DISCONNECTED, DISCOVERING), f -> f.c() && !f.inv(), DISCOVERING,
        f -> Post.info(INFO_DISCOVERING)));
    r.add(rule("Host has insufficient hardware", discovery, f -> f.c() && f.inv() && !f.hw(), INSUFFICIENT,
        f -> Post.info(INFO_INSUFFICIENT_HW)));
    r.add(rule("Host pending input", discovery, f -> f.c() && f.inv() && f.vs() && f.hw() && !f.input(), PENDING_FOR_INPUT,
        f -> Post.info(INFO_PENDING_INPUT)));
    r.add(rule("Host not ready", discovery, f -> f.c() && f.v().passes(HostValidationId.HAS_INVENTORY)
        && (f.hw() || !f.v().passes(HostValidationId.INVENTORY_NOT_FULLY_TRUNCATED))
        && (!f.vs() || (f.input() && !f.suff())), INSUFFICIENT, f -> Post.info(INFO_NOT_READY)));
    r.add(rule("Host ready", of(DISCONNECTED, INSUFFICIENT, PENDING_FOR_INPUT, DISCOVERING),
        f -> f.c() && f.inv() && f.hw() && f.input() && f.suff() && f.vs(), KNOWN, f -> Post.info(INFO_KNOWN)));
    r.add(rule("Host stay ready", of(KNOWN), f -> f.c() && f.inv() && f.hw() && f.input() && f.suff() && f.vs()
        && !(f.preparing() && f.validRole()), KNOWN, f -> Post.info(INFO_KNOWN)));
    r.add(rule("Log collection timed out", of(ERROR, CANCELLED), this::logCollectionTimedOut, null,
        f -> Post.keep(new HostEffect.SetLogsInfo("timeout"))));
    r.add(rule("Refresh during error, cancelled or resetting stays", of(ERROR, CANCELLED, RESETTING), ALWAYS, null, f -> Post.keep()));
    r.add(rule("Day 2 hosts should stay in added state", of(ADDED_TO_EXISTING_CLUSTER), f -> f.host.day2(), null, f -> Post.keep()));
    r.add(rule("Refresh without timeout during reclaim stays", of(RECLAIMING, RECLAIMING_REBOOTING),
        f -> !f.statusOlderThan(config.timeouts().reclaim()), null, f -> Post.keep()));
    return r;
  }

  private static final List<Rule> POOL_REFRESH = List.of(
      rule("Pool host disconnected", of(KNOWN_UNBOUND, INSUFFICIENT_UNBOUND, DISCOVERING_UNBOUND, DISCONNECTED_UNBOUND,
          DISABLED_UNBOUND, UNBINDING), f -> !f.c(), DISCONNECTED_UNBOUND, f -> Post.info(INFO_DISCONNECTED)),
      rule("Pool host without inventory", of(DISCONNECTED_UNBOUND, DISCOVERING_UNBOUND), f -> !f.inv(), DISCOVERING_UNBOUND,
          f -> Post.info(INFO_DISCOVERING)),
      rule("Pool host with insufficient hardware", of(DISCONNECTED_UNBOUND, DISCOVERING_UNBOUND, INSUFFICIENT_UNBOUND,
          KNOWN_UNBOUND), f -> f.inv() && !f.hw(), INSUFFICIENT_UNBOUND, f -> Post.info(INFO_INSUFFICIENT_HW)),
      rule("Pool host ready to be bound", of(DISCONNECTED_UNBOUND, DISCOVERING_UNBOUND, INSUFFICIENT_UNBOUND,
          KNOWN_UNBOUND), f -> f.inv() && f.hw(), KNOWN_UNBOUND, f -> Post.info(INFO_READY_TO_BE_BOUND)),
      rule("Binding and unbinding hosts stay", of(BINDING, UNBINDING, UNBINDING_PENDING_USER_ACTION), ALWAYS, null,
          f -> Post.keep()));

  private List<Rule> progressRules(HostStage stage) {
    return List.of(
        rule("host progress changed to added-to-existing-cluster for day2 host", of(INSTALLING_IN_PROGRESS, INSTALLING,
            INSTALLING_PENDING_USER_ACTION), f -> stage == HostStage.DONE && f.host.day2(), ADDED_TO_EXISTING_CLUSTER,
            f -> Post.info(INFO_REBOOTING_DAY2)),
        rule("host progress changed to installed", of(INSTALLING_IN_PROGRESS, INSTALLING), f -> stage == HostStage.DONE,
            INSTALLED, f -> Post.info(stage.wire())),
        rule("default host progress changed", of(INSTALLING_IN_PROGRESS, INSTALLING, INSTALLING_PENDING_USER_ACTION),
            ALWAYS, INSTALLING_IN_PROGRESS, f -> Post.info(stage.wire())),
        rule("Host progress fallback", of(INSTALLED, INSTALLING_PENDING_USER_ACTION, RESETTING_PENDING_USER_ACTION),
            ALWAYS, null, f -> Post.keep()));
  }

  // --- entry point -------------------------------------------------------------------------------

  /**
   * Applies one event to one host. {@code cluster} is the host's cluster (with all its hosts) or null for
   * an unbound host; {@code now} is the only clock the machine uses.
   */
  public HostTransition apply(HostSnapshot host, ClusterContext cluster, HostEvent event, Instant now) {
    if (!host.unbound() && cluster == null && !(event instanceof HostEvent.Register)) {
      throw new IllegalArgumentException("host " + host.id() + " is bound to cluster " + host.clusterId() + " but no cluster was given");
    }
    if (event instanceof HostEvent.Register r) {
      return register(host, cluster, r, now);
    }
    if (event instanceof HostEvent.Refresh) {
      return refresh(host, cluster, now, List.of());
    }
    if (event instanceof HostEvent.ProgressReported p) {
      return progress(host, cluster, p, now);
    }
    if (event instanceof HostEvent.RoleUpdated u) {
      return userUpdate(host, cluster, now, new HostEffect.SetRole(u.role(), u.role() == HostRole.WORKER),
          host.toBuilder().role(u.role()).bootstrap(u.role() == HostRole.WORKER ? false : host.bootstrap()).build(),
          roleError(host, u.role()));
    }
    if (event instanceof HostEvent.InstallationDiskSelected d) {
      return diskUpdate(host, cluster, d, now);
    }
    if (event instanceof HostEvent.HostnameUpdated n) {
      return userUpdate(host, cluster, now, new HostEffect.SetRequestedHostname(n.hostname()),
          host.toBuilder().requestedHostname(n.hostname()).build(), hostnameError(host, n.hostname()));
    }
    return run(host, cluster, event, now, userRules(event), null, List.of());
  }

  private HostTransition register(HostSnapshot host, ClusterContext cluster, HostEvent.Register r, Instant now) {
    if (host.status() == null && !host.unbound()) {
      Set<ClusterStatus> accepting = EnumSet.of(ClusterStatus.INSUFFICIENT, ClusterStatus.READY,
          ClusterStatus.PENDING_FOR_INPUT, ClusterStatus.ADDING_HOSTS);
      if (cluster == null || !accepting.contains(cluster.status())) {
        return rejected(host, new Rejection(409, String.format(
            "Cluster %s is in %s state, host can register only in one of [insufficient ready pending-for-input adding-hosts] states",
            host.clusterId(), cluster == null ? "unknown" : cluster.status())));
      }
    }
    HostTransition t = run(host, cluster, r, now, REGISTER, null, List.of());
    if (t.rejected() || t.rule().startsWith("Ignore") || t.rule().equals("Register during error")) {
      return t;
    }
    List<DomainEvent> events = new ArrayList<>(t.events());
    String name = host.nameForMessages();
    events.add(0, DomainEvent.host("host_registration_succeeded", EventSeverity.INFO, "Host " + name + ": Successfully registered",
        host, Map.of("host_name", name)));
    return new HostTransition(t.previousStatus(), t.status(), t.statusInfo(), t.rule(), t.effects(), events, null, null);
  }

  private HostTransition refresh(HostSnapshot host, ClusterContext cluster, Instant now, List<HostEffect> leading) {
    Facts facts = new Facts(host, cluster, new HostEvent.Refresh(), now);
    HostTransition t = run(host, cluster, facts.event, now, host.unbound() ? POOL_REFRESH : refreshRules(), facts, leading);
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

  private HostTransition progress(HostSnapshot host, ClusterContext cluster, HostEvent.ProgressReported p, Instant now) {
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
    HostTransition t = run(host, cluster, p, now, progressRules(stage), null, leading);
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

  private HostTransition diskUpdate(HostSnapshot host, ClusterContext cluster, HostEvent.InstallationDiskSelected d, Instant now) {
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
    return userUpdate(host, cluster, now, new HostEffect.SetInstallationDisk(d.diskId(), path),
        host.toBuilder().installationDiskId(d.diskId()).installationDiskPath(path).build(), err);
  }

  /** PATCH-style updates: allowed only before installation, then the host is re-evaluated at once. */
  private HostTransition userUpdate(HostSnapshot host, ClusterContext cluster, Instant now, HostEffect effect,
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
    return refresh(updated, c, now, List.of(effect));
  }

  // --- rule engine -------------------------------------------------------------------------------

  private HostTransition run(HostSnapshot host, ClusterContext cluster, HostEvent event, Instant now, List<Rule> rules,
      Facts given, List<HostEffect> leading) {
    Facts f = given != null ? given : new Facts(host, cluster, event, now);
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

  private static Post withEvent(Post p, Facts f, String name, EventSeverity sev, String message) {
    List<DomainEvent> events = new ArrayList<>(p.events());
    events.add(DomainEvent.host(name, sev, message, f.host, Map.of("host_name", f.host.nameForMessages())));
    return new Post(p.info(), p.effects(), events, p.rejection());
  }

  private String render(String template, Facts f) {
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

  // --- post-transition helpers -------------------------------------------------------------------

  private static Post postNewHost(Facts f) {
    ClusterContext c = f.cluster;
    HostEffect defaults;
    if (c != null && c.day2()) {
      defaults = new HostEffect.RegistrationDefaults(HostRole.WORKER, false, true, "worker");
    } else if (c != null && c.singleNode()) {
      defaults = new HostEffect.RegistrationDefaults(HostRole.MASTER, true, false, "");
    } else {
      defaults = new HostEffect.RegistrationDefaults(HostRole.AUTO_ASSIGN, false, false, "");
    }
    return Post.info(INFO_DISCOVERING, defaults);
  }

  private static Post postReRegister(Facts f) {
    String version = f.event instanceof HostEvent.Register r ? r.discoveryAgentVersion() : null;
    return Post.info(INFO_DISCOVERING, new ClearDiscoveryData(version));
  }

  private static Post postRegisterDuringReboot(Facts f) {
    String path = f.host.installationDiskPath() == null ? "" : f.host.installationDiskPath();
    if (f.host.status() == INSTALLING_PENDING_USER_ACTION) {
      return Post.reject(403, "Host is required to be booted from disk " + path);
    }
    List<String> parts = new ArrayList<>();
    parts.add("Expected the host to boot from disk, but it booted the installation image - please reboot and fix boot order to boot from disk");
    f.host.installationDisk().ifPresent(d -> {
      if (d.model() != null && !d.model().isEmpty()) {
        parts.add(d.model());
      }
      if (d.serial() != null && !d.serial().isEmpty()) {
        parts.add(d.serial());
      }
      parts.add("(" + d.name() + ", " + d.identifier() + ")");
    });
    return Post.info(String.join(" ", parts));
  }

  private static Post postMediaDisconnected(Facts f) {
    if (f.host.mediaDisconnected()) {
      return new Post(null, List.of(), List.of(), null); // already recorded
    }
    String reason = HostValidator.MEDIA_DISCONNECTED;
    if (f.host.status() == ERROR) {
      reason = HostStage.FAILED.wire() + " - " + reason;
      String existing = f.host.statusInfo();
      reason = existing.contains(reason) ? existing : existing.isEmpty() ? reason : reason + ". " + existing;
    }
    Post p = Post.info(reason, new HostEffect.SetMediaDisconnected(true));
    List<DomainEvent> ev = List.of(DomainEvent.host("host_media_disconnected", EventSeverity.ERROR,
        HostValidator.MEDIA_DISCONNECTED, f.host, Map.of()));
    return new Post(p.info(), p.effects(), ev, null);
  }

  private static Post postUnbind(Facts f) {
    return withEvent(Post.info(INFO_UNBINDING, new ClearForUnbind()), f, "host_unbind_succeeded", EventSeverity.INFO,
        "Host " + f.host.nameForMessages() + ": Successfully unbound from cluster");
  }

  private boolean logCollectionTimedOut(Facts f) {
    HostSnapshot h = f.host;
    DomainTimeouts t = config.timeouts();
    Instant now = f.now;
    switch (h.logsInfo()) {
      case "" -> {
        return h.logsStartedAt() == null && h.statusUpdatedAt() != null
            && Duration.between(h.statusUpdatedAt(), now).compareTo(t.hostLogPending()) > 0;
      }
      case "requested" -> {
        Instant from = h.logsCollectedAt() == null ? h.logsStartedAt() : h.logsCollectedAt();
        return from != null && Duration.between(from, now).compareTo(t.hostLogCollection()) > 0;
      }
      case "collecting" -> {
        return h.logsCollectedAt() != null && Duration.between(h.logsCollectedAt(), now).compareTo(t.hostLogPending()) > 0;
      }
      default -> {
        return false;
      }
    }
  }
}
