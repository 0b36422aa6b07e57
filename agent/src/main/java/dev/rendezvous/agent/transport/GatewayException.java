package dev.rendezvous.agent.transport;

/** A non-success HTTP answer from the gateway: status, upstream error reason, Retry-After if given. */
public final class GatewayException extends RuntimeException {
  private final int status;
  private final int retryAfterSeconds;

  public GatewayException(int status, String reason, int retryAfterSeconds) {
    super("HTTP " + status + ": " + reason);
    this.status = status;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  public int status() {
    return status;
  }

  /** Seconds from Retry-After, or -1 when absent. */
  public int retryAfterSeconds() {
    return retryAfterSeconds;
  }
}
