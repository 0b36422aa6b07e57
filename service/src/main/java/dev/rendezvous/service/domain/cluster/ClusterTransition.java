package dev.rendezvous.service.domain.cluster;

import dev.rendezvous.service.domain.DomainEvent;
import dev.rendezvous.service.domain.host.HostEvent;
import dev.rendezvous.service.domain.host.HostStateMachine;
import dev.rendezvous.service.domain.host.HostTransition.Rejection;
import dev.rendezvous.service.domain.validation.ValidationsInfo;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Result of {@link ClusterStateMachine#apply}. {@code hostEvents} are the host transitions the cluster
 * action implies (cancel → every host cancelled, reset → every host resetting-pending-user-action); the
 * caller applies them with {@link HostStateMachine} in the same unit of work.
 */
public record ClusterTransition(
    ClusterStatus previousStatus,
    ClusterStatus status,
    String statusInfo,
    String rule,
    List<ClusterEffect> effects,
    List<DomainEvent> events,
    ValidationsInfo validationsInfo,
    Map<UUID, HostEvent> hostEvents,
    Rejection rejection) {

  public ClusterTransition {
    effects = List.copyOf(effects);
    events = List.copyOf(events);
    hostEvents = Map.copyOf(hostEvents);
  }

  public boolean rejected() {
    return rejection != null;
  }

  public boolean statusChanged() {
    return previousStatus != status;
  }
}
