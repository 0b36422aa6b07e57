package dev.rendezvous.agent.wire;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.util.List;

/** Upstream {@code step}. The type stays a string: an agent must answer types it does not know. */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record Step(String stepType, String stepId, List<String> args) {
  public Step {
    args = args == null ? List.of() : List.copyOf(args);
  }

  /** args[i], or null when absent. */
  public String arg(int i) {
    return i < args.size() ? args.get(i) : null;
  }
}
