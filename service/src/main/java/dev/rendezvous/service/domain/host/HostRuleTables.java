package dev.rendezvous.service.domain.host;

import static dev.rendezvous.service.domain.host.HostStateMachine.*;
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
import dev.rendezvous.service.domain.validation.HostValidationId;
import dev.rendezvous.service.domain.validation.HostValidator;
import dev.rendezvous.service.domain.validation.ValidationStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The host state machine's rules (upstream's transition tables, in upstream registration order), the
 * rule and outcome types they are built from, and the post-transition helpers they use.
 */
final class HostRuleTables {

  private HostRuleTables() {}

  /** A rule's outcome before rendering: status info template (null: keep) plus extras. */
  record Post(String info, List<HostEffect> effects, List<DomainEvent> events, Rejection rejection) {
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

  record Rule(String name, Set<HostStatus> from, boolean fromNew, Predicate<HostFacts> when, HostStatus to,
      Function<HostFacts, Post> post) {}

  static Rule rule(String name, Set<HostStatus> from, Predicate<HostFacts> when, HostStatus to, Function<HostFacts, Post> post) {
    return new Rule(name, from, false, when, to, post);
  }

  static Set<HostStatus> of(HostStatus first, HostStatus... rest) {
    return EnumSet.of(first, rest);
  }

  static final Predicate<HostFacts> ALWAYS = f -> true;

  // --- rule tables, upstream order ---------------------------------------------------------------

  static final List<Rule> REGISTER = List.of(
      new Rule("Initial registration", Set.of(), true, f -> !f.host.unbound(), DISCOVERING, HostRuleTables::postNewHost),
      new Rule("Initial registration of an unbound host", Set.of(), true, f -> f.host.unbound(), DISCOVERING_UNBOUND,
          f -> Post.info(INFO_DISCOVERING)),
      rule("Re-registration while preparing", of(PREPARING_FOR_INSTALLATION, PREPARING_SUCCESSFUL), ALWAYS, KNOWN,
          f -> Post.info(INFO_KNOWN, new HostEffect.ResetClusterPreparation())),
      rule("Re-registration", of(DISCOVERING, KNOWN, DISCONNECTED, INSUFFICIENT, RESETTING_PENDING_USER_ACTION, BINDING,
          PENDING_FOR_INPUT), ALWAYS, DISCOVERING, HostRuleTables::postReRegister),
      rule("Ignore register while rebooting host in resetting", of(RESETTING), f -> f.host.stage() == HostStage.REBOOTING,
          RESETTING, f -> Post.keep()),
      rule("Register non-rebooting host in resetting", of(RESETTING), ALWAYS, DISCOVERING, HostRuleTables::postReRegister),
      rule("Wrong boot order detection", of(INSTALLING_IN_PROGRESS, INSTALLING_PENDING_USER_ACTION, ADDED_TO_EXISTING_CLUSTER),
          f -> f.host.stage() == HostStage.REBOOTING || (f.host.day2() && f.host.stage() == HostStage.DONE),
          INSTALLING_PENDING_USER_ACTION, HostRuleTables::postRegisterDuringReboot),
      rule("Register during installation", of(INSTALLING, INSTALLING_IN_PROGRESS), ALWAYS, ERROR,
          f -> Post.info(INFO_RESTARTED_DURING_INSTALLATION)),
      rule("Register during error", of(ERROR), ALWAYS, ERROR, f -> Post.keep()),
      rule("Register post-installation", of(INSTALLED), ALWAYS, INSTALLED, f -> Post.reject(403,
          "Host is trying to register after the cluster has already been installed. That most probably means that "
              + "the host is booting from the installation ISO, and therefore not effectively joining the cluster. "
              + "The request will be ignored. Fix the boot order and reboot the host.")),
      rule("Pool re-registration", of(KNOWN_UNBOUND, DISCONNECTED_UNBOUND, INSUFFICIENT_UNBOUND, DISCOVERING_UNBOUND,
          DISABLED_UNBOUND, UNBINDING, UNBINDING_PENDING_USER_ACTION, RECLAIMING_REBOOTING), ALWAYS, DISCOVERING_UNBOUND,
          HostRuleTables::postReRegister));

  private static final List<Rule> MEDIA_DISCONNECT = List.of(
      rule("Move to disconnected when virtual media disconnects pre-installation",
          of(DISCOVERING, INSUFFICIENT, KNOWN, PENDING_FOR_INPUT, DISCONNECTED, BINDING), ALWAYS, DISCONNECTED,
          HostRuleTables::postMediaDisconnected),
      rule("Move to error when virtual media disconnects post-installation", of(PREPARING_FOR_INSTALLATION,
          PREPARING_FAILED, PREPARING_SUCCESSFUL, INSTALLING, INSTALLING_IN_PROGRESS, ERROR), ALWAYS, ERROR,
          HostRuleTables::postMediaDisconnected),
      rule("Pool media disconnect", of(KNOWN_UNBOUND, DISCONNECTED_UNBOUND, INSUFFICIENT_UNBOUND, DISCOVERING_UNBOUND,
          DISABLED_UNBOUND, UNBINDING), ALWAYS, DISCONNECTED_UNBOUND, HostRuleTables::postMediaDisconnected));

  private static final Set<HostStatus> PRE_INSTALL = of(KNOWN, DISCOVERING, DISCONNECTED, INSUFFICIENT, PENDING_FOR_INPUT);

  static List<Rule> userRules(HostEvent e) {
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
          rule("Unbind pre-installation", PRE_INSTALL, ALWAYS, UNBINDING, HostRuleTables::postUnbind),
          rule("Unbind during or after installation", of(PREPARING_FOR_INSTALLATION, PREPARING_SUCCESSFUL, PREPARING_FAILED,
              INSTALLING, INSTALLING_IN_PROGRESS, INSTALLING_PENDING_USER_ACTION, INSTALLED, ADDED_TO_EXISTING_CLUSTER,
              ERROR, CANCELLED), ALWAYS, UNBINDING_PENDING_USER_ACTION, HostRuleTables::postUnbind));
    } else if (e instanceof HostEvent.Reclaim x) {
      return List.of(
          rule("Reclaim successful host", of(INSTALLED, ADDED_TO_EXISTING_CLUSTER), ALWAYS, RECLAIMING,
              f -> postUnbind(f, new HostEffect.SetReclaimBootArtifacts(x.bootArtifacts()))),
          rule("Reclaim pre-installation", PRE_INSTALL, ALWAYS, UNBINDING, HostRuleTables::postUnbind),
          rule("Reclaim failed host", of(ERROR, CANCELLED), ALWAYS, UNBINDING_PENDING_USER_ACTION, HostRuleTables::postUnbind));
    } else if (e instanceof HostEvent.RebootingForReclaim x) {
      return List.of(rule("Rebooting for reclaim reclaiming host", of(RECLAIMING), ALWAYS,
          RECLAIMING_REBOOTING, f -> Post.info(INFO_REBOOTING_FOR_RECLAIM)));
    } else if (e instanceof HostEvent.ReclaimFailed x) {
      return List.of(rule("Reclaim failure for reclaiming host", of(RECLAIMING,
          RECLAIMING_REBOOTING), ALWAYS, UNBINDING_PENDING_USER_ACTION, HostRuleTables::postUnbind));
    }
    return List.of();
  }

  static List<Rule> refreshRules(DomainConfig config) {
    List<Rule> r = new ArrayList<>();
    r.add(rule("Refresh reclaiming host", of(RECLAIMING, RECLAIMING_REBOOTING),
        f -> f.statusOlderThan(config.timeouts().reclaim()), UNBINDING_PENDING_USER_ACTION, HostRuleTables::postUnbind));
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
    Predicate<HostFacts> ignoreStageTimeout = f -> WRONG_BOOT_STAGES.contains(f.host.stage())
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
    r.add(rule("Log collection timed out", of(ERROR, CANCELLED), f -> logCollectionTimedOut(f, config), null,
        f -> Post.keep(new HostEffect.SetLogsInfo("timeout"))));
    r.add(rule("Refresh during error, cancelled or resetting stays", of(ERROR, CANCELLED, RESETTING), ALWAYS, null, f -> Post.keep()));
    r.add(rule("Day 2 hosts should stay in added state", of(ADDED_TO_EXISTING_CLUSTER), f -> f.host.day2(), null, f -> Post.keep()));
    r.add(rule("Refresh without timeout during reclaim stays", of(RECLAIMING, RECLAIMING_REBOOTING),
        f -> !f.statusOlderThan(config.timeouts().reclaim()), null, f -> Post.keep()));
    return r;
  }

  static final List<Rule> POOL_REFRESH = List.of(
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

  static List<Rule> progressRules(HostStage stage) {
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

  private static Post withEvent(Post p, HostFacts f, String name, EventSeverity sev, String message) {
    List<DomainEvent> events = new ArrayList<>(p.events());
    events.add(DomainEvent.host(name, sev, message, f.host, Map.of("host_name", f.host.nameForMessages())));
    return new Post(p.info(), p.effects(), events, p.rejection());
  }

  // --- post-transition helpers -------------------------------------------------------------------

  private static Post postNewHost(HostFacts f) {
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

  private static Post postReRegister(HostFacts f) {
    String version = f.event instanceof HostEvent.Register r ? r.discoveryAgentVersion() : null;
    return Post.info(INFO_DISCOVERING, new ClearDiscoveryData(version));
  }

  private static Post postRegisterDuringReboot(HostFacts f) {
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

  private static Post postMediaDisconnected(HostFacts f) {
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

  private static Post postUnbind(HostFacts f) {
    return postUnbind(f, new HostEffect[0]);
  }

  private static Post postUnbind(HostFacts f, HostEffect... more) {
    List<HostEffect> effects = new ArrayList<>(List.of(new ClearForUnbind()));
    effects.addAll(List.of(more));
    return withEvent(Post.info(INFO_UNBINDING, effects.toArray(HostEffect[]::new)), f, "host_unbind_succeeded", EventSeverity.INFO,
        "Host " + f.host.nameForMessages() + ": Successfully unbound from cluster");
  }

  private static boolean logCollectionTimedOut(HostFacts f, DomainConfig config) {
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
