package dev.rendezvous.agent.wire;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.util.List;

/** Upstream {@code steps}: what GET .../instructions answers and what a websocket {@code steps} message carries. */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record Steps(Integer nextInstructionSeconds, PostStepAction postStepAction, List<Step> instructions) {
  public Steps {
    instructions = instructions == null ? List.of() : List.copyOf(instructions);
    postStepAction = postStepAction == null ? PostStepAction.CONTINUE : postStepAction;
    nextInstructionSeconds = nextInstructionSeconds == null ? 0 : nextInstructionSeconds;
  }
}
