package dev.rendezvous.image;

import io.vertx.core.Future;
import java.util.Optional;

/**
 * Supplies an infra-env's image inputs; implemented by the launcher on top of the service.
 * Must not block the calling event loop.
 */
public interface InfraEnvImageSource {

  /**
   * @param infraEnvId the requested infra-env (a lowercase UUID)
   * @param credential what the client presented; the source decides whether it is enough
   * @param type the image type requested, empty for the PXE initrd (the infra-env's own type applies)
   * @return empty when the infra-env is unknown (answered 404); a failed future with an
   *     {@link ImageRequestException} to answer with its status (for example 401/403)
   */
  Future<Optional<InfraEnvImage>> lookup(String infraEnvId, ImageCredential credential, Optional<ImageType> type);
}
