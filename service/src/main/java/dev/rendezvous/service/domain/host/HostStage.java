package dev.rendezvous.service.domain.host;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Optional;

/** Host installation stages (human-readable upstream strings). */
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

  /** The upstream string, as it appears in JSON and in the database. */
  @JsonValue
  public String wire() {
    return wire;
  }

  public static Optional<HostStage> parse(String s) {
    for (HostStage v : values()) {
      if (v.wire.equals(s)) {
        return Optional.of(v);
      }
    }
    return Optional.empty();
  }

  @JsonCreator
  public static HostStage fromWire(String s) {
    return parse(s).orElseThrow(() -> new IllegalArgumentException("unknown HostStage: " + s));
  }

  @Override
  public String toString() {
    return wire;
  }
}
