package dev.rendezvous.service.domain.validation;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Every upstream host validation id, its validations_info category, and which state-machine condition
 * group it belongs to (assisted-v2-api.md §5.1). Declaration order is evaluation and output order.
 */
public enum HostValidationId {
  CONNECTED("connected", "network", Blocking.CONNECTIVITY),
  MEDIA_CONNECTED("media-connected", "network", Blocking.CONNECTIVITY),
  HAS_INVENTORY("has-inventory", "hardware", Blocking.GATE),
  HAS_MIN_CPU_CORES("has-min-cpu-cores", "hardware", Blocking.HARDWARE),
  HAS_MIN_MEMORY("has-min-memory", "hardware", Blocking.HARDWARE),
  HAS_MIN_VALID_DISKS("has-min-valid-disks", "hardware", Blocking.HARDWARE),
  MACHINE_CIDR_DEFINED("machine-cidr-defined", "network", Blocking.INPUT),
  HAS_CPU_CORES_FOR_ROLE("has-cpu-cores-for-role", "hardware", Blocking.SUFFICIENT),
  HAS_MEMORY_FOR_ROLE("has-memory-for-role", "hardware", Blocking.SUFFICIENT),
  HOSTNAME_UNIQUE("hostname-unique", "hardware", Blocking.SUFFICIENT),
  BELONGS_TO_MACHINE_CIDR("belongs-to-machine-cidr", "network", Blocking.SUFFICIENT),
  HOSTNAME_VALID("hostname-valid", "hardware", Blocking.SUFFICIENT),
  IGNITION_DOWNLOADABLE("ignition-downloadable", "network", Blocking.SUFFICIENT),
  BELONGS_TO_MAJORITY_GROUP("belongs-to-majority-group", "network", Blocking.SUFFICIENT),
  VALID_PLATFORM_NETWORK_SETTINGS("valid-platform-network-settings", "network", Blocking.SUFFICIENT),
  NTP_SYNCED("ntp-synced", "network", Blocking.NONE),
  CONTAINER_IMAGES_AVAILABLE("container-images-available", "network", Blocking.SUFFICIENT),
  SUFFICIENT_INSTALLATION_DISK_SPEED("sufficient-installation-disk-speed", "hardware", Blocking.SUFFICIENT),
  SUFFICIENT_NETWORK_LATENCY("sufficient-network-latency-requirement-for-role", "network", Blocking.SUFFICIENT),
  SUFFICIENT_PACKET_LOSS("sufficient-packet-loss-requirement-for-role", "network", Blocking.SUFFICIENT),
  HAS_DEFAULT_ROUTE("has-default-route", "network", Blocking.SUFFICIENT),
  API_DOMAIN_NAME_RESOLVED("api-domain-name-resolved-correctly", "network", Blocking.SUFFICIENT),
  API_INT_DOMAIN_NAME_RESOLVED("api-int-domain-name-resolved-correctly", "network", Blocking.SUFFICIENT),
  APPS_DOMAIN_NAME_RESOLVED("apps-domain-name-resolved-correctly", "network", Blocking.SUFFICIENT),
  COMPATIBLE_WITH_CLUSTER_PLATFORM("compatible-with-cluster-platform", "hardware", Blocking.HARDWARE),
  DNS_WILDCARD_NOT_CONFIGURED("dns-wildcard-not-configured", "network", Blocking.SUFFICIENT),
  DISK_ENCRYPTION_REQUIREMENTS("disk-encryption-requirements-satisfied", "hardware", Blocking.HARDWARE),
  NON_OVERLAPPING_SUBNETS("non-overlapping-subnets", "network", Blocking.SUFFICIENT),
  VSPHERE_DISK_UUID_ENABLED("vsphere-disk-uuid-enabled", "hardware", Blocking.VSPHERE),
  COMPATIBLE_AGENT("compatible-agent", "hardware", Blocking.SUFFICIENT),
  NO_SKIP_INSTALLATION_DISK("no-skip-installation-disk", "hardware", Blocking.SUFFICIENT),
  NO_SKIP_MISSING_DISK("no-skip-missing-disk", "hardware", Blocking.SUFFICIENT),
  NO_IP_COLLISIONS_IN_NETWORK("no-ip-collisions-in-network", "network", Blocking.SUFFICIENT),
  TIME_SYNCED("time-synced-between-host-and-service", "network", Blocking.SUFFICIENT),
  RELEASE_DOMAIN_NAME_RESOLVED("release-domain-name-resolved-correctly", "network", Blocking.NONE),
  NO_ISCSI_NIC_IN_MACHINE_CIDR("no-iscsi-nic-belongs-to-machine-cidr", "network", Blocking.SUFFICIENT),
  MTU_VALID("mtu-valid", "network", Blocking.NONE),
  INVENTORY_NOT_PARTIALLY_TRUNCATED("inventory-not-partially-truncated", "hardware", Blocking.NONE),
  INVENTORY_NOT_FULLY_TRUNCATED("inventory-not-fully-truncated", "hardware", Blocking.GATE);

  /** The condition group a validation feeds (§3 shorthands C, HW, INPUT, SUFF, VS). */
  public enum Blocking {
    CONNECTIVITY,
    GATE,
    HARDWARE,
    INPUT,
    SUFFICIENT,
    VSPHERE,
    NONE
  }

  /** Operators with a host-side {@code <name>-requirements-satisfied} validation (operators category). */
  public static final List<String> OPERATORS =
      List.of("lso", "ocs", "odf", "lvm", "mce", "mtv", "osc", "cnv", "node-feature-discovery", "nvidia-gpu",
          "pipelines", "servicemesh", "serverless", "openshift-ai", "authorino", "nmstate", "amd-gpu", "kmm",
          "node-healthcheck", "self-node-remediation", "fence-agents-remediation", "node-maintenance",
          "kube-descheduler", "cluster-observability", "numa-resources", "oadp", "metallb", "loki",
          "openshift-logging");

  /** Validations a user may not ignore. */
  public static final Set<String> NON_IGNORABLE =
      Set.of("connected", "has-inventory", "inventory-not-fully-truncated", "machine-cidr-defined",
          "hostname-unique", "hostname-valid");

  private final String id;
  private final String category;
  private final Blocking blocking;

  HostValidationId(String id, String category, Blocking blocking) {
    this.id = id;
    this.category = category;
    this.blocking = blocking;
  }

  public String id() {
    return id;
  }

  public String category() {
    return category;
  }

  public Blocking blocking() {
    return blocking;
  }

  public static Optional<HostValidationId> parse(String id) {
    for (HostValidationId v : values()) {
      if (v.id.equals(id)) {
        return Optional.of(v);
      }
    }
    return Optional.empty();
  }

  public static String operatorValidationId(String operator) {
    return operator + "-requirements-satisfied";
  }

  /** Every id a host can report, operators included, for API input checks (ignored-validations). */
  public static List<String> allIds() {
    List<String> out = new ArrayList<>();
    for (HostValidationId v : values()) {
      out.add(v.id);
    }
    OPERATORS.forEach(o -> out.add(operatorValidationId(o)));
    return Collections.unmodifiableList(out);
  }

  @Override
  public String toString() {
    return id;
  }
}
