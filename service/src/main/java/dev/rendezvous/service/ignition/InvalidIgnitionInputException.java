package dev.rendezvous.service.ignition;

/** Bad discovery-Ignition input; {@link #field()} is the upstream (snake_case) field at fault. */
public final class InvalidIgnitionInputException extends IllegalArgumentException {

  private final String field;

  public InvalidIgnitionInputException(String field, String reason) {
    super(field + ": " + reason);
    this.field = field;
  }

  public String field() {
    return field;
  }

  /** The reason without the field prefix. */
  public String reason() {
    return getMessage().substring(field.length() + 2);
  }
}
