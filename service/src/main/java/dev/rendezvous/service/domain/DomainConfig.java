package dev.rendezvous.service.domain;

import dev.rendezvous.service.domain.validation.HardwareRequirements;
import java.util.List;
import java.util.Map;
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
 * @param serviceUrl the service's public base URL (the install step names the host's Ignition URL under it)
 * @param metalImages the OS disk image each install writes, by {@link #metalImageKey(String, String)}
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
    int diskSpeedCheckTimeoutSeconds,
    int imageAvailabilityTimeoutSeconds,
    String serviceUrl,
    Map<String, MetalImage> metalImages,
    String bootstrapHostMac) {

  /** An OS disk image (raw, optionally gz/xz compressed) and the sha256 of the bytes at its URL (may be null). */
  public record MetalImage(String url, String sha256) {}

  public DomainConfig {
    disabledHostValidations = Set.copyOf(disabledHostValidations);
    requiredImages = List.copyOf(requiredImages);
    metalImages = metalImages == null ? Map.of() : Map.copyOf(metalImages);
    serviceUrl = serviceUrl == null ? "" : serviceUrl;
    bootstrapHostMac = bootstrapHostMac == null || bootstrapHostMac.isBlank() ? null
        : bootstrapHostMac.strip().toLowerCase(java.util.Locale.ROOT);
  }

  /**
   * Whether {@code mac} is the configured bootstrap host's (upstream's {@code BOOTSTRAP_HOST_MAC}: the agent-based
   * installer's rendezvous host, which runs the service, is a master and the bootstrap, so it installs last).
   */
  public boolean isBootstrapHostMac(String mac) {
    return bootstrapHostMac != null && mac != null && bootstrapHostMac.equalsIgnoreCase(mac.strip());
  }

  /** Agents upgraded to {@code version} (the service's own agent); null: no agent is upgraded (upstream's default). */
  public DomainConfig withAgentUpgrade(String version) {
    return new DomainConfig(hardware, timeouts, disabledHostValidations, version != null,
        version != null ? version : agentImage, installerImage, controllerImage, mcoImage, mustGatherImage,
        requiredImages, checkClusterVersion, releaseDomain, diskSpeedCheckTimeoutSeconds,
        imageAvailabilityTimeoutSeconds, serviceUrl, metalImages, bootstrapHostMac);
  }

  public DomainConfig withBootstrapHostMac(String mac) {
    return new DomainConfig(hardware, timeouts, disabledHostValidations, enableUpgradeAgent, agentImage, installerImage,
        controllerImage, mcoImage, mustGatherImage, requiredImages, checkClusterVersion, releaseDomain,
        diskSpeedCheckTimeoutSeconds, imageAvailabilityTimeoutSeconds, serviceUrl, metalImages, mac);
  }

  /** "major.minor/arch", as OS images are matched (a release's patch version does not matter). */
  public static String metalImageKey(String openshiftVersion, String cpuArchitecture) {
    String[] parts = openshiftVersion == null ? new String[0] : openshiftVersion.split("\\.");
    String minor = parts.length >= 2 ? parts[0] + "." + parts[1] : String.valueOf(openshiftVersion);
    String arch = cpuArchitecture == null || cpuArchitecture.equals("amd64") ? "x86_64"
        : cpuArchitecture.equals("aarch64") ? "arm64" : cpuArchitecture;
    return minor + "/" + arch;
  }

  public java.util.Optional<MetalImage> metalImage(String openshiftVersion, String cpuArchitecture) {
    return java.util.Optional.ofNullable(metalImages.get(metalImageKey(openshiftVersion, cpuArchitecture)));
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
        180,
        960,
        "",
        Map.of(),
        null);
  }

  public DomainConfig withHardware(HardwareRequirements h) {
    return new DomainConfig(h, timeouts, disabledHostValidations, enableUpgradeAgent, agentImage, installerImage,
        controllerImage, mcoImage, mustGatherImage, requiredImages, checkClusterVersion, releaseDomain,
        diskSpeedCheckTimeoutSeconds, imageAvailabilityTimeoutSeconds, serviceUrl, metalImages, bootstrapHostMac);
  }

  public DomainConfig withTimeouts(DomainTimeouts t) {
    return new DomainConfig(hardware, t, disabledHostValidations, enableUpgradeAgent, agentImage, installerImage,
        controllerImage, mcoImage, mustGatherImage, requiredImages, checkClusterVersion, releaseDomain,
        diskSpeedCheckTimeoutSeconds, imageAvailabilityTimeoutSeconds, serviceUrl, metalImages, bootstrapHostMac);
  }

  public DomainConfig withRequiredImages(List<String> images) {
    return new DomainConfig(hardware, timeouts, disabledHostValidations, enableUpgradeAgent, agentImage, installerImage,
        controllerImage, mcoImage, mustGatherImage, images, checkClusterVersion, releaseDomain,
        diskSpeedCheckTimeoutSeconds, imageAvailabilityTimeoutSeconds, serviceUrl, metalImages, bootstrapHostMac);
  }

  /** With the service URL hosts reach and the OS disk images installs write. */
  public DomainConfig withInstallSources(String url, Map<String, MetalImage> images) {
    return new DomainConfig(hardware, timeouts, disabledHostValidations, enableUpgradeAgent, agentImage, installerImage,
        controllerImage, mcoImage, mustGatherImage, requiredImages, checkClusterVersion, releaseDomain,
        diskSpeedCheckTimeoutSeconds, imageAvailabilityTimeoutSeconds, url, images, bootstrapHostMac);
  }

  /** With the controller image the install step names (the Job each cluster's bootstrap renders runs it). */
  public DomainConfig withControllerImage(String image) {
    return new DomainConfig(hardware, timeouts, disabledHostValidations, enableUpgradeAgent, agentImage, installerImage,
        image, mcoImage, mustGatherImage, requiredImages, checkClusterVersion, releaseDomain,
        diskSpeedCheckTimeoutSeconds, imageAvailabilityTimeoutSeconds, serviceUrl, metalImages, bootstrapHostMac);
  }

  public DomainConfig withDisabledHostValidations(Set<String> ids) {
    return new DomainConfig(hardware, timeouts, ids, enableUpgradeAgent, agentImage, installerImage,
        controllerImage, mcoImage, mustGatherImage, requiredImages, checkClusterVersion, releaseDomain,
        diskSpeedCheckTimeoutSeconds, imageAvailabilityTimeoutSeconds, serviceUrl, metalImages, bootstrapHostMac);
  }
}
