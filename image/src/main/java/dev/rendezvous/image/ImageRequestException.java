package dev.rendezvous.image;

/** A request the image service refuses, with the HTTP status and the parameter at fault. */
public final class ImageRequestException extends RuntimeException {

  private final int status;
  private final String parameter;

  public ImageRequestException(int status, String parameter, String reason) {
    super(reason);
    this.status = status;
    this.parameter = parameter;
  }

  public static ImageRequestException badRequest(String parameter, String reason) {
    return new ImageRequestException(400, parameter, reason);
  }

  public static ImageRequestException notFound(String reason) {
    return new ImageRequestException(404, null, reason);
  }

  public int status() {
    return status;
  }

  /** The query/path parameter or field the error is about, or null. */
  public String parameter() {
    return parameter;
  }
}
