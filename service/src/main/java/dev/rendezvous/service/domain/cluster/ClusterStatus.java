package dev.rendezvous.service.domain.cluster;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Optional;

/** Cluster status, with upstream's strings. */
public enum ClusterStatus {
  INSUFFICIENT("insufficient"),
  READY("ready"),
  ERROR("error"),
  PREPARING_FOR_INSTALLATION("preparing-for-installation"),
  PENDING_FOR_INPUT("pending-for-input"),
  INSTALLING("installing"),
  FINALIZING("finalizing"),
  INSTALLED("installed"),
  ADDING_HOSTS("adding-hosts"),
  CANCELLED("cancelled"),
  INSTALLING_PENDING_USER_ACTION("installing-pending-user-action"),
  UNMONITORED("unmonitored");

  private final String wire;

  ClusterStatus(String wire) {
    this.wire = wire;
  }

  /** The upstream string, as it appears in JSON and in the database. */
  @JsonValue
  public String wire() {
    return wire;
  }

  public static Optional<ClusterStatus> parse(String s) {
    for (ClusterStatus v : values()) {
      if (v.wire.equals(s)) {
        return Optional.of(v);
      }
    }
    return Optional.empty();
  }

  @JsonCreator
  public static ClusterStatus fromWire(String s) {
    return parse(s).orElseThrow(() -> new IllegalArgumentException("unknown ClusterStatus: " + s));
  }

  @Override
  public String toString() {
    return wire;
  }
}
