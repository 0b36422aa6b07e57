package dev.rendezvous.controller.service;

/** A service call that failed for good (after the retry policy gave up, or with a status it does not retry). */
public final class ServiceException extends RuntimeException {
  private final int status;

  /**
   * @param status the HTTP status, 0 when no answer came (connection refused, timeout, TLS failure)
   */
  public ServiceException(String method, String path, int status, String detail, Throwable cause) {
    super(method + " " + path + (status == 0 ? " failed" : " answered " + status) + (detail == null || detail.isBlank() ? "" : ": " + detail), cause);
    this.status = status;
  }

  public int status() {
    return status;
  }

  public boolean isNotFound() {
    return status == 404;
  }

  public boolean isUnauthorized() {
    return status == 401;
  }

  /** The service's ServiceException behind a (possibly wrapped) failure, or null. */
  public static ServiceException find(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof ServiceException se) {
        return se;
      }
    }
    return null;
  }
}
