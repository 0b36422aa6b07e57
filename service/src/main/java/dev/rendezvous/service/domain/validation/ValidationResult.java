package dev.rendezvous.service.domain.validation;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/** One entry of validations_info: {@code {"id": ..., "status": ..., "message": ...}}. */
@JsonPropertyOrder({"id", "status", "message"})
@JsonIgnoreProperties(ignoreUnknown = true)
public record ValidationResult(String id, ValidationStatus status, String message) {
  public ValidationResult {
    message = message == null ? "" : message;
  }
}
