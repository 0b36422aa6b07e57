package dev.rendezvous.agent.transport;

/** A non-success HTTP answer from the gateway: status, upstream error reason, Retry-After if given. */
public final class GatewayException extends RuntimeException {
  private final int status;
  private final int retryAfterSeconds;
  private final boolean fromService;

  public GatewayException(int status, String reason, int retryAfterSeconds) {
    this(status, reason, retryAfterSeconds, true);
  }

  public GatewayException(int status, String reason, int retryAfterSeconds, boolean fromService) {
    super("HTTP " + status + ": " + reason);
    this.status = status;
    this.retryAfterSeconds = retryAfterSeconds;
    this.fromService = fromService;
  }

  /**
   * Whether the answer was the service's error JSON ({@code "kind": "Error"}), not something in between (a proxy's
   * page, a wrong base path): only the service's own 404 is a verdict worth freezing on.
   */
  public boolean fromService() {
    return fromService;
  }

  public int status() {
    return status;
  }

  /** Seconds from Retry-After, or -1 when absent. */
  public int retryAfterSeconds() {
    return retryAfterSeconds;
  }
}
