package dev.rendezvous.service.domain.planning;

/** A step output (or stored JSON) that does not parse: names the field and the reason, for a 400 answer. */
public final class InvalidStepOutputException extends RuntimeException {
  private final String field;
  private final String reason;

  public InvalidStepOutputException(String field, String reason, Throwable cause) {
    super(field + ": " + reason, cause);
    this.field = field;
    this.reason = reason;
  }

  public String field() {
    return field;
  }

  public String reason() {
    return reason;
  }
}
