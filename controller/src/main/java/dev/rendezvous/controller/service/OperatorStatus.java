package dev.rendezvous.controller.service;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/** Upstream's monitored-operator status (models.OperatorStatus). */
public enum OperatorStatus {
  FAILED("failed"),
  PROGRESSING("progressing"),
  AVAILABLE("available");

  private final String wire;

  OperatorStatus(String wire) {
    this.wire = wire;
  }

  @JsonValue
  public String wire() {
    return wire;
  }

  /** The status with this wire string; null for an empty (not yet reported) or unknown one. */
  @JsonCreator
  public static OperatorStatus fromWire(String value) {
    if (value == null) {
      return null;
    }
    for (OperatorStatus s : values()) {
      if (s.wire.equals(value)) {
        return s;
      }
    }
    return null;
  }

  @Override
  public String toString() {
    return wire;
  }
}
