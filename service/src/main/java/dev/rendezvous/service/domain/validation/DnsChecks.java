package dev.rendezvous.service.domain.validation;

import static dev.rendezvous.service.domain.validation.ValidationStatus.ERROR;
import static dev.rendezvous.service.domain.validation.ValidationStatus.FAILURE;
import static dev.rendezvous.service.domain.validation.ValidationStatus.PENDING;
import static dev.rendezvous.service.domain.validation.ValidationStatus.SUCCESS;
import static dev.rendezvous.service.domain.validation.ValidationStatus.SUCCESS_SUPPRESS_OUTPUT;

import dev.rendezvous.service.domain.Cidr;
import dev.rendezvous.service.domain.host.HostSnapshot;
import dev.rendezvous.service.domain.planning.StepOutputs;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Host validations on DNS resolution: the cluster's api, api-int and apps domains, the wildcard check and the
 * release image domain. Split out of {@link HostValidator}, which dispatches here.
 */
final class DnsChecks {

  private DnsChecks() {}

  /** Null: resolution must be checked; otherwise the status to return without checking. */
  private static ValidationStatus dnsValidationShortcut(HostCheckContext c) {
    boolean managed = !c.cluster().userManagedNetworking();
    if (managed) {
      return SUCCESS;
    }
    if (!c.cluster().day2() && c.cluster().singleNode()) {
      return SUCCESS; // day-1 SNO: the dnsmasq configuration on the node provides the records
    }
    if (c.cluster().baseDnsDomain() == null || c.cluster().baseDnsDomain().isEmpty()) {
      return ERROR;
    }
    return null;
  }

  static CheckOutcome domainResolved(HostCheckContext c, String prefix, String target) {
    if (c.unbound()) {
      return new CheckOutcome(SUCCESS_SUPPRESS_OUTPUT, "");
    }
    String domain = c.domain(prefix);
    String printed = prefix.startsWith("console-openshift-console.apps") ? c.domain("*.apps") : domain;
    ValidationStatus st = dnsValidationShortcut(c);
    if (st == null) {
      st = checkResolution(c, domain);
    }
    boolean noBase = c.cluster().baseDnsDomain() == null || c.cluster().baseDnsDomain().isEmpty();
    return switch (st) {
      case SUCCESS -> new CheckOutcome(SUCCESS, "Domain name resolution for the " + (noBase ? target : printed)
          + " domain was successful or not required");
      case PENDING -> new CheckOutcome(PENDING, "DNS validation for the " + (noBase ? target : printed)
          + " domain cannot be completed at the moment. This could be due to other validations");
      case ERROR -> new CheckOutcome(ERROR, noBase
          ? "DNS validation for the " + target + " domain cannot be completed because the cluster does not have "
              + "base_dns_domain set. Please update the cluster with the correct base_dns_domain"
          : "Error while evaluating DNS resolution on this host");
      default -> {
        Optional<String> own = resolvesToOwnAddress(c, domain);
        if (own.isPresent()) {
          yield new CheckOutcome(FAILURE, "Domain " + printed + " must not point at " + own.get() + " as it is the API "
              + "address of this host. This domain must instead point at the IP address of a load balancer when "
              + "using user managed networking in a multi control-plane node cluster");
        }
        yield new CheckOutcome(FAILURE, "Couldn't resolve domain name " + printed + " on the host. To continue "
            + "installation, create the necessary DNS entries to resolve this domain name to your cluster's "
            + target + " IP address");
      }
    };
  }

  private static Optional<StepOutputs.Resolution> firstResolution(HostSnapshot h, String domain) {
    if (h.domainResolutions() == null) {
      return Optional.empty();
    }
    return h.domainResolutions().resolutions().stream()
        .filter(r -> domain.equals(r.domainName()) && r.resolved()).findFirst();
  }

  private static ValidationStatus checkResolution(HostCheckContext c, String domain) {
    if (c.host().domainResolutions() == null) {
      return ERROR;
    }
    Optional<StepOutputs.Resolution> r = firstResolution(c.host(), domain);
    if (r.isEmpty()) {
      return FAILURE;
    }
    return resolvesToOwnAddress(c, domain).isPresent() ? FAILURE : SUCCESS;
  }

  private static Optional<String> resolvesToOwnAddress(HostCheckContext c, String domain) {
    Optional<StepOutputs.Resolution> r = firstResolution(c.host(), domain);
    if (r.isEmpty() || c.inventory() == null) {
      return Optional.empty();
    }
    List<String> own = c.inventory().allCidrAddresses().stream()
        .map(Cidr::parse).flatMap(Optional::stream).map(Cidr::addressString).toList();
    List<String> resolved = new ArrayList<>(r.get().ipv4Addresses());
    resolved.addAll(r.get().ipv6Addresses());
    return resolved.stream()
        .filter(a -> own.contains(Cidr.parse(a).map(Cidr::addressString).orElse(a))).findFirst();
  }

  static CheckOutcome dnsWildcard(HostCheckContext c) {
    if (c.unbound()) {
      return new CheckOutcome(SUCCESS_SUPPRESS_OUTPUT, "");
    }
    if (c.host().day2()) {
      return new CheckOutcome(SUCCESS, "DNS wildcard check is not required for day2");
    }
    if (c.host().domainResolutions() == null) {
      return new CheckOutcome(PENDING,
          "DNS wildcard check cannot be performed yet because the host has not yet performed DNS resolution");
    }
    String name = c.domain("validateNoWildcardDNS");
    for (StepOutputs.Resolution r : c.host().domainResolutions().resolutions()) {
      if (name.equals(r.domainName()) && !r.resolved()) {
        return new CheckOutcome(SUCCESS, "DNS wildcard check was successful");
      }
    }
    return new CheckOutcome(FAILURE, String.format("DNS wildcard configuration was detected for domain *.%s.%s The "
        + "installation will not be able to complete while the entry exists. Please remove it to proceed.",
        c.cluster().name(), c.cluster().baseDnsDomain()));
  }

  static CheckOutcome releaseDomain(HostCheckContext c) {
    String domain = c.cfg().releaseDomain();
    if (c.unbound() || domain == null || domain.isEmpty()) {
      return new CheckOutcome(SUCCESS_SUPPRESS_OUTPUT, "");
    }
    if (c.host().domainResolutions() == null) {
      return new CheckOutcome(PENDING, "DNS validation for the " + domain
          + " domain cannot be completed at the moment. This could be due to other validations");
    }
    if (firstResolution(c.host(), domain).isPresent()) {
      return new CheckOutcome(SUCCESS, "Domain name resolution for the " + domain + " domain was successful or not required");
    }
    return new CheckOutcome(FAILURE, "Couldn't resolve domain name " + domain + " on the host. To continue installation, "
        + "create the necessary DNS entries to resolve this domain name to your release image registry");
  }
}
