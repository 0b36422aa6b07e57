package dev.rendezvous.agent.wire;

/** Upstream step_type strings the agent acts on (the agent keeps its own copy: it ships alone). */
public final class StepTypes {
  public static final String INVENTORY = "inventory";
  public static final String CONNECTIVITY_CHECK = "connectivity-check";
  public static final String FREE_NETWORK_ADDRESSES = "free-network-addresses";
  public static final String NTP_SYNCHRONIZER = "ntp-synchronizer";
  public static final String DOMAIN_RESOLUTION = "domain-resolution";
  public static final String INSTALLATION_DISK_SPEED_CHECK = "installation-disk-speed-check";
  public static final String CONTAINER_IMAGE_AVAILABILITY = "container-image-availability";
  public static final String LOGS_GATHER = "logs-gather";
  public static final String STOP_INSTALLATION = "stop-installation";
  public static final String INSTALL = "install";
  public static final String TANG_CONNECTIVITY_CHECK = "tang-connectivity-check";
  public static final String API_VIP_CONNECTIVITY_CHECK = "api-vip-connectivity-check";
  public static final String VERIFY_VIPS = "verify-vips";
  public static final String DHCP_LEASE_ALLOCATE = "dhcp-lease-allocate";
  public static final String UPGRADE_AGENT = "upgrade-agent";
  public static final String DOWNLOAD_BOOT_ARTIFACTS = "download-boot-artifacts";
  public static final String REBOOT_FOR_RECLAIM = "reboot-for-reclaim";

  private StepTypes() {}
}
