package dev.rendezvous.agent.wire;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.util.List;

/**
 * The part of upstream's {@code host_registration_response} the agent reads (a host plus
 * {@code next_step_runner_command}); the other host fields are ignored.
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record HostRegistration(
    String id, String infraEnvId, String clusterId, String status, NextStepRunnerCommand nextStepRunnerCommand) {

  @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
  public record NextStepRunnerCommand(String command, List<String> args, Integer retrySeconds) {}
}
