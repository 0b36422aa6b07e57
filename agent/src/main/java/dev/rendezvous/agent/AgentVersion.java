package dev.rendezvous.agent;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/** The agent's own version, sent as {@code discovery_agent_version} and in the websocket hello. */
public final class AgentVersion {
  /**
   * Where the jar says which version it is: the service reads it from the jar it serves (the version its agents
   * are upgraded to), and an agent replacing itself checks the jar it downloaded says what it was asked for.
   */
  public static final String RESOURCE = "dev/rendezvous/agent/agent-version";
  public static final String VERSION = read();
  /** Websocket protocol versions this agent speaks (docs/agent-protocol.md); 2 sends step replies as binary messages. */
  public static final java.util.List<Integer> PROTOCOL_VERSIONS = java.util.List.of(1, 2);

  private AgentVersion() {}

  private static String read() {
    try (InputStream in = AgentVersion.class.getClassLoader().getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(RESOURCE + " is missing from the agent's class path");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
    } catch (IOException e) {
      throw new IllegalStateException("reading " + RESOURCE, e);
    }
  }
}
