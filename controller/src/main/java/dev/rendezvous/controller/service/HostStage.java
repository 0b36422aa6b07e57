package dev.rendezvous.controller.service;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/** Upstream's host installation stages (models.HostStage), with their wire strings. */
public enum HostStage {
  STARTING_INSTALLATION("Starting installation"),
  WAITING_FOR_CONTROL_PLANE("Waiting for control plane"),
  WAITING_FOR_BOOTKUBE("Waiting for bootkube"),
  WAITING_FOR_CONTROLLER("Waiting for controller"),
  INSTALLING("Installing"),
  WRITING_IMAGE_TO_DISK("Writing image to disk"),
  COPYING_REGISTRY_DATA_TO_DISK("Copying registry data to disk"),
  REBOOTING("Rebooting"),
  WAITING_FOR_IGNITION("Waiting for ignition"),
  CONFIGURING("Configuring"),
  JOINED("Joined"),
  DONE("Done"),
  FAILED("Failed");

  private final String wire;

  HostStage(String wire) {
    this.wire = wire;
  }

  @JsonValue
  public String wire() {
    return wire;
  }

  /** The stage with this wire string; null for an empty or unknown one (a newer service may add stages). */
  @JsonCreator
  public static HostStage fromWire(String value) {
    if (value == null) {
      return null;
    }
    for (HostStage s : values()) {
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
