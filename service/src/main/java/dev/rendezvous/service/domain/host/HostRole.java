package dev.rendezvous.service.domain.host;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Optional;

/** Host role; bootstrap only appears in the install step. */
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

  /** The upstream string, as it appears in JSON and in the database. */
  @JsonValue
  public String wire() {
    return wire;
  }

  public static Optional<HostRole> parse(String s) {
    for (HostRole v : values()) {
      if (v.wire.equals(s)) {
        return Optional.of(v);
      }
    }
    return Optional.empty();
  }

  @JsonCreator
  public static HostRole fromWire(String s) {
    return parse(s).orElseThrow(() -> new IllegalArgumentException("unknown HostRole: " + s));
  }

  @Override
  public String toString() {
    return wire;
  }
}
