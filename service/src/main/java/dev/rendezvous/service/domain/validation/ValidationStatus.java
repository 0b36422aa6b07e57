package dev.rendezvous.service.domain.validation;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/** Validation outcome, upstream strings. {@code success-suppress-output} passes but is never written out. */
public enum ValidationStatus {
  SUCCESS("success"),
  SUCCESS_SUPPRESS_OUTPUT("success-suppress-output"),
  FAILURE("failure"),
  PENDING("pending"),
  ERROR("error"),
  DISABLED("disabled");

  private final String wire;

  ValidationStatus(String wire) {
    this.wire = wire;
  }

  @JsonValue
  public String wire() {
    return wire;
  }

  @JsonCreator
  public static ValidationStatus fromWire(String s) {
    for (ValidationStatus v : values()) {
      if (v.wire.equals(s)) {
        return v;
      }
    }
    throw new IllegalArgumentException("unknown validation status: " + s);
  }

  /** What a state-machine condition sees: success, suppressed success and disabled all count as passing. */
  public boolean passes() {
    return this == SUCCESS || this == SUCCESS_SUPPRESS_OUTPUT || this == DISABLED;
  }

  @Override
  public String toString() {
    return wire;
  }
}
