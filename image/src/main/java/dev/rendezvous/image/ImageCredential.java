package dev.rendezvous.image;

/**
 * What the client presented to download an image, passed through untouched to the
 * {@link InfraEnvImageSource}, which decides (the image service does not authorize by itself).
 */
public record ImageCredential(Kind kind, String value) {

  /** Where the credential came from (upstream: api_key, image_token / Image-Token, Authorization). */
  public enum Kind { NONE, API_KEY, IMAGE_TOKEN, AUTHORIZATION }

  public static final ImageCredential NONE = new ImageCredential(Kind.NONE, null);
}
