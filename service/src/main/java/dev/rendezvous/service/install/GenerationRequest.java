package dev.rendezvous.service.install;

import java.util.List;
import java.util.UUID;

/**
 * One cluster's generation: its identity and release, the install-config (input and rendered YAML, overrides
 * merged) and the user's custom manifests.
 */
public record GenerationRequest(
    UUID clusterId,
    String openshiftVersion,
    String releaseImage,
    InstallConfigInput config,
    String installConfigYaml,
    List<Manifest> manifests) {

  /** A custom manifest: {@code folder} manifests or openshift, its file name and YAML content. */
  public record Manifest(String folder, String fileName, String content) {}

  public GenerationRequest {
    manifests = List.copyOf(manifests);
  }
}
