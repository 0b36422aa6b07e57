package dev.rendezvous.agent.wire;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/** Upstream {@code post_step_action}; anything unknown is read as {@code continue} (upstream's default). */
public enum PostStepAction {
  CONTINUE("continue"),
  EXIT("exit");

  private final String wire;

  PostStepAction(String wire) {
    this.wire = wire;
  }

  @JsonValue
  public String wire() {
    return wire;
  }

  @JsonCreator
  public static PostStepAction fromWire(String s) {
    return "exit".equals(s) ? EXIT : CONTINUE;
  }
}
