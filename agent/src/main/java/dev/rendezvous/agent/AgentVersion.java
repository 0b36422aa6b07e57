package dev.rendezvous.agent;

/** The agent's own version, sent as {@code discovery_agent_version} and in the websocket hello. */
public final class AgentVersion {
  public static final String VERSION = "0.1.0";
  /** Websocket protocol versions this agent speaks (docs/agent-protocol.md); 2 sends step replies as binary messages. */
  public static final java.util.List<Integer> PROTOCOL_VERSIONS = java.util.List.of(1, 2);

  private AgentVersion() {}
}
