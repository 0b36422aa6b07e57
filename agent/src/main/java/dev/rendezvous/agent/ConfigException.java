package dev.rendezvous.agent;

/** A bad or missing setting; the message names the flag and the reason. */
public final class ConfigException extends RuntimeException {
  private final String setting;

  public ConfigException(String setting, String reason) {
    super("--" + setting + ": " + reason);
    this.setting = setting;
  }

  public String setting() {
    return setting;
  }
}
