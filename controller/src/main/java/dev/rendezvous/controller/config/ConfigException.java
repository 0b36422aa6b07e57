package dev.rendezvous.controller.config;

/** A missing or malformed setting; the message names it (environment variable and flag) and says why. */
public final class ConfigException extends RuntimeException {
  private final String setting;

  public ConfigException(String setting, String reason) {
    super(setting + ": " + reason);
    this.setting = setting;
  }

  public String setting() {
    return setting;
  }
}
