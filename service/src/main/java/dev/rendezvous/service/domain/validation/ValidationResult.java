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
}
