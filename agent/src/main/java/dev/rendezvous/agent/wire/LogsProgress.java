package dev.rendezvous.agent.wire;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;

/** Upstream {@code logs-progress-params}: {@code requested|collecting|completed|timeout}. */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record LogsProgress(String logsState) {}
