package dev.rendezvous.service.domain.planning;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Optional;

/** Step types the service sends to agents (upstream step_type enum). */
public enum StepType {
  CONNECTIVITY_CHECK("connectivity-check"),
  EXECUTE("execute"),
  INVENTORY("inventory"),
  INSTALL("install"),
  FREE_NETWORK_ADDRESSES("free-network-addresses"),
  DHCP_LEASE_ALLOCATE("dhcp-lease-allocate"),
  API_VIP_CONNECTIVITY_CHECK("api-vip-connectivity-check"),
  TANG_CONNECTIVITY_CHECK("tang-connectivity-check"),
  NTP_SYNCHRONIZER("ntp-synchronizer"),
  INSTALLATION_DISK_SPEED_CHECK("installation-disk-speed-check"),
  CONTAINER_IMAGE_AVAILABILITY("container-image-availability"),
  DOMAIN_RESOLUTION("domain-resolution"),
  STOP_INSTALLATION("stop-installation"),
  LOGS_GATHER("logs-gather"),
  NEXT_STEP_RUNNER("next-step-runner"),
  UPGRADE_AGENT("upgrade-agent"),
  DOWNLOAD_BOOT_ARTIFACTS("download-boot-artifacts"),
  REBOOT_FOR_RECLAIM("reboot-for-reclaim"),
  VERIFY_VIPS("verify-vips");

  private final String wire;

  StepType(String wire) {
    this.wire = wire;
  }

  /** The upstream string, as it appears in JSON and in the database. */
  @JsonValue
  public String wire() {
    return wire;
  }

  public static Optional<StepType> parse(String s) {
    for (StepType v : values()) {
      if (v.wire.equals(s)) {
        return Optional.of(v);
      }
    }
    return Optional.empty();
  }

  @JsonCreator
  public static StepType fromWire(String s) {
    return parse(s).orElseThrow(() -> new IllegalArgumentException("unknown StepType: " + s));
  }

  @Override
  public String toString() {
    return wire;
  }
}
