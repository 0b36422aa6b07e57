package dev.rendezvous.agent.wire;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.util.List;

/**
 * Websocket messages of docs/agent-protocol.md: one JSON object per text frame, discriminated by
 * {@code type}. A {@code type} this agent does not know reads as {@link Unknown} (answered with an
 * {@code error}, the connection stays open).
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type", visible = true, defaultImpl = WsMessage.Unknown.class)
@JsonSubTypes({
  @JsonSubTypes.Type(value = WsMessage.Hello.class, name = "hello"),
  @JsonSubTypes.Type(value = WsMessage.Welcome.class, name = "welcome"),
  @JsonSubTypes.Type(value = WsMessage.StepsMessage.class, name = "steps"),
  @JsonSubTypes.Type(value = WsMessage.StepReplyMessage.class, name = "step_reply"),
  @JsonSubTypes.Type(value = WsMessage.Ack.class, name = "ack"),
  @JsonSubTypes.Type(value = WsMessage.Heartbeat.class, name = "heartbeat"),
  @JsonSubTypes.Type(value = WsMessage.Error.class, name = "error"),
})
public sealed interface WsMessage {

  /** First message, agent to gateway. */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  record Hello(List<Integer> versions, String agentVersion) implements WsMessage {}

  /** Gateway's answer to {@link Hello} with the highest common version. */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  record Welcome(int version, int heartbeatSeconds, long maxFrameBytes) implements WsMessage {}

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  record StepsMessage(Steps steps) implements WsMessage {}

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  record StepReplyMessage(StepReply reply) implements WsMessage {}

  /** The reply with this step id is on the bus. */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  record Ack(String stepId) implements WsMessage {}

  record Heartbeat(long seq) implements WsMessage {}

  /** Codes seen: unsupported-version, hello-required, bus-unavailable, frame-too-large, unknown-type. */
  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  record Error(String code, String reason, Boolean retryable, String stepId, List<Integer> supported)
      implements WsMessage {
    public boolean isRetryable() {
      return Boolean.TRUE.equals(retryable);
    }
  }

  /** A message whose {@code type} this agent does not know; {@link #type} is filled by the reader. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  record Unknown(String type) implements WsMessage {}
}
