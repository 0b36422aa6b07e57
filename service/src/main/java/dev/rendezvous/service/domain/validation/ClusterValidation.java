package dev.rendezvous.service.domain.validation;

import java.util.Map;

/** Outcome of the cluster validations: validations_info and per-id condition values (ignored ones pass). */
public record ClusterValidation(ValidationsInfo info, Map<String, Boolean> conditions) {
  public ClusterValidation {
    conditions = Map.copyOf(conditions);
  }

  public boolean passes(ClusterValidationId id) {
    return conditions.getOrDefault(id.id(), false);
  }

  /** machine/cluster/service CIDRs, base domain and pull secret: what the user must still provide. */
  public boolean pendingInputComplete() {
    return passes(ClusterValidationId.MACHINE_CIDR_DEFINED) && passes(ClusterValidationId.CLUSTER_CIDR_DEFINED)
        && passes(ClusterValidationId.SERVICE_CIDR_DEFINED) && passes(ClusterValidationId.DNS_DOMAIN_DEFINED)
        && passes(ClusterValidationId.PULL_SECRET_SET);
  }

  public boolean vipsDefined() {
    return passes(ClusterValidationId.API_VIPS_DEFINED) && passes(ClusterValidationId.INGRESS_VIPS_DEFINED);
  }

  /** Upstream's "required for install" group; platform requirements do not gate. */
  public boolean requiredForInstall() {
    for (ClusterValidationId id : ClusterValidationId.values()) {
      switch (id) {
        case MACHINE_CIDR_DEFINED, CLUSTER_CIDR_DEFINED, SERVICE_CIDR_DEFINED, DNS_DOMAIN_DEFINED, PULL_SECRET_SET,
            API_VIPS_DEFINED, INGRESS_VIPS_DEFINED, PLATFORM_REQUIREMENTS -> {}
        default -> {
          if (!passes(id)) {
            return false;
          }
        }
      }
    }
    for (Map.Entry<String, Boolean> e : conditions.entrySet()) {
      if (e.getKey().endsWith("-requirements-satisfied") && !e.getKey().equals("platform-requirements-satisfied")
          && !e.getKey().equals("custom-manifests-requirements-satisfied")
          && !e.getKey().equals("openshift-ai-gpu-requirements-satisfied") && !e.getValue()) {
        return false;
      }
    }
    return true;
  }
}
