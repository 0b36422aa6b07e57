package dev.rendezvous.service.domain;

import dev.rendezvous.service.domain.validation.HardwareRequirements;
import java.util.List;
import java.util.Set;

/**
 * Everything the pure domain is configured with. The service module's configuration record builds one
 * from flags/RDV_* variables; {@link #defaults()} gives upstream's values.
 *
 * @param disabledHostValidations ids reported as {@code disabled} (upstream DISABLED_HOST_VALIDATIONS)
 * @param enableUpgradeAgent whether compatible-agent compares agent images (upstream ENABLE_UPGRADE_AGENT)
 * @param requiredImages images the container-image-availability step checks before install (release, MCO,
 *     must-gather, installer)
 * @param releaseDomain registry host the domain-resolution step also resolves (empty: none)
 */
public record DomainConfig(
    HardwareRequirements hardware,
    DomainTimeouts timeouts,
    Set<String> disabledHostValidations,
    boolean enableUpgradeAgent,
    String agentImage,
    String installerImage,
    String controllerImage,
    String mcoImage,
    String mustGatherImage,
    List<String> requiredImages,
    boolean checkClusterVersion,
    String releaseDomain,
    String bootArtifactsBaseUrl,
    int diskSpeedCheckTimeoutSeconds,
    int imageAvailabilityTimeoutSeconds) {

  public DomainConfig {
    disabledHostValidations = Set.copyOf(disabledHostValidations);
    requiredImages = List.copyOf(requiredImages);
  }

  public static DomainConfig defaults() {
    return new DomainConfig(
        HardwareRequirements.defaults(),
        DomainTimeouts.defaults(),
        Set.of(),
        false,
        "quay.io/edge-infrastructure/assisted-installer-agent:latest",
        "quay.io/edge-infrastructure/assisted-installer:latest",
        "quay.io/edge-infrastructure/assisted-installer-controller:latest",
        "",
        "",
        List.of(),
        true,
        "",
        "",
        180,
        960);
  }

  public DomainConfig withHardware(HardwareRequirements h) {
    return new DomainConfig(h, timeouts, disabledHostValidations, enableUpgradeAgent, agentImage, installerImage,
        controllerImage, mcoImage, mustGatherImage, requiredImages, checkClusterVersion, releaseDomain,
        bootArtifactsBaseUrl, diskSpeedCheckTimeoutSeconds, imageAvailabilityTimeoutSeconds);
  }

  public DomainConfig withTimeouts(DomainTimeouts t) {
    return new DomainConfig(hardware, t, disabledHostValidations, enableUpgradeAgent, agentImage, installerImage,
        controllerImage, mcoImage, mustGatherImage, requiredImages, checkClusterVersion, releaseDomain,
        bootArtifactsBaseUrl, diskSpeedCheckTimeoutSeconds, imageAvailabilityTimeoutSeconds);
  }

  public DomainConfig withRequiredImages(List<String> images) {
    return new DomainConfig(hardware, timeouts, disabledHostValidations, enableUpgradeAgent, agentImage, installerImage,
        controllerImage, mcoImage, mustGatherImage, images, checkClusterVersion, releaseDomain,
        bootArtifactsBaseUrl, diskSpeedCheckTimeoutSeconds, imageAvailabilityTimeoutSeconds);
  }

  public DomainConfig withDisabledHostValidations(Set<String> ids) {
    return new DomainConfig(hardware, timeouts, ids, enableUpgradeAgent, agentImage, installerImage,
        controllerImage, mcoImage, mustGatherImage, requiredImages, checkClusterVersion, releaseDomain,
        bootArtifactsBaseUrl, diskSpeedCheckTimeoutSeconds, imageAvailabilityTimeoutSeconds);
  }
}
