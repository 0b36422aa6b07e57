package dev.rendezvous.agent.wire;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

/** Upstream {@code step-reply}: the body of POST .../instructions and of a websocket {@code step_reply}. */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record StepReply(String stepType, String stepId, int exitCode, String output, String error) {
  public StepReply {
    output = output == null ? "" : output;
    error = error == null ? "" : error;
  }
}
