package dev.rendezvous.controller.service;

import com.fasterxml.jackson.annotation.JsonValue;

/** Upstream's logs progress state (models.LogsState). */
public enum LogsState {
  REQUESTED("requested"),
  COLLECTING("collecting"),
  COMPLETED("completed"),
  TIMEOUT("timeout");

  private final String wire;

  LogsState(String wire) {
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
