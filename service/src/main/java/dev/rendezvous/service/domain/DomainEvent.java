package dev.rendezvous.service.domain;

import dev.rendezvous.service.domain.host.HostSnapshot;
import java.util.Map;
import java.util.UUID;

/**
 * An event the domain asks the adapters to record (events table + events topic), named as upstream's
 * docs/events.yaml. The time is the {@code now} the domain function was called with.
 */
public record DomainEvent(
    String name,
    EventSeverity severity,
    String message,
    UUID clusterId,
    UUID hostId,
    UUID infraEnvId,
    Map<String, String> props) {

  public DomainEvent {
    props = props == null ? Map.of() : Map.copyOf(props);
  }

  public static DomainEvent host(
      String name, EventSeverity severity, String message, HostSnapshot host, Map<String, String> props) {
    return new DomainEvent(name, severity, message, host.clusterId(), host.id(), host.infraEnvId(), props);
  }

  public static DomainEvent cluster(String name, EventSeverity severity, String message, UUID clusterId, Map<String, String> props) {
    return new DomainEvent(name, severity, message, clusterId, null, null, props);
  }
}
