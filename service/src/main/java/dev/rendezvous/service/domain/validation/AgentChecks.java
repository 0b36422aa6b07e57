package dev.rendezvous.service.domain.validation;

import static dev.rendezvous.service.domain.validation.ValidationStatus.FAILURE;
import static dev.rendezvous.service.domain.validation.ValidationStatus.PENDING;
import static dev.rendezvous.service.domain.validation.ValidationStatus.SUCCESS;
import static dev.rendezvous.service.domain.validation.ValidationStatus.SUCCESS_SUPPRESS_OUTPUT;

import dev.rendezvous.service.domain.planning.StepOutputs;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;

/**
 * Host validations on what the discovery agent reports about its own runtime: agent version, NTP and clock
 * synchronisation, container image pulls. Split out of {@link HostValidator}, which dispatches here.
 */
final class AgentChecks {

  private AgentChecks() {}

  static CheckOutcome compatibleAgent(HostCheckContext c) {
    if (!c.cfg().enableUpgradeAgent()) {
      return new CheckOutcome(SUCCESS, "Host agent compatibility checking is disabled");
    }
    if (dev.rendezvous.service.domain.host.AgentUpgrade.compatible(c.cfg(), c.host())) {
      return new CheckOutcome(SUCCESS, "Host agent is compatible with the service");
    }
    if (c.cfg().agentImage().equals(c.host().agentUpgradeFailed())) {
      return new CheckOutcome(FAILURE, "This host's agent (" + c.host().discoveryAgentVersion() + ") could not be "
          + "upgraded to " + c.cfg().agentImage() + " (see the host's events); restart the agent to try again");
    }
    return new CheckOutcome(FAILURE,
        "This host's agent is in the process of being upgraded to a compatible version. This might take a few minutes");
  }

  static CheckOutcome ntpSynced(HostCheckContext c) {
    List<StepOutputs.NtpSource> sources = c.host().ntpSources();
    if (sources != null && sources.stream().anyMatch(s -> "synced".equals(s.sourceState()))) {
      return new CheckOutcome(SUCCESS, "Host NTP is synced");
    }
    if (c.unbound() && (sources == null || sources.isEmpty())) {
      return new CheckOutcome(SUCCESS_SUPPRESS_OUTPUT, "");
    }
    return new CheckOutcome(FAILURE, "Host couldn't synchronize with any NTP server");
  }

  static CheckOutcome timeSynced(HostCheckContext c) {
    if (c.host().hostTimestamp() == 0) {
      return new CheckOutcome(PENDING, "Missing host time, can't determine synchronization between host and service");
    }
    Duration diff = Duration.between(Instant.ofEpochSecond(c.host().hostTimestamp()), c.now());
    String serviceTime = DateTimeFormatter.ISO_INSTANT.format(c.now().atOffset(ZoneOffset.UTC));
    if (diff.compareTo(Duration.ofMinutes(20)) > 0) {
      return new CheckOutcome(FAILURE, "Host clock is not synchronized, service time is ahead of host's at least for 20.0 "
          + "minutes, please configure an NTP server via DHCP or set clock manually. Service time: " + serviceTime);
    }
    if (diff.compareTo(Duration.ofMinutes(-60)) < 0) {
      return new CheckOutcome(FAILURE, "Host clock is not synchronized, host time is ahead of service at least for 60.0 "
          + "minutes, please configure an NTP server via DHCP or set clock manually. Service time: " + serviceTime);
    }
    return new CheckOutcome(SUCCESS, "Host clock is synchronized with service");
  }

  static CheckOutcome imagesAvailable(HostCheckContext c) {
    List<String> failed = c.host().imagesStatus().stream()
        .filter(StepOutputs.ImageAvailability::invalid).map(StepOutputs.ImageAvailability::name).toList();
    if (!failed.isEmpty()) {
      return new CheckOutcome(FAILURE, "Failed to fetch container images needed for installation from "
          + String.join(",", failed) + ". This may be due to a network hiccup. Retry to install again. If this "
          + "problem persists, check your network settings to make sure you’re not blocked.");
    }
    return new CheckOutcome(SUCCESS,
        "All required container images were either pulled successfully or no attempt was made to pull them");
  }
}
