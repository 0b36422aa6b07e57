package dev.rendezvous.controller.service;

/** Upstream's host roles (models.HostRole). */
public enum HostRole {
  AUTO_ASSIGN("auto-assign"),
  MASTER("master"),
  ARBITER("arbiter"),
  WORKER("worker"),
  BOOTSTRAP("bootstrap");

  private final String wire;

  HostRole(String wire) {
    this.wire = wire;
  }

  public String wire() {
    return wire;
  }

  /** The role with this wire string; null for an empty or unknown one. */
  public static HostRole fromWire(String value) {
    if (value == null) {
      return null;
    }
    for (HostRole r : values()) {
      if (r.wire.equals(value)) {
        return r;
      }
    }
    return null;
  }

  @Override
  public String toString() {
    return wire;
  }
}
