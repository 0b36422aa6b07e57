package dev.rendezvous.service.domain.validation;

import dev.rendezvous.service.domain.DomainEvent;
import dev.rendezvous.service.domain.EventSeverity;
import dev.rendezvous.service.domain.host.HostSnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * Failed/fixed events from comparing the stored validations_info with a new one (upstream
 * reportValidationStatusChanged): an event only when a validation that already had a status moves into
 * failure (from anything else) or from failure back to success. Other changes are internal only.
 */
public final class ValidationChanges {
  private ValidationChanges() {}

  public static List<DomainEvent> forHost(HostSnapshot host, ValidationsInfo previous, ValidationsInfo current) {
    List<DomainEvent> out = new ArrayList<>();
    for (Change ch : changes(previous, current)) {
      String name = host.nameForMessages();
      if (ch.now() == ValidationStatus.FAILURE) {
        String failure = ch.before() == ValidationStatus.SUCCESS ? "that used to succeed is now failing" : "failed";
        out.add(DomainEvent.host("host_validation_failed", EventSeverity.WARNING,
            "Host " + name + ": validation '" + ch.id() + "' " + failure, host,
            Map.of("host_name", name, "validation_id", ch.id(), "failure_message", failure)));
      } else {
        out.add(DomainEvent.host("host_validation_fixed", EventSeverity.INFO,
            "Host " + name + ": validation '" + ch.id() + "' is now fixed", host,
            Map.of("host_name", name, "validation_id", ch.id())));
      }
    }
    return out;
  }

  public static List<DomainEvent> forCluster(UUID clusterId, ValidationsInfo previous, ValidationsInfo current) {
    List<DomainEvent> out = new ArrayList<>();
    for (Change ch : changes(previous, current)) {
      if (ch.now() == ValidationStatus.FAILURE) {
        String failure = ch.before() == ValidationStatus.SUCCESS ? "that used to succeed is now failing" : "failed";
        out.add(DomainEvent.cluster("cluster_validation_failed", EventSeverity.WARNING,
            "Cluster validation '" + ch.id() + "' " + failure, clusterId,
            Map.of("validation_id", ch.id(), "validation_msg", ch.message(), "failure_message", failure)));
      } else {
        out.add(DomainEvent.cluster("cluster_validation_fixed", EventSeverity.INFO,
            "Cluster validation '" + ch.id() + "' is now fixed", clusterId,
            Map.of("validation_id", ch.id(), "validation_msg", ch.message())));
      }
    }
    return out;
  }

  private record Change(String id, ValidationStatus before, ValidationStatus now, String message) {}

  private static List<Change> changes(ValidationsInfo previous, ValidationsInfo current) {
    List<Change> out = new ArrayList<>();
    if (previous == null) {
      return out;
    }
    Map<String, ValidationResult> previousById = new java.util.HashMap<>();
    previous.all().forEach(r -> previousById.put(r.id(), r));
    for (ValidationResult r : current.all()) {
      Optional<ValidationResult> before = Optional.ofNullable(previousById.get(r.id()));
      if (before.isEmpty()) {
        continue;
      }
      ValidationStatus b = before.get().status();
      if (r.status() == ValidationStatus.FAILURE && b != ValidationStatus.FAILURE) {
        out.add(new Change(r.id(), b, r.status(), r.message()));
      } else if (r.status() == ValidationStatus.SUCCESS && b == ValidationStatus.FAILURE) {
        out.add(new Change(r.id(), b, r.status(), r.message()));
      }
    }
    return out;
  }
}
