package dev.rendezvous.image;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * What the image service needs to know about one infra-env to serve its images.
 *
 * @param infraEnvId the infra-env id
 * @param ignition the discovery Ignition config, already generated (JSON bytes)
 * @param openshiftVersion default version when the request names none
 * @param cpuArchitecture default architecture when the request names none (x86_64, aarch64, ...)
 * @param imageType default image type when the request names none
 * @param kernelArguments extra kernel arguments to append (upstream "append" operations)
 * @param updatedAt when any of this last changed: Last-Modified and part of the ETag
 * @param minimalInitrd optional ramdisk (gzip cpio) for the minimal ISO's custom area and the PXE
 *     initrd (static network, proxy for the rootfs fetch); empty when none
 */
public record InfraEnvImage(
    String infraEnvId,
    byte[] ignition,
    String openshiftVersion,
    String cpuArchitecture,
    ImageType imageType,
    List<String> kernelArguments,
    Instant updatedAt,
    byte[] minimalInitrd) {

  public InfraEnvImage {
    Objects.requireNonNull(infraEnvId, "infraEnvId");
    Objects.requireNonNull(ignition, "ignition");
    Objects.requireNonNull(updatedAt, "updatedAt");
    ignition = ignition.clone();
    kernelArguments = kernelArguments == null ? List.of() : List.copyOf(kernelArguments);
    minimalInitrd = minimalInitrd == null ? new byte[0] : minimalInitrd.clone();
    imageType = imageType == null ? ImageType.FULL_ISO : imageType;
  }

  @Override
  public byte[] ignition() {
    return ignition.clone();
  }

  @Override
  public byte[] minimalInitrd() {
    return minimalInitrd.clone();
  }
}
