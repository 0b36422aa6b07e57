package dev.rendezvous.service.domain.host;

import dev.rendezvous.service.domain.DomainEvent;
import dev.rendezvous.service.domain.validation.ValidationsInfo;
import java.util.List;

/**
 * Result of {@link HostStateMachine#apply}: the new status and status_info, the effects on the row, the
 * events to record, the new validations_info (refreshes only, else null) and, when the event is not
 * accepted in this state, a rejection carrying the HTTP status the API should answer with.
 */
public record HostTransition(
    HostStatus previousStatus,
    HostStatus status,
    String statusInfo,
    String rule,
    List<HostEffect> effects,
    List<DomainEvent> events,
    ValidationsInfo validationsInfo,
    Rejection rejection) {

  /** Why an event was refused: {@code httpStatus} 400/403/409 and the message for the API error body. */
  public record Rejection(int httpStatus, String message) {}

  public HostTransition {
    effects = List.copyOf(effects);
    events = List.copyOf(events);
  }

  public boolean rejected() {
    return rejection != null;
  }

  public boolean statusChanged() {
    return previousStatus != status;
  }

  public <T extends HostEffect> java.util.Optional<T> effect(Class<T> type) {
    return effects.stream().filter(type::isInstance).map(type::cast).findFirst();
  }
}
