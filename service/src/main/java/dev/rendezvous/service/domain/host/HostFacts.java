package dev.rendezvous.service.domain.host;

import dev.rendezvous.service.domain.DomainConfig;
import dev.rendezvous.service.domain.cluster.ClusterContext;
import dev.rendezvous.service.domain.cluster.ClusterStatus;
import dev.rendezvous.service.domain.validation.HostValidation;
import dev.rendezvous.service.domain.validation.HostValidationId.Blocking;
import dev.rendezvous.service.domain.validation.HostValidationId;
import dev.rendezvous.service.domain.validation.HostValidator;
import java.time.Duration;
import java.time.Instant;

/** Everything a rule may look at; the validation is computed once, on demand. */
final class HostFacts {
  final HostSnapshot host;
  final ClusterContext cluster;
  final HostEvent event;
  final Instant now;
  /** The instant the host's silence is measured at (see {@link HostStateMachine.Moment}). */
  final Instant judged;
  private final DomainConfig config;
  private final HostValidator validator;
  private HostValidation validation;

  HostFacts(DomainConfig config, HostValidator validator, HostSnapshot host, ClusterContext cluster, HostEvent event,
      Instant now, Instant judged) {
    this.config = config;
    this.validator = validator;
    this.host = host;
    this.cluster = cluster;
    this.event = event;
    this.now = now;
    this.judged = judged;
  }

  HostValidation v() {
    if (validation == null) {
      validation = validator.validate(host, cluster, now, judged);
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
    return host.statusUpdatedAt() != null && Duration.between(host.statusUpdatedAt(), judged).compareTo(d) > 0;
  }

  Duration stageTimeout() {
    return config.timeouts().stageTimeout(host.stage(), cluster != null && cluster.singleNode());
  }

  boolean stageTimedOut() {
    Instant at = host.progress().stageUpdatedAt();
    return at != null && Duration.between(at, judged).compareTo(stageTimeout()) > 0;
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
