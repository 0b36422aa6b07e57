package dev.rendezvous.service.validation;

/** A client sent a value we refuse; carries the field (dotted path) and the reason, for a 400. */
public class InvalidInputException extends RuntimeException {
  private final String field;
  private final String reason;

  public InvalidInputException(String field, String reason) {
    super(field + ": " + reason);
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
