package dev.rendezvous.service.domain.validation;

import java.util.Set;

/** Upstream cluster validation ids and categories (assisted-v2-api.md §5.3), in evaluation order. */
public enum ClusterValidationId {
  MACHINE_CIDR_DEFINED("machine-cidr-defined", "network"),
  CLUSTER_CIDR_DEFINED("cluster-cidr-defined", "network"),
  SERVICE_CIDR_DEFINED("service-cidr-defined", "network"),
  NO_CIDRS_OVERLAPPING("no-cidrs-overlapping", "network"),
  NETWORKS_SAME_ADDRESS_FAMILIES("networks-same-address-families", "network"),
  NETWORK_PREFIX_VALID("network-prefix-valid", "network"),
  MACHINE_CIDR_EQUALS_TO_CALCULATED_CIDR("machine-cidr-equals-to-calculated-cidr", "network"),
  API_VIPS_DEFINED("api-vips-defined", "network"),
  API_VIPS_VALID("api-vips-valid", "network"),
  INGRESS_VIPS_DEFINED("ingress-vips-defined", "network"),
  INGRESS_VIPS_VALID("ingress-vips-valid", "network"),
  ALL_HOSTS_ARE_READY_TO_INSTALL("all-hosts-are-ready-to-install", "hosts-data"),
  SUFFICIENT_MASTERS_COUNT("sufficient-masters-count", "hosts-data"),
  DNS_DOMAIN_DEFINED("dns-domain-defined", "network"),
  PULL_SECRET_SET("pull-secret-set", "configuration"),
  NTP_SERVER_CONFIGURED("ntp-server-configured", "network"),
  NETWORK_TYPE_VALID("network-type-valid", "network"),
  CUSTOM_MANIFESTS_REQUIREMENTS("custom-manifests-requirements-satisfied", "network"),
  PLATFORM_REQUIREMENTS("platform-requirements-satisfied", "configuration");

  /** Validations a user may not ignore. */
  public static final Set<String> NON_IGNORABLE =
      Set.of("api-vips-defined", "ingress-vips-defined", "all-hosts-are-ready-to-install",
          "sufficient-masters-count", "pull-secret-set");

  private final String id;
  private final String category;

  ClusterValidationId(String id, String category) {
    this.id = id;
    this.category = category;
  }

  public String id() {
    return id;
  }

  public String category() {
    return category;
  }

  @Override
  public String toString() {
    return id;
  }
}
