package dev.rendezvous.service.brain;

/** A user's host update the domain refused: HTTP status, the request field at fault (may be null), why. */
public final class HostUpdateRejected extends RuntimeException {
  private final int status;
  private final String field;

  public HostUpdateRejected(int status, String field, String message) {
    super(message, null, false, false);
    this.status = status;
    this.field = field;
  }

  public int status() {
    return status;
  }

  public String field() {
    return field;
  }
}
