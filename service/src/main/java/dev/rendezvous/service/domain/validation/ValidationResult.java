package dev.rendezvous.service.domain.validation;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/** One entry of validations_info: {@code {"id": ..., "status": ..., "message": ...}}. */
@JsonPropertyOrder({"id", "status", "message"})
@JsonIgnoreProperties(ignoreUnknown = true)
public record ValidationResult(String id, ValidationStatus status, String message) {
  public ValidationResult {
    id = dev.rendezvous.service.domain.SharedText.of(id);
    message = message == null ? "" : dev.rendezvous.service.domain.SharedText.of(message); // mostly the same per host
  }

  // written out: the generated ones go through method handles, and every host refresh compares ~60 results at least
  // twice (with the host's previous document, and in the shared instances' tables)
  @Override
  public boolean equals(Object o) {
    return o == this || (o instanceof ValidationResult r && status == r.status
        && java.util.Objects.equals(id, r.id) && message.equals(r.message));
  }

  @Override
  public int hashCode() {
    return (java.util.Objects.hashCode(id) * 31 + status.hashCode()) * 31 + message.hashCode();
  }
}
