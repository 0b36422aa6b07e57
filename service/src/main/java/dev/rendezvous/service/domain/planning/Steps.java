package dev.rendezvous.service.domain.planning;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.util.List;

/** The GET .../instructions answer: poll interval, what to do after the steps, and the steps. */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record Steps(int nextInstructionSeconds, String postStepAction, List<Step> instructions) {
  public static final String CONTINUE = "continue";
  public static final String EXIT = "exit";

  public Steps {
    instructions = List.copyOf(instructions);
  }

  public List<StepType> types() {
    return instructions.stream().map(Step::stepType).toList();
  }
}
