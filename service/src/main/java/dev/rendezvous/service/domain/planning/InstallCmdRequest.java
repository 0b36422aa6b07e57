package dev.rendezvous.service.domain.planning;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.util.List;
import java.util.UUID;

/**
 * args[0] of the {@code install} step (upstream models.InstallCmdRequest); null fields are left out. Our extensions,
 * ignored by upstream's installer: {@code metal_image_url} and {@code metal_image_sha256} (the OS disk image the
 * installer writes, since no coreos-installer with its embedded image runs here), {@code ignition_url} (where the
 * host's Ignition is served) and {@code hand_over_hosts} (an agent-based site's service: it is gone once the
 * bootstrap reboots, so the bootstrap puts the host list into the controller's Job).
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record InstallCmdRequest(
    UUID clusterId,
    UUID infraEnvId,
    UUID hostId,
    String role,
    String bootDevice,
    String controllerImage,
    String installerImage,
    Integer controlPlaneCount,
    Boolean checkCvo,
    String mcoImage,
    String mustGatherImage,
    String openshiftVersion,
    List<String> installerArgs,
    Boolean skipInstallationDiskCleanup,
    List<String> disksToFormat,
    Proxy proxy,
    Boolean enableSkipMcoReboot,
    Boolean notifyNumReboots,
    String coreosImage,
    String metalImageUrl,
    String metalImageSha256,
    String ignitionUrl,
    Boolean handOverHosts) {

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record Proxy(String httpProxy, String httpsProxy, String noProxy) {}
}
