package dev.rendezvous.service.domain.planning;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.util.List;

/** One instruction for the agent: {@code {"step_type", "step_id", "args"}}; args[0] is usually a JSON request. */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record Step(StepType stepType, String stepId, List<String> args) {
  public Step {
    args = List.copyOf(args);
  }
}
