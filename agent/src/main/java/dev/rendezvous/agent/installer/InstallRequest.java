package dev.rendezvous.agent.installer;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.io.IOException;
import java.util.List;

/**
 * args[0] of the {@code install} step: upstream's InstallCmdRequest (the fields the installer uses, the controller's
 * image among them: the Job the bootstrap renders names it) and ours
 * ({@code metal_image_url}, {@code metal_image_sha256}, {@code ignition_url}, {@code hand_over_hosts}). Unknown fields are ignored, so a
 * newer service's additions do not break an older agent.
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
@JsonIgnoreProperties(ignoreUnknown = true)
public record InstallRequest(
    String clusterId,
    String infraEnvId,
    String hostId,
    String role,
    String bootDevice,
    String controllerImage,
    Integer controlPlaneCount,
    Boolean checkCvo,
    String openshiftVersion,
    List<String> installerArgs,
    List<String> disksToFormat,
    String metalImageUrl,
    String metalImageSha256,
    String ignitionUrl,
    Boolean handOverHosts) {

  private static final ObjectMapper JSON = new ObjectMapper()
      .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  /** Parses args[0]; a request without its ids or role is refused with what is missing. */
  public static InstallRequest parse(String json) {
    InstallRequest r;
    try {
      r = JSON.readValue(json, InstallRequest.class);
    } catch (IOException e) {
      throw new IllegalArgumentException("install request is not valid JSON: " + e.getMessage(), e);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("install request unreadable: " + e.getMessage(), e);
    }
    if (r == null || blank(r.clusterId()) || blank(r.infraEnvId()) || blank(r.hostId()) || blank(r.role())) {
      throw new IllegalArgumentException("install request needs cluster_id, infra_env_id, host_id and role");
    }
    return r;
  }

  private static boolean blank(String s) {
    return s == null || s.isBlank();
  }

  /**
   * The image the controller's Job names: the service's ({@code controller_image}; by digest when the service knows
   * the one this build made, see docs/containers.md), else {@code fallback} (an older service sends none).
   */
  public String controllerImageOr(String fallback) {
    return blank(controllerImage) ? fallback : controllerImage.strip();
  }

  public boolean bootstrap() {
    return "bootstrap".equals(role);
  }

  public boolean singleNode() {
    return controlPlaneCount != null && controlPlaneCount == 1;
  }

  /** The role the host ends up with: the bootstrap is a master once it pivots. */
  public String finalRole() {
    return bootstrap() ? "master" : role;
  }
}
