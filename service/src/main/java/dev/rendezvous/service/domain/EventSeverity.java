package dev.rendezvous.service.domain;

import com.fasterxml.jackson.annotation.JsonValue;

/** Event severity with upstream's strings. */
public enum EventSeverity {
  INFO("info"),
  WARNING("warning"),
  ERROR("error"),
  CRITICAL("critical");

  private final String wire;

  EventSeverity(String wire) {
    this.wire = wire;
  }

  @JsonValue
  public String wire() {
    return wire;
  }

  @Override
  public String toString() {
    return wire;
  }
}
