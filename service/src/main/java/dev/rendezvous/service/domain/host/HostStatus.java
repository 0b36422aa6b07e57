package dev.rendezvous.service.domain.host;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Optional;

/** Host status, with upstream's 28 strings (assisted-v2-api.md section 2). */
public enum HostStatus {
  DISCOVERING("discovering"),
  KNOWN("known"),
  DISCONNECTED("disconnected"),
  INSUFFICIENT("insufficient"),
  DISABLED("disabled"),
  PREPARING_FOR_INSTALLATION("preparing-for-installation"),
  PREPARING_FAILED("preparing-failed"),
  PREPARING_SUCCESSFUL("preparing-successful"),
  PENDING_FOR_INPUT("pending-for-input"),
  INSTALLING("installing"),
  INSTALLING_IN_PROGRESS("installing-in-progress"),
  INSTALLING_PENDING_USER_ACTION("installing-pending-user-action"),
  RESETTING_PENDING_USER_ACTION("resetting-pending-user-action"),
  INSTALLED("installed"),
  ERROR("error"),
  RESETTING("resetting"),
  ADDED_TO_EXISTING_CLUSTER("added-to-existing-cluster"),
  CANCELLED("cancelled"),
  BINDING("binding"),
  UNBINDING("unbinding"),
  UNBINDING_PENDING_USER_ACTION("unbinding-pending-user-action"),
  KNOWN_UNBOUND("known-unbound"),
  DISCONNECTED_UNBOUND("disconnected-unbound"),
  INSUFFICIENT_UNBOUND("insufficient-unbound"),
  DISABLED_UNBOUND("disabled-unbound"),
  DISCOVERING_UNBOUND("discovering-unbound"),
  RECLAIMING("reclaiming"),
  RECLAIMING_REBOOTING("reclaiming-rebooting");

  private final String wire;

  HostStatus(String wire) {
    this.wire = wire;
  }

  /** The upstream string, as it appears in JSON and in the database. */
  @JsonValue
  public String wire() {
    return wire;
  }

  public static Optional<HostStatus> parse(String s) {
    for (HostStatus v : values()) {
      if (v.wire.equals(s)) {
        return Optional.of(v);
      }
    }
    return Optional.empty();
  }

  @JsonCreator
  public static HostStatus fromWire(String s) {
    return parse(s).orElseThrow(() -> new IllegalArgumentException("unknown HostStatus: " + s));
  }

  @Override
  public String toString() {
    return wire;
  }
}
