package dev.rendezvous.agent;

import java.util.Locale;

/** How the agent talks to the gateway: {@code auto} tries the websocket and falls back to HTTP long-poll. */
public enum TransportMode {
  AUTO,
  WEBSOCKET,
  HTTP;

  public static TransportMode parse(String s) {
    try {
      return valueOf(s.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new ConfigException("transport", "must be one of auto, websocket, http (got '" + s + "')");
    }
  }
}
